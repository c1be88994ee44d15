// The train domain: the launch and stop jobs (`train launch`/`train stop` and the screen's l/s), the Train screen's
// store and controller, and the views both faces print (the merged checks, the form's order and problems).
import { defineDomain } from '../domain/definition.js';
import { createTrainStore } from '../../state/train.js';
import { FIELD_KEYS, TrainController, mergedChecks, settingProblem } from './controller.js';
import { runLaunchJob, runStopJob, type LaunchJobOptions, type StopJobOptions } from './launchJob.js';
import { describeDerived } from './derive.js';

export const trainDomain = defineDomain({
  name: 'train',
  jobs: (deps) => ({
    launch: (o: Omit<LaunchJobOptions, 'log'>) => runLaunchJob({ log: deps.commandLog, ...o }),
    stop: (o: Omit<StopJobOptions, 'paths' | 'log'>) => runStopJob({ paths: deps.paths, log: deps.commandLog, env: deps.env, ...o }),
  }),
  create: (deps) => {
    const store = createTrainStore();
    return { store, controller: new TrainController({ paths: deps.paths, env: deps.env, store, app: deps.app, jobs: deps.jobs, commandLog: deps.commandLog }) };
  },
  projections: { FIELD_KEYS, mergedChecks, settingProblem, describeDerived },
});
