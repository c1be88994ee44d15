// The home domain (the pipeline): every step's state from the files on disk, and the doctor's answers (the doctor
// domain's job) in the home store. Created with the first frame: this module and the controller import the doctor
// and the pipeline's readers only when they run.
import { defineDomain } from '../domain/definition.js';
import { createHomeStore } from '../../state/home.js';
import { HomeController } from './controller.js';

export const homeDomain = defineDomain({
  name: 'home',
  jobs: (deps) => ({
    /** Every step's state from disk (`status`, the Home screen's list). */
    status: async () => (await import('./pipeline.js')).pipelineStatus(deps.paths, deps.profile),
  }),
  create: (deps) => {
    const store = createHomeStore();
    return { store, controller: new HomeController({ paths: deps.paths, env: deps.env, provider: deps.global.provider, profile: deps.profile, store, flash: (text, tone) => deps.flash(text, tone) }) };
  },
  projections: {},
});
