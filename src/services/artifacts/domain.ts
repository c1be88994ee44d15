// The artifacts domain: the Blackbox Server wheel and the Claude Code sandbox artifacts, built by Dressage's script
// (`artifacts build` and the Templates screen's A). Jobs only: the Templates controller shows the build's output.
import { defineDomain } from '../domain/definition.js';
import type { BuildArtifactsOptions } from './artifacts.js';

export const artifactsDomain = defineDomain({
  name: 'artifacts',
  jobs: (deps) => ({
    build: async (o: Omit<BuildArtifactsOptions, 'paths' | 'env'>) => (await import('./artifacts.js')).buildArtifacts({ paths: deps.paths, env: deps.env, ...o }),
  }),
  projections: {},
});
