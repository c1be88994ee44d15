// The validate domain: the harness validation job (gold patch → resolved, untouched repo → unresolved, in fresh
// sandboxes), the Validate screen's store and controller, and the result lines both faces print. The `validate
// agent` job is the agent domain's (services/demo: it imports validate); the registry hands it over as wiring.
import { defineDomain } from '../domain/definition.js';
import { createValidateStore } from '../../state/validate.js';
import { ValidateController, type ValidateControllerOptions } from './controller.js';
import { runValidateHarnessJob, type ValidateHarnessJobOptions } from './harnessJob.js';
import { harnessResultsJson } from './harness.js';
import { agentProgressText } from './agentRecord.js';

/** What `validate harness` says the key is for when E2B_API_KEY is missing. */
export const VALIDATE_PURPOSE = 'validating tasks in fresh sandboxes';

export const validateDomain = defineDomain({
  name: 'validate',
  jobs: (deps) => ({
    /** `validate harness` and the screen's v/V. */
    harness: (o: Omit<ValidateHarnessJobOptions, 'paths' | 'env' | 'openProvider'>) =>
      runValidateHarnessJob({ paths: deps.paths, env: deps.env, openProvider: () => deps.providers.open({ purpose: VALIDATE_PURPOSE }), ...o }),
  }),
  create: (deps, wiring: { runAgentJob: NonNullable<ValidateControllerOptions['runAgentJob']> }) => {
    const store = createValidateStore();
    const controller = new ValidateController({ paths: deps.paths, store, jobs: deps.jobs, env: deps.env, profile: deps.profile, openProvider: () => deps.providers.open(), runAgentJob: wiring.runAgentJob });
    return { store, controller, dispose: () => controller.dispose() };
  },
  projections: { harnessResultsJson, agentProgressText },
});
