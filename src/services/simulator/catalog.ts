// The simulated task set: SWE-Gym-like instance ids (`<owner>__<repo>-<number>`) over the split's repos, fixed
// (independent of the run seed) the way the real 293-row split is, each with a hidden difficulty.
import { Rng } from './rng.js';

export interface SimTask {
  instanceId: string;
  repo: string;
  /** Offset of this task's solve rate in logit space (positive = easier). */
  difficulty: number;
  f2pTotal: number;
  p2pTotal: number;
  baseCommit: string;
}

const REPOS: readonly (readonly [string, number])[] = [
  ['getmoto/moto', 60],
  ['python/mypy', 45],
  ['pandas-dev/pandas', 40],
  ['iterative/dvc', 30],
  ['dask/dask', 25],
  ['conan-io/conan', 22],
  ['pydantic/pydantic', 20],
  ['Project-MONAI/MONAI', 18],
  ['facebookresearch/hydra', 12],
  ['modin-project/modin', 11],
  ['bokeh/bokeh', 10],
];

const CATALOG_SEED = 0x5e6_293;

export function buildCatalog(count = 293): SimTask[] {
  const rng = new Rng(CATALOG_SEED);
  const seen = new Set<string>();
  const tasks: SimTask[] = [];
  while (tasks.length < count) {
    const repo = rng.weighted(REPOS);
    const [owner, name] = repo.split('/') as [string, string];
    const id = `${owner}__${name}-${rng.range(1000, 16999)}`;
    if (seen.has(id)) continue;
    seen.add(id);
    tasks.push({
      instanceId: id,
      repo,
      difficulty: rng.normal(0, 1.3),
      f2pTotal: rng.weighted([[1, 40], [2, 25], [3, 12], [4, 8], [6, 5], [12, 2]] as const),
      p2pTotal: rng.weighted([[0, 5], [8, 10], [24, 20], [40, 20], [96, 15], [250, 8], [1200, 2]] as const),
      baseCommit: rng.hex(40),
    });
  }
  return tasks;
}

/** Path parts as Dressage's artifact writer sanitises them: `[A-Za-z0-9._-]`, others → `_`. */
export function sanitizePathPart(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]/g, '_');
}
