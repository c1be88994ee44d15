// Shared setup for template tests: a fake checkout with an image list and artifacts.
import { readJournalItems } from '../../src/services/workspace/journal.js';
import { mkdir, writeFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fakeDressageCheckout } from '../helpers/workspace.js';
import { recipePaths, type RecipePaths } from '../../src/services/workspace/paths.js';
import { binaryFileName, runtimeFileName, type ArtifactVersions } from '../../src/services/artifacts/versions.js';

export const VERSIONS: ArtifactVersions = { claudeCodeVersion: '2.1.207', portablePythonVersion: '3.10.20', bbsVersion: '1.1.0' };

export function imageNames(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `xingyaoww/sweb.eval.x86_64.proj${i % 7}_s_repo${i % 7}-${100 + i}:latest`);
}

export async function templateWorkspace(images: string[]): Promise<{ ws: string; paths: RecipePaths }> {
  const ws = await fakeDressageCheckout();
  const paths = recipePaths(ws);
  await mkdir(path.dirname(paths.imageList), { recursive: true });
  await writeFile(paths.imageList, images.join('\n') + '\n');
  await mkdir(paths.artifactDir, { recursive: true });
  await writeFile(path.join(paths.artifactDir, binaryFileName(VERSIONS)), 'fake claude binary\n');
  await writeFile(path.join(paths.artifactDir, runtimeFileName(VERSIONS)), 'fake runtime tarball\n');
  return { ws, paths };
}

/** A journal as its readers see it (snapshot + appended log), in the snapshot's shape. */
export async function readJournal(file: string): Promise<any> {
  return { items: (await readJournalItems(file)) ?? {} };
}

export async function readJson(file: string): Promise<any> {
  return JSON.parse(await readFile(file, 'utf8'));
}
