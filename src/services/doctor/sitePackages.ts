// The doctor's package answers read from disk, without starting python3: what `importlib.util.find_spec(mod)` and
// `importlib.metadata.distribution(name)` would find, read from the interpreter's sys.path. sys.path itself comes
// from python3 (its site module, `.pth` files, the user site), so the probe records it after each run it makes, with
// what it depends on (the interpreter file, the environment variables Python reads for it, the working directory,
// every `.pth` file of the site directories, the user site directory); while none of that changed, the next doctor
// reads the packages from disk and starts no python3. Where the disk does not say exactly what python3 would (a
// meta-path finder besides the standard ones, as editable installs through import hooks add; sitecustomize; a zip on
// sys.path; two distributions of one name in one directory), the probe runs python3 as before.
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { writeFileAtomic } from '../workspace/atomic.js';
import path from 'node:path';

/** What python3 would answer for one package: whether it imports, its distribution, where it imports from. */
export interface PackageAnswer {
  present: boolean;
  version?: string;
  vcsCommit?: string;
  /** Where python3 imports it from (a file or folder), when it imports. */
  origin?: string;
}

/** What python3 reports of itself for the disk reader (the probe's `layout` line). */
export interface PythonLayout {
  version: string;
  /** sys.path, '' as given. */
  paths: string[];
  /** importlib.machinery.all_suffixes(). */
  suffixes: string[];
  /** sys.meta_path, as module.qualname of each finder. */
  finders: string[];
  pathHooks: number;
  /** site.getusersitepackages() and whether site added it (its later creation would change sys.path). */
  userSite: string | null;
  customized: boolean;
}

interface CacheFile {
  key: string;
  stamps: Record<string, number>;
  layout: PythonLayout;
}

/** The finders a plain CPython has; setuptools' distutils shim answers for distutils and pip only. */
const STANDARD_FINDERS = new Set(['_frozen_importlib.BuiltinImporter', '_frozen_importlib.FrozenImporter', '_frozen_importlib_external.PathFinder', '_distutils_hack.DistutilsMetaFinder']);

/** Environment variables that change sys.path or the user site. */
const PATH_ENV = ['PYTHONPATH', 'PYTHONHOME', 'PYTHONUSERBASE', 'PYTHONNOUSERSITE', 'PYTHONSAFEPATH', 'PYTHONPLATLIBDIR', 'VIRTUAL_ENV', 'HOME', 'PYENV_VERSION'];

/** A record of the doctor's in the user's cache (none without HOME or XDG_CACHE_HOME: nothing is written then). */
export function doctorRecordFile(env: Record<string, string | undefined>, name: string): string | undefined {
  const base = env.XDG_CACHE_HOME || (env.HOME ? path.join(env.HOME, '.cache') : undefined);
  return base ? path.join(base, 'swegym-console', name) : undefined;
}

/** A doctor's record written under `key`, parsed; undefined when missing, unreadable or written under another key. */
export function readDoctorRecord<R extends { key: string }>(file: string | undefined, key: string | undefined): R | undefined {
  if (!file || !key) return undefined;
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as R | null;
    return r?.key === key ? r : undefined;
  } catch {
    return undefined;
  }
}

/** Where the probe keeps its record of python3's layout. */
export function cacheFile(env: Record<string, string | undefined>): string | undefined {
  return doctorRecordFile(env, 'python-probe.json');
}

function mtime(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/** The record's key: the interpreter's file, the environment Python reads for sys.path, the working directory. */
export function layoutKey(interpreter: string, env: Record<string, string | undefined>, cwd: string): string | undefined {
  let real: string;
  let st: { mtimeMs: number; size: number };
  try {
    real = realpathSync(interpreter);
    st = statSync(real);
  } catch {
    return undefined;
  }
  return JSON.stringify([real, st.mtimeMs, st.size, path.resolve(cwd), PATH_ENV.map((k) => env[k] ?? null)]);
}

function exists(file: string): number {
  try {
    statSync(file);
    return 1;
  } catch {
    return -1;
  }
}

/**
 * What sys.path depends on besides the key: which of its directories exist (site adds only those), each `.pth` file
 * in them and whether each directory a `.pth` names exists, whether the user site exists.
 */
function stamps(layout: PythonLayout, cwd: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of layout.paths) {
    const dir = p === '' ? cwd : path.resolve(cwd, p);
    out[dir] = exists(dir);
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {}
    for (const n of names) {
      if (!n.endsWith('.pth')) continue;
      const pth = path.join(dir, n);
      out[pth] = mtime(pth);
      let text = '';
      try {
        text = readFileSync(pth, 'utf8');
      } catch {}
      for (const line of text.split('\n')) {
        const l = line.trimEnd();
        if (l && !l.startsWith('#') && !/^import[ \t]/.test(l)) out[path.resolve(dir, l)] = exists(path.resolve(dir, l));
      }
    }
  }
  if (layout.userSite) out[layout.userSite] = exists(layout.userSite);
  return out;
}

/** Can the disk say what python3 would, for this layout? */
function exact(layout: PythonLayout): boolean {
  // A zip on sys.path (python3XY.zip is listed whether or not it exists) is read by zipimport: not from here.
  return !layout.customized && layout.pathHooks === 2 && layout.finders.every((f) => STANDARD_FINDERS.has(f)) && !layout.paths.some((p) => /\.(zip|egg|whl)$/i.test(p) && exists(p) > 0);
}

/** The layout recorded for this interpreter, environment and directory, while nothing it depends on changed. */
export function cachedLayout(file: string | undefined, key: string | undefined, cwd: string): PythonLayout | undefined {
  const c = readDoctorRecord<CacheFile>(file, key);
  if (!c?.layout || !exact(c.layout)) return undefined;
  const now = stamps(c.layout, cwd);
  const a = Object.keys(now);
  if (a.length !== Object.keys(c.stamps ?? {}).length || a.some((k) => c.stamps[k] !== now[k])) return undefined;
  return c.layout;
}

/** Records a layout python3 reported (atomically; a failure to write only costs the next doctor a python3 start). */
export async function recordLayout(file: string | undefined, key: string | undefined, layout: PythonLayout, cwd: string): Promise<void> {
  if (!file || !key) return;
  const body: CacheFile = { key, stamps: stamps(layout, cwd), layout };
  await writeFileAtomic(file, JSON.stringify(body)).catch(() => {});
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** importlib.metadata's normalisation of a distribution name (Prepared.normalize). */
function normalize(name: string): string {
  return name.replace(/[-_.]+/g, '-').toLowerCase().replace(/-/g, '_');
}

/** `Version:` of a METADATA / PKG-INFO file (RFC 822 headers, up to the first blank line). */
function metadataVersion(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    if (line.trim() === '') break;
    const m = /^Version:[ \t]*(.*?)\s*$/i.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * A package's answer from disk, as the probe's python3 gives it: the module is found (a directory of its name, or a
 * file of its name with one of the suffixes, in a sys.path directory: a package, a module or a namespace portion),
 * and the first distribution of its name along sys.path with its version and direct_url.json commit. Undefined
 * where the disk cannot say. `listings`: directory listings shared by the calls of one doctor run.
 */
export function packageFromDisk(layout: PythonLayout, cwd: string, mod: string, dist: string, listings = new Map<string, string[] | null>()): PackageAnswer | undefined {
  let present = false;
  let regular = false;
  let origin: string | undefined;
  let version: string | undefined;
  let vcsCommit: string | undefined;
  let distFound = false;
  const want = normalize(dist);
  for (const p of layout.paths) {
    const dir = p === '' ? cwd : path.resolve(cwd, p);
    let names = listings.get(dir);
    if (names === undefined) {
      try {
        names = readdirSync(dir);
      } catch {
        names = null;
      }
      listings.set(dir, names);
    }
    if (!names) continue;
    if (!regular) {
      // As PathFinder: a regular package (its __init__ file) or a module file anywhere along sys.path wins over a
      // namespace portion (a folder without __init__) found earlier; the first portion is used only when none does.
      const pkg = names.includes(mod) && isDirectory(path.join(dir, mod)) ? path.join(dir, mod) : undefined;
      const init = pkg ? layout.suffixes.map((s) => path.join(pkg, `__init__${s}`)).find(isFile) : undefined;
      const file = layout.suffixes.map((s) => mod + s).find((n) => names!.includes(n) && isFile(path.join(dir, n)));
      const found = init ?? (file ? path.join(dir, file) : undefined);
      if (found) {
        regular = true;
        origin = found;
      } else if (pkg && origin === undefined) origin = pkg;
      present = origin !== undefined;
    }
    if (distFound) continue;
    const infos = names.filter((n) => {
      const low = n.toLowerCase();
      if (!low.endsWith('.dist-info') && !low.endsWith('.egg-info')) return false;
      return normalize(low.slice(0, low.lastIndexOf('.')).split('-')[0] as string) === want;
    });
    if (infos.length > 1) return undefined;
    const info = infos[0];
    if (!info) continue;
    const at = path.join(dir, info);
    if (!isDirectory(at)) return undefined;
    distFound = true;
    // Distribution.metadata reads METADATA, else PKG-INFO.
    version = isFile(path.join(at, 'METADATA')) ? metadataVersion(path.join(at, 'METADATA')) : metadataVersion(path.join(at, 'PKG-INFO'));
    if (version === undefined) return undefined;
    try {
      const du = JSON.parse(readFileSync(path.join(at, 'direct_url.json'), 'utf8')) as { vcs_info?: { commit_id?: string } };
      if (typeof du?.vcs_info?.commit_id === 'string') vcsCommit = du.vcs_info.commit_id;
    } catch {}
  }
  return { present, ...(version !== undefined ? { version } : {}), ...(vcsCommit ? { vcsCommit } : {}), ...(origin ? { origin } : {}) };
}
