// The convert step: checks what would make Dressage's converter fail (bootstrap URLs in the environment, an
// incomplete template map, the pinned swegym harness not importable), runs
// examples/data/swegym/prepare_swegym_data.py as a child process with its output streamed, maps its documented
// errors to a cause and a fix, and then verifies the JSONL it wrote. The converter writes a temp file and renames,
// so a failed run leaves the previous JSONL untouched.
import { stat } from 'node:fs/promises';
import { exists } from '../util/fs.js';
import { withLock } from '../workspace/lock.js';
import path from 'node:path';
import type { RecipePaths } from '../workspace/paths.js';
import { runProcess, type RunResult } from '../process/run.js';
import type { CommandLog } from '../process/commandLog.js';
import { ConsoleError, ExitCode, preconditionError } from '../errors.js';
import { redact } from '../secrets.js';
import { converterArgs, expectedRowCount, manualCommand, validateConvertOptions, type ConvertOptions } from './options.js';
import { readSmokeResults, verifyJsonl, type VerifyReport } from './verify.js';
import { SWEGYM_HARNESS_COMMIT } from '../recipe.js';
import type { SweGymTask } from '../dataset/types.js';
import type { ConvertPhase } from '../../state/types/convert.js';
export type { ConvertPhase } from '../../state/types/convert.js';

export const BOOTSTRAP_URL_VARS = ['CLAUDE_CODE_BBS_WHEEL_URL', 'CLAUDE_CODE_BINARY_URL', 'CLAUDE_CODE_RUNTIME_URL'] as const;

export interface ConvertNotice {
  level: 'info' | 'warn';
  text: string;
}

export interface ConvertHooks {
  onLine?: (stream: 'stdout' | 'stderr', line: string) => void;
  onNotice?: (n: ConvertNotice) => void;
  onPhase?: (phase: ConvertPhase) => void;
}

export interface ConvertRunOptions extends ConvertHooks {
  paths: RecipePaths;
  options: ConvertOptions;
  env: NodeJS.ProcessEnv;
  /** Interpreter (default python3). */
  python?: string;
  signal?: AbortSignal;
  log?: CommandLog;
  /** Seconds for the `import swegym` probe (default 60). */
  probeTimeoutSec?: number;
  /** Overall converter timeout in ms (default 15 min; it normally takes well under a minute). */
  timeoutMs?: number;
  /** Reads the split (default: the dataset reader); injected by tests. */
  loadTasks?: (file: string, opts: ConvertOptions) => Promise<SweGymTask[]>;
}

export interface PreflightResult {
  env: NodeJS.ProcessEnv;
  /** Bootstrap variables removed from the converter's environment (names only). */
  removedEnv: string[];
  tasks?: SweGymTask[];
  images: string[];
  templateMap?: Record<string, string>;
  swegym: { ok: boolean; detail: string };
  notices: ConvertNotice[];
}

export interface ConvertResult {
  ok: boolean;
  command: string;
  argv: string[];
  exitCode?: number;
  /** The converter's own success line (`wrote N train rows from … to …`). */
  wrote?: { rows: number; split: string; input: string; output: string };
  durationMs: number;
  removedEnv: string[];
  notices: ConvertNotice[];
  verify?: VerifyReport;
  /** Last lines of the converter's output (redacted). */
  outputTail: string[];
}


async function defaultLoadTasks(file: string, o: ConvertOptions): Promise<SweGymTask[]> {
  const { readSplit } = await import('../dataset/read.js');
  return (await readSplit(file, { split: o.split })).rows;
}

// Imports what the converter imports, the way it does: with --swegym-package-root the converter registers `swegym`
// as a bare package over that directory so that swegym/__init__.py (Docker and collection extras) never runs.
const SWEGYM_PROBE = [
  'import os, sys, types',
  'root = sys.argv[1]',
  'if root:',
  '    pkg = os.path.join(os.path.realpath(root), "swegym")',
  '    m = types.ModuleType("swegym")',
  '    m.__file__ = os.path.join(pkg, "__init__.py")',
  '    m.__package__ = "swegym"',
  '    m.__path__ = [pkg]',
  '    sys.modules["swegym"] = m',
  'import swegym.harness.test_spec, swegym.harness.log_parsers',
  // The (repo, version) pairs make_test_spec knows; a harness without them (a stub) just skips this check.
  'try:',
  '    import json',
  '    from swegym.harness.constants import MAP_REPO_VERSION_TO_SPECS as M',
  '    print("specs=" + json.dumps({r: [str(v) for v in vs] for r, vs in M.items()}))',
  'except Exception:',
  '    pass',
  'print(swegym.harness.test_spec.__file__)',
].join('\n');

/** Everything that would make the converter fail, checked up front. Throws a ConsoleError for the first blocker. */
export async function preflightConvert(o: ConvertRunOptions): Promise<PreflightResult> {
  const { paths, options, env } = o;
  validateConvertOptions(options);
  const notices: ConvertNotice[] = [];
  const note = (level: ConvertNotice['level'], text: string) => {
    const n = { level, text };
    notices.push(n);
    o.onNotice?.(n);
  };
  if (!(await exists(paths.prepareDataScript))) {
    throw preconditionError(
      `Dressage's converter is not in this workspace: ${paths.prepareDataScript}`,
      'the workspace is not a Dressage checkout (or an old one without the SWE-Gym recipe)',
      'run from the Dressage checkout or pass --workspace DIR',
    );
  }
  if (!(await exists(options.input))) {
    throw preconditionError(`the source split ${options.input} does not exist`, 'the SWE-Gym data has not been downloaded', `run \`swegym-console data download --split ${options.split}\``);
  }

  // Environment: the quickstart exports a wheel URL earlier; the converter aborts on it with --provider e2b.
  const childEnv: NodeJS.ProcessEnv = { ...env };
  const removedEnv: string[] = [];
  if (options.provider === 'e2b') {
    for (const name of BOOTSTRAP_URL_VARS) {
      if (childEnv[name] !== undefined) {
        delete childEnv[name];
        removedEnv.push(name);
      }
    }
    if (removedEnv.length) {
      note('warn', `removed ${removedEnv.join(', ')} from the converter's environment: with --provider e2b Claude Code and BBS come from the template, and the converter refuses bootstrap URLs ("do not pass runtime bootstrap URLs"). Your shell still has them.`);
    }
  }

  // Tasks and images of the rows that will be converted.
  const loadTasks = o.loadTasks ?? defaultLoadTasks;
  let tasks: SweGymTask[] | undefined;
  try {
    tasks = await loadTasks(options.input, options);
  } catch (err) {
    if (err instanceof ConsoleError) throw err;
    throw new ConsoleError({ what: `could not read ${options.input}`, cause: (err as Error).message, fix: 'check the file (swegym-console data show)', inner: err });
  }
  const converted = options.limit !== undefined ? tasks.slice(0, options.limit) : tasks;
  const images = [...new Set(converted.map((t) => t.image))];

  // Template map, by the converter's own rules.
  let templateMap: Record<string, string> | undefined;
  if (options.sandboxImageMap) {
    const { inspectTemplateMap } = await import('../templates/map.js');
    const check = await inspectTemplateMap(options.sandboxImageMap, images);
    templateMap = check.map;
    const fatal = check.problems.filter((p) => p.kind !== 'no_entry');
    if (fatal[0]) {
      throw preconditionError(fatal[0].message, fatal.length > 1 ? `${fatal.length} problems in the map` : undefined, 'build templates (swegym-console templates build) or fix the map');
    }
    if (check.missing.length) {
      const first = converted.find((t) => t.image === check.missing[0]);
      throw preconditionError(
        `sandbox image map has no entry for '${check.missing[0]}'${first ? ` (instance ${first.instance_id})` : ''}`,
        `${check.missing.length} of ${images.length} task image(s) have no template in ${options.sandboxImageMap}`,
        options.limit === undefined
          ? 'build the missing templates (swegym-console templates build), or convert fewer rows with --limit N'
          : 'build the missing templates (swegym-console templates build --only IMAGE)',
      );
    }
  }

  // The pinned swegym harness (or --swegym-package-root).
  if (options.swegymPackageRoot && !(await exists(path.join(options.swegymPackageRoot, 'swegym')))) {
    throw preconditionError(`invalid SWE-Gym package root: ${options.swegymPackageRoot}`, 'the directory has no swegym/ package', 'pass a checkout of SWE-Gym/SWE-Bench-Package');
  }
  const probe = await runProcess(o.python ?? 'python3', ['-c', SWEGYM_PROBE, options.swegymPackageRoot ?? ''], {
    cwd: paths.root,
    env: childEnv,
    extendEnv: false,
    timeoutMs: (o.probeTimeoutSec ?? 60) * 1000,
    signal: o.signal,
    log: o.log,
    note: 'convert: is the pinned swegym harness importable?',
  });
  if (probe.spawnError) throw preconditionError(`python3 could not be started: ${probe.spawnError}`, undefined, 'install Python 3 and the Dressage environment');
  if (probe.timedOut) throw preconditionError('`import swegym` did not finish within the probe timeout', 'a slow or broken Python environment', 'check `python3 -c "import swegym"` by hand');
  const swegym = { ok: probe.exitCode === 0, detail: probe.exitCode === 0 ? (probe.stdout.at(-1) ?? '') : (probe.stderr.at(-1) ?? `exit ${probe.exitCode}`) };
  if (!swegym.ok) {
    throw preconditionError(
      'the pinned swegym harness is not importable',
      swegym.detail,
      `pip install "git+https://github.com/SWE-Gym/SWE-Bench-Package@${SWEGYM_HARNESS_COMMIT}" in the Dressage environment, or pass --swegym-package-root DIR`,
    );
  }
  // make_test_spec looks up MAP_REPO_VERSION_TO_SPECS[repo][version]; the converter stops with a KeyError otherwise.
  const specsLine = probe.stdout.find((l) => l.startsWith('specs='));
  if (specsLine) {
    let specs: Record<string, string[]> | undefined;
    try {
      specs = JSON.parse(specsLine.slice('specs='.length)) as Record<string, string[]>;
    } catch {}
    const unknown = specs ? converted.find((t) => !specs[t.repo]?.includes(String(t.version))) : undefined;
    if (specs && unknown) {
      const repoKnown = specs[unknown.repo] !== undefined;
      throw preconditionError(
        `the pinned swegym harness has no spec for ${unknown.repo} ${repoKnown ? `version ${unknown.version}` : '(repository unknown)'} (instance ${unknown.instance_id}): the converter would stop with KeyError: '${repoKnown ? unknown.version : unknown.repo}'`,
        'the split was not made for the harness at this commit, or the harness is another version',
        `use the SWE-Gym split the recipe names with SWE-Bench-Package @${SWEGYM_HARNESS_COMMIT}`,
      );
    }
  }
  return { env: childEnv, removedEnv, tasks, images, templateMap, swegym, notices };
}

const WROTE = /^wrote (\d+) (\S+) rows from (.+) to (.+)$/;

/** Maps the converter's documented error lines (reference §1.5) to a cause and a fix. */
export function explainConverterFailure(lines: readonly string[], exitCode: number | undefined): ConsoleError {
  const text = lines.join('\n');
  const last = [...lines].reverse().find((l) => l.trim() !== '') ?? `exit code ${exitCode}`;
  const argparse = /error: (.+)$/m.exec(text);
  const rule = (re: RegExp) => re.exec(text);
  let m: RegExpExecArray | null;
  const make = (what: string, cause: string | undefined, fix: string, code: (typeof ExitCode)[keyof typeof ExitCode] = ExitCode.failed) =>
    new ConsoleError({ what: redact(what), cause: cause && redact(cause), fix, exitCode: code });
  if (text.includes('do not pass runtime bootstrap URLs')) {
    return make('the converter refused bootstrap URLs for --provider e2b', 'CLAUDE_CODE_BBS_WHEEL_URL / CLAUDE_CODE_BINARY_URL / CLAUDE_CODE_RUNTIME_URL reached it', 'unset CLAUDE_CODE_BBS_WHEEL_URL CLAUDE_CODE_BINARY_URL CLAUDE_CODE_RUNTIME_URL');
  }
  if ((m = rule(/sandbox image map has no entry for '([^']+)' \(instance ([^)]+)\)/))) {
    return make(`no template for ${m[1]} (instance ${m[2]})`, 'the template map does not cover every converted task', 'build the missing templates (swegym-console templates build) or convert fewer rows with --limit', ExitCode.precondition);
  }
  if ((m = rule(/(invalid sandbox image map .*|sandbox image map must be a JSON object: .*|sandbox image map contains an empty key or value: .*|sandbox image map is empty: .*)/))) {
    return make(m[1] as string, undefined, 'fix data/e2b-template-map.json or rebuild it (swegym-console templates build)', ExitCode.precondition);
  }
  if ((m = rule(/expected (\d+) (train|validation) rows, got (\d+)/))) {
    return make(`the split has ${m[3]} rows, the converter expects ${m[1]} ${m[2]} rows`, 'a truncated download or the wrong file for --split', `re-download (swegym-console data download --split ${m[2]}) or pass the right --split`, ExitCode.precondition);
  }
  if ((m = rule(/(The pinned swegym (?:harness|log parsers) (?:is|are) required.*|unexpected SWE-Gym log_parsers\.py: .*|invalid SWE-Gym package root: .*|a different swegym package is already imported.*)/))) {
    return make(m[1] as string, 'the converter embeds the pinned SWE-Gym harness and log parsers', `pip install "git+https://github.com/SWE-Gym/SWE-Bench-Package@${SWEGYM_HARNESS_COMMIT}" or pass --swegym-package-root DIR`, ExitCode.precondition);
  }
  if ((m = rule(/(SWE-Gym instance \S+ missing fields: .*|FAIL_TO_PASS must be a list for \S+)/))) {
    return make(m[1] as string, 'a damaged or different dataset', 'check the split with `swegym-console data show`', ExitCode.failed);
  }
  if (exitCode === 2 && argparse) {
    return make(`the converter rejected its arguments: ${argparse[1]}`, undefined, 'check the convert options (swegym-console convert --help)', ExitCode.usage);
  }
  return make(`the converter failed (exit ${exitCode ?? 'signal'}): ${last}`, undefined, 'read the converter output above; rerun with --debug for the full command');
}

/**
 * Runs preflight, the converter, and the verifier, holding the workspace lock (a second conversion, or a build
 * rewriting the template map the converter reads, would race it). Throws ConsoleError for blockers and failures.
 */
export async function runConvert(o: ConvertRunOptions): Promise<ConvertResult> {
  return withLock(o.paths.lockFile, 'convert', () => runConvertLocked(o));
}

async function runConvertLocked(o: ConvertRunOptions): Promise<ConvertResult> {
  const started = Date.now();
  o.onPhase?.('preflight');
  let pre: PreflightResult;
  try {
    pre = await preflightConvert(o);
  } catch (err) {
    o.onPhase?.('failed');
    throw err;
  }
  const argv = [o.paths.prepareDataScript, ...converterArgs(o.options)];
  const command = manualCommand(o.paths, o.options);
  o.onPhase?.('converting');
  const before = await stat(o.options.output).then((s) => s.mtimeMs, () => undefined);
  const run: RunResult = await runProcess(o.python ?? 'python3', argv, {
    cwd: o.paths.root,
    env: pre.env,
    extendEnv: false,
    timeoutMs: o.timeoutMs ?? 15 * 60_000,
    signal: o.signal,
    log: o.log,
    keepLines: 400,
    note: 'convert: Dressage prepare_swegym_data.py',
    onLine: o.onLine,
  });
  const lines = [...run.stdout, ...run.stderr];
  const result: ConvertResult = {
    ok: false,
    command,
    argv: ['python3', ...argv],
    exitCode: run.exitCode,
    durationMs: 0,
    removedEnv: pre.removedEnv,
    notices: pre.notices,
    outputTail: lines.slice(-40),
  };
  if (run.cancelled) {
    o.onPhase?.('failed');
    throw new ConsoleError({ what: 'conversion cancelled', cause: 'interrupted', fix: 'rerun `swegym-console convert`; the previous JSONL (if any) is untouched' });
  }
  if (run.timedOut) {
    o.onPhase?.('failed');
    throw new ConsoleError({ what: 'the converter did not finish in time and was stopped', fix: 'check the Python environment; conversion normally takes well under a minute' });
  }
  if (run.spawnError) {
    o.onPhase?.('failed');
    throw preconditionError(`could not start python3: ${run.spawnError}`, undefined, 'install Python 3 and the Dressage environment');
  }
  if (run.exitCode !== 0) {
    o.onPhase?.('failed');
    throw explainConverterFailure(run.stderr.length ? run.stderr : run.stdout, run.exitCode);
  }
  for (const l of run.stderr) {
    const m = WROTE.exec(l.trim());
    if (m) result.wrote = { rows: Number(m[1]), split: m[2] as string, input: m[3] as string, output: m[4] as string };
  }
  if (!result.wrote) {
    const n = { level: 'warn' as const, text: 'the converter exited 0 without its "wrote N rows" line; verifying the file anyway' };
    result.notices.push(n);
    o.onNotice?.(n);
  }
  const after = await stat(o.options.output).then((s) => s.mtimeMs, () => undefined);
  if (after === undefined || after === before) {
    o.onPhase?.('failed');
    throw new ConsoleError({ what: `the converter exited 0 but did not write ${o.options.output}`, fix: 'run the manual command shown by --debug and inspect its output' });
  }

  o.onPhase?.('verifying');
  const goldPatches = pre.tasks ? new Map(pre.tasks.filter((t) => t.patch).map((t) => [t.instance_id, t.patch as string])) : undefined;
  const smoke = await readSmokeResults(o.paths);
  result.verify = await verifyJsonl(o.options.output, {
    expectedRows: pre.tasks ? Math.min(o.options.limit ?? pre.tasks.length, pre.tasks.length) : expectedRowCount(o.options),
    options: o.options,
    templateMap: pre.templateMap,
    smoke,
    goldPatches: goldPatches && goldPatches.size ? goldPatches : undefined,
  });
  if (result.wrote && result.wrote.rows !== result.verify.rows) {
    result.verify.warnings.push(`the converter said it wrote ${result.wrote.rows} rows, the file has ${result.verify.rows}`);
  }
  result.ok = result.verify.ok;
  result.durationMs = Date.now() - started;
  o.onPhase?.(result.ok ? 'done' : 'failed');
  return result;
}
