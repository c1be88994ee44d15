// What a killed writer leaves behind: the temp files of atomic writes (`.<name>.<pid>.<hex>.tmp`) and, for the local
// provider, half-built template trees (`.build-<name>.<pid>.<hex>`, image-sized). Each carries its writer's pid;
// a rerun removes those whose writer is gone, never a live writer's.
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { isProcessAlive } from './lock.js';
import { listDir } from '../util/fs.js';

const TEMP_FILE = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;
const BUILD_DIR = /^\.build-.+\.(\d+)\.[0-9a-f]{8}$/;
/** Build trees named before they carried a pid: removed once clearly abandoned. */
const OLD_BUILD_DIR = /^\.build-.+-[0-9a-f]{8}$/;
const OLD_BUILD_AGE_MS = 6 * 3600_000;

export function buildDirName(template: string, hex: string): string {
  return `.build-${template}.${process.pid}.${hex}`;
}

/** Removes the litter of dead writers in `dirs` (not recursive). Returns what was removed. Best effort. */
export async function sweepLitter(dirs: readonly string[], now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const dir of dirs) {
    for (const name of await listDir(dir)) {
      const m = TEMP_FILE.exec(name) ?? BUILD_DIR.exec(name);
      let dead = m !== null && Number(m[1]) !== process.pid && !isProcessAlive(Number(m[1]));
      if (!m && OLD_BUILD_DIR.test(name)) {
        const s = await stat(path.join(dir, name)).catch(() => undefined);
        dead = s !== undefined && now - s.mtimeMs > OLD_BUILD_AGE_MS;
      }
      if (!dead) continue;
      try {
        await rm(path.join(dir, name), { recursive: true, force: true });
        removed.push(path.join(dir, name));
      } catch {
        // not ours to remove after all (permissions): leave it
      }
    }
  }
  return removed;
}
