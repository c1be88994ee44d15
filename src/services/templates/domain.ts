// The templates domain: the build and smoke jobs (bound to the registry's provider), the Templates screen's store
// and controller, and the rows both faces count.
import { defineDomain } from '../domain/definition.js';
import { createTemplatesStore } from '../../state/templates.js';
import { TemplatesController } from './controller.js';
import { TemplateBuildJob, type TemplateBuildJobOptions } from './buildJob.js';
import { runSmokeJob, type SmokeJobOptions } from './smokeJob.js';
import { countRows, templatesStatus } from './status.js';

export const templatesDomain = defineDomain({
  name: 'templates',
  jobs: (deps) => ({
    /** `templates build` and the screen's B. */
    build: (o: Omit<TemplateBuildJobOptions, 'paths' | 'env' | 'openProvider'>) => new TemplateBuildJob({ paths: deps.paths, env: deps.env, profile: deps.profile, openProvider: () => deps.providers.open(), ...o }),
    /** `templates smoke` and the screen's s. */
    smoke: (o: Omit<SmokeJobOptions, 'paths' | 'openProvider' | 'env'>) => runSmokeJob({ paths: deps.paths, env: deps.env, openProvider: () => deps.providers.open(), ...o }),
  }),
  create: (deps) => {
    const store = createTemplatesStore();
    const controller = new TemplatesController({ paths: deps.paths, store, jobs: deps.jobs, env: deps.env, profile: deps.profile, openProvider: () => deps.providers.open() });
    return { store, controller, dispose: () => controller.dispose() };
  },
  projections: { status: templatesStatus, countRows },
});
