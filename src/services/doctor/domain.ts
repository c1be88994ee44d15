// The doctor domain: every prerequisite check as one job (`doctor` prints its events; the Home screen's controller
// puts them in the home store, which the home domain owns). Jobs only; the checks' code loads when the job runs.
import { defineDomain } from '../domain/definition.js';
import type { DoctorOptions } from './doctor.js';

export const doctorDomain = defineDomain({
  name: 'doctor',
  jobs: (deps) => ({
    doctor: async (o: Omit<DoctorOptions, 'paths' | 'env' | 'provider'> = {}) =>
      (await import('./doctor.js')).runDoctor({ paths: deps.paths, env: deps.env, provider: deps.global.provider, ...o }),
  }),
  projections: {},
});
