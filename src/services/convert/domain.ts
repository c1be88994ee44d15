// The convert domain: the convert job (Dressage's converter, then verification), the Convert screen's store and
// controller, and the row preview both faces print.
import { defineDomain } from '../domain/definition.js';
import { createConvertStore } from '../../state/convert.js';
import { ConvertController } from './controller.js';
import { runConvertJob, type ConvertJobOptions } from './convertJob.js';
import { previewLines, previewRow } from './jsonlRows.js';
import { manualCommand } from './options.js';

export const convertDomain = defineDomain({
  name: 'convert',
  jobs: (deps) => ({
    /** `convert` and the screen's r (verify only: `convert --verify-only` and v). */
    convert: (o: Omit<ConvertJobOptions, 'paths' | 'env'>) => runConvertJob({ paths: deps.paths, env: deps.env, ...o }),
  }),
  create: (deps) => {
    const store = createConvertStore();
    const controller = new ConvertController({ paths: deps.paths, store, jobs: deps.jobs, provider: deps.global.provider, env: deps.env });
    return { store, controller, dispose: () => controller.dispose() };
  },
  projections: { previewRow, previewLines, manualCommand },
});
