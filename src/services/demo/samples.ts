// The sample tasks that ship with the console (samples/tasks): where they are and what their manifest lists. Its own
// file so that the demo's steps (agentStep.ts) read the manifest without importing the demo that runs them.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConsoleError, ExitCode } from '../errors.js';

export interface ManifestInstance {
  instance_id: string;
  repo: string;
  base_commit: string;
  patch: string;
  test_patch: string;
  problem_statement: string;
  version: string;
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
  local: {
    task_dir: string;
    testbed_script: string;
    test_command: string;
    start_command: string;
    health: { port: number; path: string };
    copies: { src: string; dest: string; mode?: number }[];
  };
}

export function findSamplesDir(start = path.dirname(fileURLToPath(import.meta.url))): string | undefined {
  let dir = start;
  for (;;) {
    const candidate = path.join(dir, 'samples', 'tasks');
    if (existsSync(path.join(candidate, 'manifest.json'))) return candidate;
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

export async function readManifest(samplesDir: string): Promise<ManifestInstance[]> {
  const file = path.join(samplesDir, 'manifest.json');
  let data: { instances?: ManifestInstance[] };
  try {
    data = JSON.parse(await readFile(file, 'utf8')) as { instances?: ManifestInstance[] };
  } catch (err) {
    throw new ConsoleError({ what: `cannot read the sample manifest ${file}`, cause: (err as Error).message, fix: 'reinstall swegym-console (samples/tasks ships with it)', exitCode: ExitCode.precondition });
  }
  if (!Array.isArray(data.instances) || data.instances.length === 0) throw new ConsoleError({ what: `${file} lists no instances`, exitCode: ExitCode.precondition });
  return data.instances;
}
