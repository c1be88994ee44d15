// The home domain (the pipeline): every step's state from the files on disk and the doctor's checks. The doctor is
// its job (`doctor` prints its events; the Home screen's controller puts them in the store). Created with the first
// frame: this module and the controller import the doctor and the pipeline's readers only when they run.
import { defineDomain } from '../domain/definition.js';
import { createHomeStore } from '../../state/home.js';
import { HomeController } from './controller.js';
import type { runDoctor } from '../doctor/doctor.js';

type DoctorOptions = Parameters<typeof runDoctor>[0];

export const homeDomain = defineDomain({
  name: 'home',
  jobs: (deps) => ({
    /** `doctor` and the Home screen's refresh. */
    doctor: async (o: Omit<DoctorOptions, 'paths' | 'env' | 'provider'>) =>
      (await import('../doctor/doctor.js')).runDoctor({ paths: deps.paths, env: deps.env, provider: deps.global.provider, ...o }),
    /** Every step's state from disk (`status`, the Home screen's list). */
    status: async () => (await import('./pipeline.js')).pipelineStatus(deps.paths),
  }),
  create: (deps) => {
    const store = createHomeStore();
    return { store, controller: new HomeController({ paths: deps.paths, env: deps.env, provider: deps.global.provider, store, flash: (text, tone) => deps.flash(text, tone) }) };
  },
  projections: {},
});
