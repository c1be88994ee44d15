// The demo domain: the offline walk through the sample recipe (data → templates → smoke → rows → validation), and
// `validate agent` on the local provider (the real Claude Code CLI in a bubblewrap sandbox; its model the scripted
// replay of a sample task's gold patch, or a router). Jobs only: the Validate screen's controller runs the agent
// job, handed over by the registry (this domain imports validate, so validate cannot import it).
import { defineDomain } from '../domain/definition.js';
import type { ValidateAgentJobOptions } from './agentJob.js';
import type { DemoOptions } from './demo.js';
import { templatesDomain } from '../templates/domain.js';
import { validateDomain } from '../validate/domain.js';

export const demoDomain = defineDomain({
  name: 'demo',
  jobs: (deps) => ({
    /** `validate agent --provider local` and the Validate screen's a. */
    validateAgent: async (o: Omit<ValidateAgentJobOptions, 'paths' | 'env' | 'openProvider'> & Partial<Pick<ValidateAgentJobOptions, 'openProvider'>>) =>
      (await import('./agentJob.js')).runValidateAgentJob({ paths: deps.paths, env: deps.env, openProvider: () => deps.providers.open({ name: 'local' }), ...o }),
    /** `demo`: the sample workspace (this registry's workspace) built and checked on local sandboxes. */
    demo: async (o: Omit<DemoOptions, 'provider' | 'workspace' | 'env' | 'log'>) =>
      (await import('./demo.js')).runDemo({
        provider: await deps.providers.plain('local'),
        workspace: deps.paths.root,
        env: deps.env,
        // The smoke and validation steps are the registry's jobs, as `templates smoke` and `validate harness` run them.
        jobs: { smoke: templatesDomain.jobs(deps).smoke, harness: validateDomain.jobs(deps).harness },
        ...o,
      }),
  }),
  projections: {},
});
