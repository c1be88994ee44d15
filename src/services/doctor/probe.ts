// The doctor's one probe process: a single python3 that reports its version, every recipe package (import and
// installed distribution) and the version of every external tool the checks need, one JSON line per answer as
// it finishes. Each check awaits only its own answer, so the home screen fills in while the probe still runs,
// and a slow tool (`ray --version` imports Ray) holds up only its own row.
//
// When python3 cannot be run, or ends without answering for a tool (it crashed), the tools are started from
// here, one process each, as before. When it ends without answering for a package, that check says so.
import type { CheckContext } from './checks.js';
import { runProcess, type RunResult } from '../process/run.js';

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

// Prints as soon as each answer is known: flushed per line, one lock so that lines from the tool threads never
// interleave, the version before the modules the rest needs are loaded. argv[1] is the spec: packages, tools, and
// the per-tool timeout in seconds.
const PYTHON_PROBE = `
import json, sys
def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()
emit({"python": sys.version.split()[0]})
import shutil, subprocess, threading
lock = threading.Lock()
def say(obj):
    with lock:
        emit(obj)
spec = json.loads(sys.argv[1])
def lines(b):
    return (b or b"").decode("utf-8", "replace").splitlines()
def tool(name, argv):
    exe = shutil.which(argv[0])
    if exe is None:
        say({"tools": {name: {"found": False}}})
        return
    try:
        r = subprocess.run([exe] + argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=spec["timeout"])
        say({"tools": {name: {"found": True, "exit": r.returncode, "stdout": lines(r.stdout), "stderr": lines(r.stderr)}}})
    except subprocess.TimeoutExpired as e:
        say({"tools": {name: {"found": True, "exit": None, "timed_out": True, "stdout": lines(e.stdout), "stderr": lines(e.stderr)}}})
    except OSError:
        say({"tools": {name: {"found": False}}})
threads = [threading.Thread(target=tool, args=(n, a), daemon=True) for n, a in spec["tools"]]
for t in threads:
    t.start()
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
    say(rec)
for t in threads:
    t.join()
`;

export interface PackageAnswer {
  present: boolean;
  version?: string;
  vcsCommit?: string;
  /** Where python3 imports it from (a file or folder), when it imports. */
  origin?: string;
}

/** A tool's run, in the shape the checks read (undefined when the tool is not installed). */
export type ToolAnswer = Pick<RunResult, 'exitCode' | 'timedOut' | 'stdout' | 'stderr'> | undefined;

/** Why the probe has no answer for a package. */
export interface NoAnswer {
  missing: string;
  /** python3 itself did not run (not found, or it failed before saying its version). */
  noPython: boolean;
}

interface ToolLine {
  found: boolean;
  exit?: number | null;
  timed_out?: boolean;
  stdout?: string[];
  stderr?: string[];
}

interface Report {
  python?: string;
  modules: Record<string, boolean>;
  dists: Record<string, { version?: string; vcs_commit?: string | null }>;
  origins: Record<string, string>;
  tools: Record<string, ToolLine>;
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
  private readonly report: Report = { modules: {}, dists: {}, origins: {}, tools: {} };
  private ended: Ended | undefined;
  private readonly waiters = new Set<() => void>();
  private readonly stderrTail: string[] = [];
  private readonly direct = new Map<ProbeTool, Promise<ToolAnswer>>();

  /** Starts python3 at once; the checks then await their answers. */
  constructor(private readonly ctx: Omit<CheckContext, 'probe'>) {
    void this.run();
  }

  private async run(): Promise<void> {
    const spec = {
      packages: Object.entries(PROBE_PACKAGES),
      tools: Object.entries(PROBE_TOOLS),
      // A tool gets the doctor's bound less a margin, so that its answer comes before python3's own timeout.
      timeout: Math.max(0.5, (this.ctx.timeoutMs - 300) / 1000),
    };
    let r: RunResult | undefined;
    try {
      r = await runProcess('python3', ['-c', PYTHON_PROBE, JSON.stringify(spec)], {
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
    if (r.spawnError) this.finish({ timedOut: false, how: 'python3 not found' });
    else if (r.timedOut) this.finish({ timedOut: true, how: `no answer within ${this.ctx.timeoutMs} ms` });
    else {
      const status = r.signal ? `killed by ${r.signal}` : `exit code ${r.exitCode}`;
      const last = this.stderrTail.at(-1);
      this.finish({ timedOut: false, how: `${status}${last ? `: ${last.slice(0, 160)}` : ''}` });
    }
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
    Object.assign(this.report.modules, part.modules);
    Object.assign(this.report.dists, part.dists);
    Object.assign(this.report.origins, part.origins);
    Object.assign(this.report.tools, part.tools);
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

  /**
   * A tool's run: from the probe, or, when python3 ended without answering for it (not there, crashed), started
   * from here. When python3 ran out of time the tool is not started again: the doctor's bound holds.
   */
  async tool(name: ProbeTool): Promise<ToolAnswer> {
    const line = await this.answer(() => this.report.tools[name]);
    if (line) {
      if (!line.found) return undefined;
      return { exitCode: line.exit ?? undefined, timedOut: Boolean(line.timed_out), stdout: line.stdout ?? [], stderr: line.stderr ?? [] };
    }
    if (this.ended?.timedOut) throw new NoAnswerError(`not checked: the python3 probe gave ${this.ended.how}`);
    let run = this.direct.get(name);
    if (!run) {
      const [file, ...args] = PROBE_TOOLS[name];
      run = runProcess(file, args, { cwd: this.ctx.paths.root, env: this.ctx.env, extendEnv: false, timeoutMs: this.ctx.timeoutMs, note: 'doctor' }).then((r) => (r.spawnError ? undefined : r));
      this.direct.set(name, run);
    }
    return run;
  }
}
