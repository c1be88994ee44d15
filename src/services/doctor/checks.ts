import type { RecipePaths } from '../workspace/paths.js';
import type { DoctorCheck } from './types.js';

export interface CheckContext {
  paths: RecipePaths;
  env: NodeJS.ProcessEnv;
  provider: 'e2b' | 'local';
  timeoutMs: number;
}

type Partialish = Omit<DoctorCheck, 'id' | 'title'> & { id?: string; title?: string };

export interface CheckDef {
  id: string;
  title: string;
  run: (ctx: CheckContext) => Promise<Partialish | Partialish[]>;
}

export const CHECKS: CheckDef[] = [
  {
    id: 'node',
    title: 'Node.js',
    run: async () => {
      const major = Number(process.versions.node.split('.')[0]);
      return major >= 22
        ? { status: 'ok', detail: `v${process.versions.node}` }
        : { status: 'fail', detail: `v${process.versions.node} is older than 22`, fix: 'run through `npm start`, which uses the pinned Node 24' };
    },
  },
];
