// Atomic file writes: write a temp file in the same directory, fsync, rename. A reader never sees a half file.
import { open, rename, mkdir, rm, readFile, link, chmod } from 'node:fs/promises';
import path from 'node:path';
import { accessSync, chmodSync, constants, existsSync, mkdirSync, statfsSync } from 'node:fs';
import { randomHex } from '../util/randomHex.js';
import { ConsoleError } from '../errors.js';
import { formatBytes } from '../util/format.js';

export interface AtomicWriteOptions {
  mode?: number;
}

// The console's own state (<workspace>/.swegym-console/: journals, the run registry, locks, build logs) may hold
// process text: its files are 0600 and its folders 0700, whatever the umask, and also when an older console made
// them 0644/0755.
const CONSOLE_DIR_NAME = '.swegym-console';
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** The `.swegym-console` folder `file` is inside, if any. */
function consoleStateRoot(file: string): string | undefined {
  const parts = path.resolve(file).split(path.sep);
  const at = parts.lastIndexOf(CONSOLE_DIR_NAME);
  return at > 0 ? parts.slice(0, at + 1).join(path.sep) : undefined;
}

/** True for paths inside a workspace's `.swegym-console/`. */
export function isConsoleState(file: string): boolean {
  return consoleStateRoot(file) !== undefined;
}

/** The mode a new file at `file` gets: private inside `.swegym-console/`, else `fallback`. */
export function fileModeFor(file: string, fallback = 0o644): number {
  return isConsoleState(file) ? PRIVATE_FILE_MODE : fallback;
}

const privateDirs = new Set<string>();

/** The folders from `.swegym-console/` down to `dir`, to be made 0700 (once per process each). */
function privateChain(dir: string): string[] {
  const root = consoleStateRoot(path.join(dir, 'x'));
  if (!root) return [];
  const chain: string[] = [];
  for (let d = path.resolve(dir); d.length >= root.length; d = path.dirname(d)) {
    if (!privateDirs.has(d)) chain.push(d);
    if (d === root) break;
  }
  return chain;
}

/** mkdir -p `dir`; inside `.swegym-console/` its folders are 0700 (new and existing ones). */
export async function ensureDir(dir: string): Promise<void> {
  const chain = privateChain(dir);
  await mkdir(dir, { recursive: true, ...(chain.length > 0 || isConsoleState(path.join(dir, 'x')) ? { mode: PRIVATE_DIR_MODE } : {}) });
  for (const d of chain) {
    await chmod(d, PRIVATE_DIR_MODE).catch(() => undefined);
    privateDirs.add(d);
  }
}

/** ensureDir, synchronously (for writers that open streams synchronously). */
export function ensureDirSync(dir: string): void {
  const chain = privateChain(dir);
  mkdirSync(dir, { recursive: true, ...(isConsoleState(path.join(dir, 'x')) ? { mode: PRIVATE_DIR_MODE } : {}) });
  for (const d of chain) {
    try {
      chmodSync(d, PRIVATE_DIR_MODE);
    } catch {
      // Not ours to change (another user's checkout): the files inside are still 0600.
    }
    privateDirs.add(d);
  }
}

const NOT_WRITABLE = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOSPC', 'EDQUOT', 'EFBIG']);
/** Failures of the disk itself, never of the network: nothing retries them, the message says where and how full. */
export const DISK_FULL_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/** True for an error that is the file system refusing a write (full, over quota, read-only), not the network. */
export function isStorageError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code !== undefined && (DISK_FULL_CODES.has(code) || code === 'EROFS');
}

/** "12.3 MiB free of 1.0 GiB on /mount", from statfs of the nearest existing folder; undefined where statfs fails. */
export function freeSpaceNote(file: string): string | undefined {
  for (let d = path.dirname(path.resolve(file)); ; d = path.dirname(d)) {
    if (existsSync(d)) {
      try {
        const st = statfsSync(d);
        return `${formatBytes(Number(st.bavail) * Number(st.bsize))} free of ${formatBytes(Number(st.blocks) * Number(st.bsize))} on the file system holding ${d}`;
      } catch {
        return undefined;
      }
    }
    if (path.dirname(d) === d) return undefined;
  }
}

/** A write refused by the file system, said in terms of the file the user cares about (not our temp file). */
export function notWritableError(file: string, err: unknown): unknown {
  let code = (err as NodeJS.ErrnoException)?.code;
  // A recursive mkdir on a read-only mount reports ENOENT: ask the nearest existing directory why.
  if (code === 'ENOENT') code = ancestorWriteError(path.dirname(file)) ?? code;
  if (!code || !NOT_WRITABLE.has(code)) return err;
  if (DISK_FULL_CODES.has(code)) {
    const free = freeSpaceNote(file);
    const quota = code === 'EDQUOT';
    return new ConsoleError({
      what: `cannot write ${file}: ${quota ? 'the disk quota is exceeded' : code === 'EFBIG' ? 'the file is larger than the file system allows' : 'no space left on the device'} (${code})`,
      cause: `${free ?? 'the free space could not be read'}; this is the disk, not the network`,
      fix: `${quota ? 'free space within your quota (or ask for a larger one)' : 'free space on that file system'}, or use a workspace on another one (--workspace DIR); then rerun: finished work is kept`,
      inner: err,
    });
  }
  const readOnly = code === 'EROFS';
  const free = readOnly ? freeSpaceNote(file) : undefined;
  return new ConsoleError({
    what: `cannot write ${file}: ${readOnly ? 'the file system is read-only' : 'permission denied'}`,
    cause: readOnly ? `the workspace (or this part of it) is mounted read-only${free ? ` (${free})` : ''}` : `this user may not write in ${path.dirname(file)}`,
    fix: readOnly ? 'run in a writable checkout (--workspace DIR), or remount it read-write' : `fix the permissions of ${path.dirname(file)}, or use a workspace you own (--workspace DIR)`,
    inner: err,
  });
}

function ancestorWriteError(dir: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(d)) {
      try {
        accessSync(d, constants.W_OK);
        return undefined;
      } catch (e) {
        return (e as NodeJS.ErrnoException).code;
      }
    }
    if (path.dirname(d) === d) return undefined;
  }
}

export async function writeFileAtomic(file: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): Promise<void> {
  try {
    await writeFileAtomicRaw(file, data, opts);
  } catch (err) {
    throw notWritableError(file, err);
  }
}

async function writeFileAtomicRaw(file: string, data: string | Uint8Array, opts: AtomicWriteOptions): Promise<void> {
  const dir = path.dirname(file);
  await ensureDir(dir);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomHex(4)}.tmp`);
  const handle = await open(tmp, 'w', opts.mode ?? fileModeFor(file));
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/**
 * Creates `file` holding `data` only if it does not exist yet; false when it does. Atomic (a complete temp file is
 * hard-linked into place), so a reader never sees it empty or half written: lock files use this, and an empty lock
 * file was once taken for a stale one and removed while its owner was still writing it.
 */
export async function createFileExclusive(file: string, data: string): Promise<boolean> {
  const dir = path.dirname(file);
  await ensureDir(dir).catch((err: unknown) => {
    throw notWritableError(file, err);
  });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomHex(4)}.tmp`);
  // A refusal names the file being created, not our temp file.
  await writeFileAtomicRaw(tmp, data, { mode: fileModeFor(file) }).catch((err: unknown) => {
    throw notWritableError(file, err);
  });
  try {
    await link(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await rm(tmp, { force: true });
  }
}

export async function writeJsonAtomic(file: string, value: unknown, opts: AtomicWriteOptions = {}): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n', opts);
}

/** Reads JSON; returns undefined when the file does not exist; a clear error when it is not valid JSON. */
export async function readJsonFile<T>(file: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new ConsoleError({
      what: `${file} is not valid JSON`,
      cause: (err as Error).message,
      fix: 'Fix or remove the file; the console rewrites its own state files atomically, so this one was edited or damaged by hand.',
    });
  }
}

/**
 * Serialises async writes to one resource so that the last write wins and writes never interleave.
 * Used by journals and maps that are updated from many concurrent workers.
 */
export class WriteQueue {
  private tail: Promise<void> = Promise.resolve();
  run(task: () => Promise<void>): Promise<void> {
    const next = this.tail.then(task, task);
    this.tail = next.catch(() => {});
    return next;
  }
  async idle(): Promise<void> {
    await this.tail;
  }
}
