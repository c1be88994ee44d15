// The doctor's probes: one python3 that reports its version and every recipe package (import and installed
// distribution), one JSON line per answer as it finishes, and the external tools the checks need, each started from
// here at once. Each check awaits only its own answer, so the home screen fills in while the probes still run, and a
// slow tool (`ray --version` imports Ray) holds up only its own row. The tools do not wait for python3's start (a
// pyenv shim alone takes 300+ ms), and python3 is the interpreter a pyenv shim would run, found without the shim
// where pyenv's rules give it exactly (pythonResolve.ts).
import type { RecipePaths } from '../workspace/paths.js';
import { runProcess, type RunResult } from '../process/run.js';
import { resolvePython3 } from './pythonResolve.js';
import { findOnPath } from '../process/findOnPath.js';
import { SYSTEM_NETWORK, hostnameKey, hostnameRecordFile, recordHostname, recordedHostname, type NetworkSources } from './hostnameRecord.js';
import { cacheFile, cachedLayout, layoutKey, packageFromDisk, recordLayout, type PackageAnswer, type PythonLayout } from './sitePackages.js';

/** Python module name → distribution name, for every package a check reads. */
export const PROBE_PACKAGES = {
  dressage: 'dressage',
  blackbox_server: 'dressage-blackbox-server',
  pyarrow: 'pyarrow',
  huggingface_hub: 'huggingface_hub',
  swegym: 'swegym',
  build: 'build',
} as const;
export type ProbePackage = keyof typeof PROBE_PACKAGES;

/** The external tools a check runs, with their arguments. */
export const PROBE_TOOLS = {
  uv: ['uv', '--version'],
  'nvidia-smi': ['nvidia-smi', '--query-gpu=name,memory.total', '--format=csv,noheader'],
  ray: ['ray', '--version'],
  bwrap: ['bwrap', '--version'],
  // The launcher's default proxy URL uses the first word of `hostname -I` (run here rather than synchronously).
  hostname: ['hostname', '-I'],
} as const;
export type ProbeTool = keyof typeof PROBE_TOOLS;

/**
 * Tools whose answer a check needs only in some settings; elsewhere they are not started (each start is a fork of the
 * console, ≈ 3–4 ms of its main thread at the home screen's start): bubblewrap's version for --provider local only
 * (for e2b the check looks it up on PATH), `hostname -I` only for the launcher's default proxy URL.
 */
export const TOOL_NEEDED: Partial<Record<ProbeTool, (ctx: Pick<ProbeContext, 'provider' | 'env'>) => boolean>> = {
  bwrap: (ctx) => ctx.provider === 'local',
  hostname: (ctx) => !ctx.env.DRESSAGE_PROXY_URL,
};

// Prints as soon as each answer is known, flushed per line, the version before the modules the rest needs are
// loaded, then what sitePackages.ts needs to answer the next doctor from disk. argv[1] is the spec: the packages.
const PYTHON_PROBE = `
import json, sys
def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()
emit({"python": sys.version.split()[0]})
spec = json.loads(sys.argv[1])
import importlib.util
try:
    import importlib.metadata as md
except Exception:
    md = None
for mod, dist in spec["packages"]:
    rec = {"modules": {mod: False}}
    try:
        found = importlib.util.find_spec(mod)
        rec["modules"][mod] = found is not None
        if found is not None:
            where = found.origin if found.origin not in (None, "namespace", "built-in", "frozen") else next(iter(found.submodule_search_locations or []), None)
            if where:
                rec["origins"] = {mod: where}
    except Exception:
        pass
    if md is not None:
        try:
            d = md.distribution(dist)
            info = {"version": d.version}
            try:
                du = d.read_text("direct_url.json")
                if du:
                    info["vcs_commit"] = json.loads(du).get("vcs_info", {}).get("commit_id")
            except Exception:
                pass
            rec["dists"] = {dist: info}
        except Exception:
            pass
    emit(rec)
import importlib.machinery, site
def qualname(f):
    c = f if isinstance(f, type) else type(f)
    return c.__module__ + "." + c.__qualname__
emit({"layout": {"version": sys.version.split()[0], "paths": sys.path, "suffixes": importlib.machinery.all_suffixes(),
    "finders": [qualname(f) for f in sys.meta_path], "pathHooks": len(sys.path_hooks),
    "userSite": site.getusersitepackages() if site.ENABLE_USER_SITE else None,
    "customized": "sitecustomize" in sys.modules or "usercustomize" in sys.modules}})
`;

export type { PackageAnswer } from './sitePackages.js';

/** What the probe needs of a doctor run (the checks' context without the probe itself). */
export interface ProbeContext {
  paths: RecipePaths;
  env: NodeJS.ProcessEnv;
  provider: 'e2b' | 'local';
  timeoutMs: number;
}

/** A tool's run, in the shape the checks read (undefined when the tool is not installed). */
export type ToolAnswer = Pick<RunResult, 'exitCode' | 'timedOut' | 'stdout' | 'stderr'> | undefined;

/** Why the probe has no answer for a package. */
export interface NoAnswer {
  missing: string;
  /** python3 itself did not run (not found, or it failed before saying its version). */
  noPython: boolean;
}

interface Report {
  python?: string;
  modules: Record<string, boolean>;
  dists: Record<string, { version?: string; vcs_commit?: string | null }>;
  origins: Record<string, string>;
  layout?: PythonLayout;
}

/** How the probe process ended, once it has. */
interface Ended {
  timedOut: boolean;
  /** One line: exit status and the last thing it wrote to stderr. */
  how: string;
}

/** A check that has no answer because the probe ran out of time (the doctor reports it as a warning). */
export class NoAnswerError extends Error {}

export class DoctorProbe {
  private readonly report: Report = { modules: {}, dists: {}, origins: {} };
  private ended: Ended | undefined;
  private readonly waiters = new Set<() => void>();
  private readonly stderrTail: string[] = [];
  private readonly direct = new Map<ProbeTool, Promise<ToolAnswer>>();
  /** Whether python3's answers came from disk (sitePackages.ts) and python3 was not started. */
  answeredFromDisk = false;
  /** Tools whose answer was their recorded one (hostnameRecord.ts), not started. */
  readonly answeredFromRecord: ProbeTool[] = [];

  /** Starts python3 and the tools at once; the checks then await their answers. */
  constructor(
    private readonly ctx: ProbeContext,
    private readonly network: NetworkSources = SYSTEM_NETWORK,
  ) {
    for (const name of Object.keys(PROBE_TOOLS) as ProbeTool[]) this.startTool(name);
    this.settled = this.run();
  }

  /** Resolves once python3 has ended (or was not needed) and its record is written. */
  readonly settled: Promise<void>;

  private startTool(name: ProbeTool): void {
    const [file, ...args] = PROBE_TOOLS[name];
    // A tool that is not on PATH is not started: its answer is the one a failed start gives, without the fork.
    const pathVar = this.ctx.env.PATH;
    const notNeeded = TOOL_NEEDED[name]?.(this.ctx) === false;
    const found = notNeeded || pathVar === undefined ? undefined : findOnPath(file, pathVar, this.ctx.paths.root);
    if (notNeeded || (pathVar !== undefined && !found)) {
      this.direct.set(name, Promise.resolve(undefined));
      return;
    }
    // hostname's answer is recorded while the network and the binary stay the same (hostnameRecord.ts).
    const record = name === 'hostname' && found ? hostnameRecordFile(this.ctx.env) : undefined;
    const key = record && found ? hostnameKey(found, this.network) : undefined;
    const recorded = recordedHostname(record, key);
    if (recorded) {
      this.answeredFromRecord.push(name);
      this.direct.set(name, Promise.resolve({ ...recorded, timedOut: false }));
      return;
    }
    const run = runProcess(file, args, { cwd: this.ctx.paths.root, env: this.ctx.env, extendEnv: false, timeoutMs: this.ctx.timeoutMs, note: 'doctor' }).then(
      async (r): Promise<ToolAnswer> => {
        if (r.spawnError) return undefined;
        // Recorded only when nothing it depends on changed while it ran.
        if (key && !r.timedOut && r.signal === undefined && hostnameKey(found as string, this.network) === key) await recordHostname(record, key, r);
        return r;
      },
      () => undefined,
    );
    this.direct.set(name, run);
  }

  private async run(): Promise<void> {
    const spec = { packages: Object.entries(PROBE_PACKAGES) };
    const root = this.ctx.paths.root;
    const python = resolvePython3(this.ctx.env, root);
    const cache = cacheFile(this.ctx.env);
    const key = python.interpreter ? layoutKey(python.interpreter, this.ctx.env, root) : undefined;
    if (this.fromDisk(cachedLayout(cache, key, root))) return;
    let r: RunResult | undefined;
    try {
      r = await runProcess(python.file, ['-c', PYTHON_PROBE, JSON.stringify(spec)], {
        cwd: this.ctx.paths.root,
        env: this.ctx.env,
        extendEnv: false,
        timeoutMs: this.ctx.timeoutMs,
        note: 'doctor probe',
        keepLines: 0,
        onLine: (stream, line) => (stream === 'stdout' ? this.take(line) : this.keepStderr(line)),
      });
    } catch (err) {
      this.finish({ timedOut: false, how: `it could not be started (${(err as Error).message})` });
      return;
    }
    const layout = this.report.layout;
    if (layout && r.exitCode === 0 && !r.timedOut) await recordLayout(cache, key, layout, root);
    if (r.spawnError) this.finish({ timedOut: false, how: 'python3 not found' });
    else if (r.timedOut) this.finish({ timedOut: true, how: `no answer within ${this.ctx.timeoutMs} ms` });
    else {
      const status = r.signal ? `killed by ${r.signal}` : `exit code ${r.exitCode}`;
      const last = this.stderrTail.at(-1);
      this.finish({ timedOut: false, how: `${status}${last ? `: ${last.slice(0, 160)}` : ''}` });
    }
  }

  /** Every answer from disk, with the layout python3 reported last time; false where the disk cannot give one. */
  private fromDisk(layout: PythonLayout | undefined): boolean {
    if (!layout) return false;
    const root = this.ctx.paths.root;
    const listings = new Map<string, string[] | null>();
    const answers = Object.entries(PROBE_PACKAGES).map(([mod, dist]) => [mod, dist, packageFromDisk(layout, root, mod, dist, listings)] as const);
    if (answers.some(([, , a]) => a === undefined)) return false;
    this.report.python = layout.version;
    for (const [mod, dist, a] of answers) {
      if (!a) continue;
      this.report.modules[mod] = a.present;
      if (a.origin) this.report.origins[mod] = a.origin;
      if (a.version !== undefined) this.report.dists[dist] = { version: a.version, ...(a.vcsCommit ? { vcs_commit: a.vcsCommit } : {}) };
    }
    this.answeredFromDisk = true;
    this.finish({ timedOut: false, how: 'answered from the installed distributions' });
    return true;
  }

  private keepStderr(line: string): void {
    if (!line.trim()) return;
    this.stderrTail.push(line);
    if (this.stderrTail.length > 5) this.stderrTail.shift();
  }

  /** One answer line; a line may carry several answers (merged), so one whole report on one line also reads. */
  private take(line: string): void {
    let part: Partial<Report>;
    try {
      part = JSON.parse(line) as Partial<Report>;
    } catch {
      return;
    }
    if (!part || typeof part !== 'object') return;
    if (typeof part.python === 'string') this.report.python = part.python;
    if (part.layout && typeof part.layout === 'object' && Array.isArray(part.layout.paths)) this.report.layout = part.layout;
    Object.assign(this.report.modules, part.modules);
    Object.assign(this.report.dists, part.dists);
    Object.assign(this.report.origins, part.origins);
    this.wake();
  }

  private finish(ended: Ended): void {
    this.ended = ended;
    this.wake();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Resolves with `read()`'s answer as soon as there is one, or with undefined once the probe has ended. */
  private answer<T>(read: () => T | undefined): Promise<T | undefined> {
    return new Promise((resolve) => {
      const check = () => {
        const v = read();
        if (v !== undefined || this.ended) {
          this.waiters.delete(check);
          resolve(v);
        }
      };
      this.waiters.add(check);
      check();
    });
  }

  /** python3's version, or why there is none. */
  async python(): Promise<{ version: string } | { failed: string; notFound: boolean }> {
    const version = await this.answer(() => this.report.python);
    if (version !== undefined) return { version };
    const how = this.ended?.how ?? '';
    return { failed: how, notFound: how === 'python3 not found' };
  }

  /** Whether a package imports, and its installed distribution. */
  async package(mod: ProbePackage): Promise<PackageAnswer | NoAnswer> {
    const present = await this.answer(() => this.report.modules[mod]);
    if (present === undefined) {
      const noPython = this.report.python === undefined;
      const how = this.ended?.how ?? 'it ended';
      return { noPython, missing: noPython ? `not checked: python3 did not run (${how})` : `not checked: the python3 probe ended before it (${how})` };
    }
    const dist = this.report.dists[PROBE_PACKAGES[mod]];
    const origin = this.report.origins[mod];
    return { present, ...(dist?.version ? { version: dist.version } : {}), ...(dist?.vcs_commit ? { vcsCommit: dist.vcs_commit } : {}), ...(origin ? { origin } : {}) };
  }

  /** A tool's run (undefined when it is not installed). */
  async tool(name: ProbeTool): Promise<ToolAnswer> {
    return this.direct.get(name) as Promise<ToolAnswer>;
  }
}
