// The embedded demo: a SAMPLE workspace built from samples/tasks (tiny stdlib Python repos written for this
// project, not SWE-Gym) on the local bubblewrap provider, walked through the recipe for real and offline:
// data (the sample manifest → train.parquet and image list) → templates (one local template per task: a git /testbed
// at the manifest's base commit + the stand-in health server on 31000) → smoke (health + `claude --version`) →
// rows (Dressage's JSONL schema) → harness validation (gold → resolved, untouched repo → unresolved) → the real
// Claude Code CLI on one task with a SCRIPTED model (a replay of the gold patch; skipped, saying so, without the CLI).
// Nothing here pretends to be the real dataset, Claude Code or Dressage's converter, and every output says so.
// The smoke, validation and agent steps are the jobs both faces run (`templates smoke`, `validate harness`,
// `validate agent`), taken from the registry when the demo runs there (services/demo/domain.ts).
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConsoleError, ExitCode } from '../errors.js';
import { recipePaths, type RecipePaths } from '../workspace/paths.js';
import { writeFileAtomic } from '../workspace/atomic.js';
import { runProcess } from '../process/run.js';
import type { CommandLog } from '../process/commandLog.js';
import type { SandboxProvider } from '../sandbox/types.js';
import { sampleRow, type SampleTaskSpec } from './sampleRow.js';
import { verifyJsonl } from '../convert/verify.js';
import { writeSampleConvertExpectations, type SampleRowTimeouts } from '../convert/expectations.js';
import { SAMPLE_LABEL, sampleMarkerFile } from '../workspace/sample.js';
import { imageForInstance } from '../dataset/imageName.js';
import { writeSplitParquet } from '../dataset/write.js';
import { harnessResultsJson, type HarnessValidationResult, type HarnessResultJson } from '../validate/harness.js';
import type { SmokeJobOptions, SmokeOutcome } from '../templates/smokeJob.js';
import type { ValidateHarnessJobOptions, ValidateHarnessOutcome } from '../validate/harnessJob.js';
import { BLACKBOX_PORT, TASK_WORKDIR } from '../recipe.js';
import { count } from '../util/format.js';
import { findSamplesDir, readManifest, type ManifestInstance } from './samples.js';

export { findSamplesDir, readManifest, type ManifestInstance } from './samples.js';

export type DemoStepId = 'data' | 'templates' | 'smoke' | 'rows' | 'validate' | 'agent';

export interface DemoStep {
  id: DemoStepId;
  title: string;
  ok: boolean;
  detail: string;
  durationMs: number;
}

export interface DemoSummary {
  sample: true;
  label: string;
  workspace: string;
  provider: string;
  ok: boolean;
  steps: DemoStep[];
  results: HarnessResultJson[];
  /** The real Claude Code CLI on one sample task with the SCRIPTED model; null when the CLI is not installed. */
  agent: DemoAgentJson | null;
  /** The task whose Claude Code run the console starts (agentInConsole), when the CLI is installed. */
  agentInConsole?: string;
}

export interface DemoAgentJson {
  instance_id: string;
  model: string;
  scripted: boolean;
  cli_version: string;
  claude_code: Record<string, unknown>;
  summary: string | null;
  reward: number | null;
  log_file: string;
  error: string | null;
}

/** The jobs the demo drives (the registry's, bound to the sample workspace; by default to `provider`). */
export interface DemoJobs {
  smoke(o: Omit<SmokeJobOptions, 'paths' | 'openProvider'>): Promise<SmokeOutcome>;
  harness(o: Omit<ValidateHarnessJobOptions, 'paths' | 'env' | 'openProvider'>): Promise<ValidateHarnessOutcome>;
}

export interface DemoOptions {
  provider: SandboxProvider;
  jobs?: DemoJobs;
  /** The sample workspace directory (default: a fresh one under the system temp dir). */
  workspace?: string;
  /** Where samples/tasks lives (default: found next to the installed console). */
  samplesDir?: string;
  concurrency?: number;
  signal?: AbortSignal;
  log?: CommandLog;
  onStep?: (step: DemoStep | { id: DemoStepId; title: string; running: true }) => void;
  onLine?: (line: string) => void;
  /** Where CLAUDE_CODE_BIN is looked up (default: this process's environment). */
  env?: NodeJS.ProcessEnv;
  onResult?: (r: HarnessValidationResult) => void;
  /**
   * Leave the Claude Code step to the console (which runs the same `validate agent` job on its Validate screen,
   * live): the step is recorded as handed over, and the task is named in `agentInConsole` of the summary.
   */
  agentInConsole?: boolean;
}

/** samples/tasks next to this module (source tree or bundle), searching upwards. */
/** Template name for a sample image (lower-case letters, digits, '-'; within the local/E2B naming rules). */
export function sampleTemplateName(inst: ManifestInstance): string {
  const slug = inst.instance_id.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return (slug.startsWith('sample') ? slug : `sample-${slug}`).slice(0, 63).replace(/-+$/, '');
}

async function prepareWorkspace(dir: string | undefined): Promise<RecipePaths> {
  let root = dir;
  if (!root) root = await mkdtemp(path.join(tmpdir(), 'swegym-sample-workspace-'));
  else if (existsSync(root)) {
    const marker = sampleMarkerFile(recipePaths(root));
    if ((await readdir(root)).length > 0 && !existsSync(marker)) {
      throw new ConsoleError({
        what: `${root} is not empty and is not a sample workspace`,
        cause: 'the demo rebuilds its workspace from scratch and never touches other directories',
        fix: 'pass an empty or new directory, or omit it to use a fresh temporary one',
        exitCode: ExitCode.usage,
      });
    }
    await rm(root, { recursive: true, force: true });
  }
  const paths = recipePaths(root);
  await mkdir(paths.consoleDir, { recursive: true });
  await writeFile(sampleMarkerFile(paths), `${SAMPLE_LABEL}\n`);
  await writeFile(path.join(paths.root, 'README-SAMPLE.txt'), `${SAMPLE_LABEL}\n\nBuilt by \`swegym-console demo\`. Safe to delete.\n`);
  return paths;
}

export async function runDemo(o: DemoOptions): Promise<DemoSummary> {
  const samplesDir = o.samplesDir ?? findSamplesDir();
  if (!samplesDir) throw new ConsoleError({ what: 'samples/tasks not found next to the console', fix: 'run from a swegym-console checkout or install (samples/tasks ships with it)', exitCode: ExitCode.precondition });
  const repoRoot = path.resolve(samplesDir, '..', '..');
  const paths = await prepareWorkspace(o.workspace);
  const jobs: DemoJobs = o.jobs ?? {
    smoke: async (j) => (await import('../templates/smokeJob.js')).runSmokeJob({ paths, env: o.env, openProvider: async () => o.provider, ...j }),
    harness: async (j) => (await import('../validate/harnessJob.js')).runValidateHarnessJob({ paths, env: o.env, openProvider: async () => o.provider, ...j }),
  };
  const summary: DemoSummary = { sample: true, label: SAMPLE_LABEL, workspace: paths.root, provider: o.provider.name, ok: false, steps: [], results: [], agent: null };
  const line = (s: string) => o.onLine?.(s);
  const step = async (id: DemoStepId, title: string, fn: () => Promise<{ ok: boolean; detail: string }>): Promise<boolean> => {
    o.onStep?.({ id, title, running: true });
    const t0 = Date.now();
    let r: { ok: boolean; detail: string };
    try {
      r = await fn();
    } catch (err) {
      if (o.signal?.aborted) throw err;
      r = { ok: false, detail: err instanceof ConsoleError ? `${err.what}${err.causeText ? ` (${err.causeText})` : ''}` : (err as Error).message };
    }
    const s: DemoStep = { id, title, ok: r.ok, detail: r.detail, durationMs: Date.now() - t0 };
    summary.steps.push(s);
    o.onStep?.(s);
    return s.ok;
  };

  // 1. Data.
  // The split and the image list, as `data download` + `data images` leave them: the same reader, checks and
  // screens then apply (the sample marker lifts the 293-row expectation). Images are named by Dressage's rule.
  let instances: ManifestInstance[] = [];
  const imageOf = new Map<string, string>();
  const imageFor = (i: ManifestInstance) => imageOf.get(i.instance_id) as string;
  const okData = await step('data', 'Sample data', async () => {
    instances = await readManifest(samplesDir);
    for (const i of instances) imageOf.set(i.instance_id, imageForInstance(i.instance_id, i.repo));
    await writeSplitParquet(paths.parquet('train'), instances);
    await writeFileAtomic(paths.imageList, instances.map(imageFor).join('\n') + '\n');
    return { ok: true, detail: `${instances.length} sample tasks from samples/tasks/manifest.json (offline; no download) → data/swegym-source/train.parquet, data/swegym-images.txt` };
  });
  if (!okData) return summary;

  // 2. Templates: a deterministic git /testbed per task, checked against the manifest's base commit.
  const templateOf = new Map(instances.map((i) => [i.instance_id, sampleTemplateName(i)]));
  const built: ManifestInstance[] = [];
  const okTemplates = await step('templates', 'Local templates', async () => {
    const problems: string[] = [];
    const buildRoot = path.join(paths.consoleDir, 'sample-build');
    for (const inst of instances) {
      const image = path.join(buildRoot, inst.instance_id, 'image');
      const testbed = path.join(image, 'testbed');
      await rm(path.join(buildRoot, inst.instance_id), { recursive: true, force: true });
      await mkdir(image, { recursive: true });
      const r = await runProcess('bash', [path.join(repoRoot, inst.local.testbed_script), path.join(repoRoot, inst.local.task_dir), testbed], { cwd: repoRoot, timeoutMs: 60_000, signal: o.signal, log: o.log, note: 'demo: sample testbed' });
      const commit = r.stdout.at(-1)?.trim();
      if (r.exitCode !== 0 || commit !== inst.base_commit) {
        problems.push(`${inst.instance_id}: testbed ${r.exitCode !== 0 ? `failed: ${r.stderr.at(-1) ?? ''}` : `commit ${commit} ≠ manifest ${inst.base_commit}`}`);
        continue;
      }
      const name = templateOf.get(inst.instance_id) as string;
      line(`building local template ${name} for ${imageFor(inst)}`);
      await o.provider.buildTemplate(
        {
          name,
          baseImage: image,
          contextDir: repoRoot,
          cpuCount: 1,
          memoryMb: 512,
          copies: inst.local.copies,
          runCommands: [],
          aptPackages: [],
          startCommand: inst.local.start_command,
          readyPort: inst.local.health.port,
          readyPath: inst.local.health.path,
        },
        { signal: o.signal, onLog: (l) => line(`  ${l}`) },
      );
      built.push(inst);
    }
    const { writeTemplateMap } = await import('../templates/map.js');
    await writeTemplateMap(paths.templateMap, Object.fromEntries(built.map((i) => [imageFor(i), templateOf.get(i.instance_id) as string])), built.map((i) => imageFor(i)));
    const { templatesJournal } = await import('../templates/records.js');
    const journal = await templatesJournal(paths).load();
    for (const i of built) await journal.set(imageFor(i), { image: imageFor(i), state: 'built', template: templateOf.get(i.instance_id) as string, builtAt: new Date().toISOString(), updatedAt: new Date().toISOString() });
    return { ok: problems.length === 0, detail: `${built.length}/${instances.length} local templates built → data/e2b-template-map.json${problems.length ? `; ${problems.join('; ')}` : ''}` };
  });
  if (!okTemplates && built.length === 0) return summary;

  // 3. Smoke.
  await step('smoke', 'Smoke tests', async () => {
    const { results } = await jobs.smoke({ targets: built.map((i) => ({ image: imageFor(i), template: templateOf.get(i.instance_id) as string })), concurrency: o.concurrency ?? 2, signal: o.signal });
    const bad = results.filter((r) => !r.ok);
    return { ok: bad.length === 0, detail: `${results.length - bad.length}/${results.length} passed (BBS stand-in /health on ${BLACKBOX_PORT}, claude --version)${bad.length ? `; ${bad.map((b) => `${b.template}: ${b.error ?? b.code}`).join('; ')}` : ''}` };
  });

  // 4. Rows in Dressage's schema (console-built for samples; the real converter needs the pinned swegym package).
  const specs: SampleTaskSpec[] = built.map((i) => ({
    instance_id: i.instance_id,
    repo: i.repo,
    base_commit: i.base_commit,
    problem_statement: i.problem_statement,
    test_patch: i.test_patch,
    test_cmd: i.local.test_command,
    FAIL_TO_PASS: i.FAIL_TO_PASS,
    PASS_TO_PASS: i.PASS_TO_PASS,
    template: templateOf.get(i.instance_id) as string,
    docker_image: imageFor(i),
  }));
  const timeouts: SampleRowTimeouts = { testTimeout: 120, commandTimeout: 180, gitSanitizeTimeout: 60 };
  const rows = specs.map((s) => sampleRow(s, timeouts));
  await step('rows', 'Sample JSONL', async () => {
    await writeFileAtomic(paths.trainJsonl, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    await writeSampleConvertExpectations(paths, { rows: rows.length, timeouts });
    const map = Object.fromEntries(specs.map((s) => [s.docker_image as string, s.template]));
    const v = await verifyJsonl(paths.trainJsonl, {
      expectedRows: rows.length,
      templateMap: map,
      goldPatches: new Map(built.map((i) => [i.instance_id, i.patch])),
      options: { split: 'train', provider: 'e2b', blackboxType: 'claude_code', workdir: TASK_WORKDIR, maxTurns: 80, permissionMode: 'acceptEdits', sandboxTimeout: 3600, ...timeouts },
    });
    const problems = v.problems.map((p) => `${p.instanceId ?? 'file'}: ${p.message}`);
    return { ok: v.ok, detail: `${v.rows} rows written by the console in Dressage's schema (not by Dressage's converter) and verified${problems.length ? `; ${problems.slice(0, 3).join('; ')}` : ''}` };
  });

  // 5. Harness validation for real.
  await step('validate', 'Harness validation', async () => {
    // Every row of the sample JSONL, its gold patch from the split (as `validate harness --all` reads them).
    const { results } = await jobs.harness({ ids: [], all: true, concurrency: o.concurrency ?? 2, signal: o.signal, onEvent: (e) => (e.type === 'result' ? o.onResult?.(e.result) : undefined) });
    summary.results = harnessResultsJson(results).results;
    const ok = results.filter((r) => r.ok).length;
    return { ok: ok === results.length && results.length > 0, detail: `${ok}/${results.length} tasks: gold patch → resolved, untouched repo → unresolved` };
  });
  // 6. The real Claude Code CLI on one task, in its sandbox, with the SCRIPTED model (a gold-patch replay).
  const first = rows[0];
  if (first) {
    await step('agent', 'Claude Code (real CLI, scripted model)', async () => {
      const { findClaudeCodeCli } = await import('./localAgent.js');
      const cli = findClaudeCodeCli(o.env);
      // Not a failure of the recipe: the agent step needs the CLI, which only a checkout with dev dependencies has.
      if (!cli.ok) return { ok: true, detail: `NOT RUN: ${cli.reason}; fix: ${cli.fix}` };
      if (o.agentInConsole) {
        summary.agentInConsole = first.metadata.instance_id;
        return { ok: true, detail: `runs inside the console next, live on its Validate screen (validate agent ${first.metadata.instance_id}, model SCRIPTED: gold patch replay)` };
      }
      const { runValidateAgentJob } = await import('./agentJob.js');
      const { run: r } = await runValidateAgentJob({
        paths,
        instanceId: first.metadata.instance_id,
        openProvider: async () => o.provider,
        samplesDir,
        env: o.env,
        signal: o.signal,
        onEvent: (e) => (e.type === 'started' ? line(e.modelLabel) : e.type === 'phase' ? line(`  agent: ${e.phase}`) : undefined),
      });
      summary.agent = { instance_id: r.instance_id, model: r.model, scripted: r.scripted, cli_version: r.cliVersion, claude_code: r.claudeCode, summary: r.summary ?? null, reward: r.reward?.reward ?? null, log_file: r.logFile, error: r.error ?? null };
      return {
        ok: r.ok && r.reward?.reward === 1,
        detail: `Claude Code ${r.cliVersion} on ${r.instance_id}: ${r.claudeCode.status}, ${count(r.claudeCode.model_turns, 'model turn')}, ${count(r.claudeCode.tool_calls.length, 'tool call')}; fresh-sandbox grade: ${r.summary ?? r.error ?? '?'} (model SCRIPTED: gold patch replay; log: swegym-console agent-log ${r.logFile})`,
      };
    });
  }
  summary.ok = summary.steps.every((s) => s.ok);
  return summary;
}
