// The artifacts domain: the Blackbox Server wheel and the Claude Code sandbox artifacts, built by Dressage's script
// as one job (`artifacts build` and the Templates screen's A). Jobs only: the Templates controller shows its output.
import { defineDomain } from '../domain/definition.js';
import type { ArtifactsBuildJobOptions } from './artifactsJob.js';

export const artifactsDomain = defineDomain({
  name: 'artifacts',
  jobs: (deps) => ({
    build: async (o: Omit<ArtifactsBuildJobOptions, 'paths' | 'env'>) => (await import('./artifactsJob.js')).runArtifactsBuildJob({ paths: deps.paths, env: deps.env, ...o }),
  }),
  projections: {},
});
