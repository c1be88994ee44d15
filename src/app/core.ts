// The interactive console's registry: the first frame's part now (console.ts), the other domains (domain.ts) on the
// first `whenReady()` (the console calls it after its first frame; a lazy screen opened earlier calls it too).
import type { GlobalOptions } from '../state/types/options.js';
import type { AppServices } from '../services/registry/appServices.js';
import { createCoreServices, type ServicesOptions } from './console.js';

export { ServicesNotReadyError, type ServicesOptions } from './console.js';

export function startAppServices(global: GlobalOptions, opts: ServicesOptions = {}): AppServices {
  return createCoreServices(global, opts, (core) =>
    import('./domain.js').then((domain) => {
      if (!core.isDisposed()) domain.attachDomainServices(core);
    }),
  ).services;
}
