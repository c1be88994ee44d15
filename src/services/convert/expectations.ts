// What a JSONL on disk is checked against: the split's row count and the converter options asked for. In the sample
// workspace the demo wrote its rows itself, with the sample's own timeouts and one row per sample task, and recorded
// those expectations (SAMPLE_CONVERT_FILE): verifying there checks the sample against what it is, not against the
// 293 SWE-Gym rows.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RecipePaths } from '../workspace/paths.js';
import { writeFileAtomic } from '../workspace/atomic.js';
import { expectedRowCount, type ConvertOptions } from './options.js';

/** In `.swegym-console/` of the sample workspace. */
const SAMPLE_CONVERT_FILE = 'sample-convert.json';

export type SampleRowTimeouts = Pick<ConvertOptions, 'testTimeout' | 'commandTimeout' | 'gitSanitizeTimeout'>;

export interface SampleConvertExpectations {
  rows: number;
  timeouts: SampleRowTimeouts;
}

export async function writeSampleConvertExpectations(paths: RecipePaths, exp: SampleConvertExpectations): Promise<void> {
  await writeFileAtomic(path.join(paths.consoleDir, SAMPLE_CONVERT_FILE), JSON.stringify(exp, null, 2) + '\n');
}

async function readSampleConvertExpectations(paths: RecipePaths): Promise<SampleConvertExpectations | undefined> {
  try {
    const doc = JSON.parse(await readFile(path.join(paths.consoleDir, SAMPLE_CONVERT_FILE), 'utf8')) as Partial<SampleConvertExpectations>;
    if (typeof doc.rows !== 'number' || !doc.timeouts) return undefined;
    return { rows: doc.rows, timeouts: doc.timeouts };
  } catch {
    return undefined;
  }
}

/** The rows and options a verification of `options.output` expects in this workspace. */
export async function verifyExpectationsFor(paths: RecipePaths, options: ConvertOptions): Promise<{ expectedRows: number; options: ConvertOptions; checkedAgainst?: string }> {
  const sample = await readSampleConvertExpectations(paths);
  if (!sample) return { expectedRows: expectedRowCount(options), options };
  const t = sample.timeouts;
  // Said in the report: the form shows the recipe's values, which the sample's rows do not carry.
  const checkedAgainst = `the options the demo wrote (test timeout ${t.testTimeout} s, command timeout ${t.commandTimeout} s, git sanitize ${t.gitSanitizeTimeout} s), not the form's`;
  return { expectedRows: sample.rows, options: { ...options, ...sample.timeouts }, checkedAgainst };
}
