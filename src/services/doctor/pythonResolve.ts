// Which interpreter `python3` on PATH starts, found without starting anything, where that is exact. A pyenv shim
// (a bash script that runs `pyenv exec`, itself a few bash processes) costs 300+ ms before Python starts; pyenv picks
// the interpreter by rules it documents (pyenv's README, "Choosing the Python version"): PYENV_VERSION, else the
// first `.python-version` file from the current directory up, else `$PYENV_ROOT/version`, else the system Python.
// Where those rules give an installed version, its `bin/python3` is the interpreter the shim would exec. Anything
// else (the system Python, a version that is not installed or is a prefix pyenv would complete, a shim of another
// shape) is left to the shim itself, so that pyenv gives its own answer or error.
import { accessSync, closeSync, constants, openSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { findOnPath } from '../process/findOnPath.js';

export interface ResolvedPython {
  /** What to run: an absolute interpreter path, or `python3` (PATH's own, shim or not). */
  file: string;
  /** How it was found, for the doctor's detail and tests. */
  via: 'path' | 'pyenv';
  /** The interpreter file that will run, where known (not behind a shim). */
  interpreter?: string;
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** An ELF executable (what a Python interpreter is on Linux), not a script. */
function isBinary(file: string): boolean {
  try {
    const fd = openSync(file, 'r');
    try {
      const b = Buffer.alloc(4);
      return readSync(fd, b, 0, 4, 0) === 4 && b.toString('latin1') === '\x7fELF';
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

/** `PYENV_ROOT` as the shim sets it (`export PYENV_ROOT="…"`), when the file is a pyenv shim. */
function pyenvShimRoot(file: string): string | undefined {
  let text: string;
  try {
    if (statSync(file).size > 4096) return undefined;
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const root = /^export PYENV_ROOT="([^"$`\\]+)"$/m.exec(text)?.[1];
  if (!root || !/^exec "[^"$`\\]+\/libexec\/pyenv" exec "\$program" "\$@"$/m.test(text)) return undefined;
  return path.dirname(file) === path.join(root, 'shims') ? root : undefined;
}

/** The words of a pyenv version file (comments and blank lines skipped), or undefined when it cannot be read. */
function versionFile(file: string): string[] | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .flatMap((l) => l.split(/\s+/));
}

/** The version names pyenv would try, in order (pyenv-version-name), from `cwd`. */
function pyenvVersions(root: string, env: Record<string, string | undefined>, cwd: string): string[] {
  if (env.PYENV_VERSION) return env.PYENV_VERSION.split(':').filter(Boolean);
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const words = versionFile(path.join(dir, '.python-version'));
    if (words) return words;
    if (path.dirname(dir) === dir) break;
  }
  return versionFile(path.join(root, 'version')) ?? ['system'];
}

/** The interpreter `python3` starts for this environment and working directory. */
export function resolvePython3(env: Record<string, string | undefined>, cwd: string): ResolvedPython {
  const first = env.PATH === undefined ? undefined : findOnPath('python3', env.PATH, cwd);
  const root = first ? pyenvShimRoot(first) : undefined;
  if (!first) return { file: 'python3', via: 'path' };
  // A script (a wrapper, a shim of another tool) may start any interpreter: only a binary is known to be itself.
  if (!root) return { file: 'python3', via: 'path', ...(isBinary(first) ? { interpreter: first } : {}) };
  if ((env.PYENV_ROOT && path.resolve(env.PYENV_ROOT) !== root) || env.PYENV_DIR || env.PYENV_DEBUG) return { file: 'python3', via: 'path' };
  const versions = pyenvVersions(root, env, cwd);
  // pyenv uses the first version that has the program; a name that is not installed is its error to give.
  for (const v of versions) {
    if (v === 'system' || v.includes('/') || v === '.' || v === '..') return { file: 'python3', via: 'path' };
    const dir = path.join(root, 'versions', v);
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {}
    if (!isDir) return { file: 'python3', via: 'path' };
    const exe = path.join(dir, 'bin', 'python3');
    if (executable(exe)) return { file: exe, via: 'pyenv', ...(isBinary(exe) ? { interpreter: exe } : {}) };
  }
  return { file: 'python3', via: 'path' };
}
