// The data domain: the split's download job (`data download` and the Data screen's d), the Data screen's store and
// controller. Created with the first frame: the dataset code (parquet, the hub client) is imported when it runs.
import { defineDomain } from '../domain/definition.js';
import { createDataStore } from '../../state/data.js';
import { DataController } from './controller.js';
import type { DownloadJobOptions } from './downloadJob.js';

export const dataDomain = defineDomain({
  name: 'data',
  jobs: (deps) => ({
    download: async (o: Omit<DownloadJobOptions, 'paths'>) => (await import('./downloadJob.js')).runDownloadJob({ paths: deps.paths, env: deps.env, ...o }),
  }),
  create: (deps) => {
    const store = createDataStore();
    return { store, controller: new DataController({ paths: deps.paths, store, jobs: deps.jobs, env: deps.env, flash: (text, tone) => deps.flash(text, tone) }) };
  },
  projections: {},
});
