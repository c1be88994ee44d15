// A split at a glance: repos, images, test-list sizes and problem-statement lengths, plus per-instance records.
import { isLegacyImage } from './imageName.js';
import { uniqueImages } from './images.js';
import type { SplitData, SweGymTask } from './types.js';
import type { SplitSummary, Distribution } from '../../state/types/dataset.js';
export type { SplitSummary, Distribution } from '../../state/types/dataset.js';

export interface InstanceRecord {
  instance_id: string;
  repo: string;
  image: string;
  fail_to_pass: string[];
  pass_to_pass: string[];
  version: string;
  base_commit: string;
}

export function distribution(values: readonly number[]): Distribution {
  if (values.length === 0) return { min: 0, median: 0, max: 0, total: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { min: sorted[0] as number, median, max: sorted[sorted.length - 1] as number, total: sorted.reduce((a, b) => a + b, 0) };
}

/** Repos with their task counts, most tasks first (ties by name). */
export function repoCounts(rows: readonly Pick<SweGymTask, 'repo'>[]): { repo: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.repo, (counts.get(r.repo) ?? 0) + 1);
  return [...counts.entries()].map(([repo, count]) => ({ repo, count })).sort((a, b) => b.count - a.count || a.repo.localeCompare(b.repo));
}

export function summarize(data: SplitData): SplitSummary {
  const images = uniqueImages(data.rows);
  return {
    file: data.file,
    split: data.split ?? null,
    rows: data.rows.length,
    fileBytes: data.fileBytes,
    repos: repoCounts(data.rows),
    images: images.length,
    legacyImages: images.filter(isLegacyImage).length,
    failToPass: distribution(data.rows.map((r) => r.FAIL_TO_PASS.length)),
    passToPass: distribution(data.rows.map((r) => r.PASS_TO_PASS.length)),
    problemStatementChars: distribution(data.rows.map((r) => r.problem_statement.length)),
    encoding: data.encoding,
    warnings: data.warnings.length,
  };
}

export function instanceRecord(t: SweGymTask): InstanceRecord {
  return {
    instance_id: t.instance_id,
    repo: t.repo,
    image: t.image,
    fail_to_pass: t.FAIL_TO_PASS,
    pass_to_pass: t.PASS_TO_PASS,
    version: t.version,
    base_commit: t.base_commit,
  };
}
