// The one table of headless commands: the parser, `--help`, and dispatch are all generated from it.
// A command without `load` is not implemented yet: it says so and exits 2 (no fake success).
import type { CommandContext } from './context.js';
import { SWEGYM_DATASET } from '../services/recipe.js';
import { environmentReference } from '../services/config/envSettings.js';

export interface OptionSpec {
  name: string;
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  arg?: string;
  help: string;
}

export type Handler = (ctx: CommandContext) => Promise<number>;

export interface CommandSpec {
  words: string[];
  args?: string;
  summary: string;
  options?: OptionSpec[];
  json?: boolean;
  /** Lazily loads the handler so that start-up parses only what the chosen command needs. */
  load?: () => Promise<Handler>;
  /** Developer commands (e.g. `simulate`): `--help` lists them apart, under "developer tools". */
  hidden?: boolean;
}

export const GLOBAL_OPTIONS: OptionSpec[] = [
  { name: 'workspace', type: 'string', short: 'w', arg: 'DIR', help: 'the Dressage checkout (default: current directory)' },
  { name: 'provider', type: 'string', arg: 'e2b|local', help: 'sandbox provider (default: e2b; local = bubblewrap on this machine)' },
  { name: 'debug', type: 'boolean', help: 'show stack traces and internal details' },
  { name: 'no-color', type: 'boolean', help: 'no colours (NO_COLOR is honoured too)' },
  { name: 'json', type: 'boolean', help: 'machine-readable output, where the command supports it: one document on stdout, indented on a terminal, compact when piped; a failure is {"ok": false, "error": {what, cause, fix}, "exitCode"}' },
  { name: 'pretty', type: 'boolean', help: 'with --json: indent the document even when piped' },
  { name: 'help', type: 'boolean', short: 'h', help: 'show help' },
  { name: 'version', type: 'boolean', short: 'V', help: 'show the version' },
];

const yes: OptionSpec = { name: 'yes', type: 'boolean', short: 'y', help: 'do not ask for confirmation' };
const concurrency: OptionSpec = { name: 'concurrency', type: 'string', arg: 'N', help: 'parallel workers' };
const split: OptionSpec = { name: 'split', type: 'string', arg: 'train|validation', help: 'dataset split (default: train)' };

export const COMMANDS: CommandSpec[] = [
  {
    words: ['doctor'],
    summary: 'check prerequisites and every known trap of the recipe',
    json: true,
    load: async () => (await import('./commands/doctor.js')).doctorCommand,
  },
  {
    words: ['data', 'download'],
    summary: `download <split>.parquet of ${SWEGYM_DATASET} (resumable)`,
    options: [split, { name: 'dir', type: 'string', arg: 'DIR', help: 'target directory (default: data/swegym-source)' }],
    json: true,
    load: async () => (await import('./commands/data.js')).dataDownloadCommand,
  },
  {
    words: ['data', 'images'],
    summary: 'write the task image list (data/swegym-images.txt) from the parquet',
    options: [
      { name: 'input', type: 'string', arg: 'PARQUET', help: 'parquet to read (default: data/swegym-source/<split>.parquet)' },
      split,
      { name: 'output', type: 'string', arg: 'FILE', help: 'output file (default: data/swegym-images.txt)' },
      { name: 'expect-rows', type: 'string', arg: 'N', help: 'override the expected row count (other datasets)' },
    ],
    json: true,
    load: async () => (await import('./commands/data.js')).dataImagesCommand,
  },
  {
    words: ['data', 'show'],
    summary: 'summarise the split: repos, images, test counts; --json for every instance',
    options: [
      { name: 'input', type: 'string', arg: 'PARQUET', help: 'parquet to read' },
      split,
      { name: 'expect-rows', type: 'string', arg: 'N', help: 'override the expected row count' },
    ],
    json: true,
    load: async () => (await import('./commands/data.js')).dataShowCommand,
  },
  {
    words: ['artifacts', 'build'],
    summary: 'build the BBS wheel and the Claude Code sandbox artifacts',
    options: [{ name: 'force', type: 'boolean', help: 'rebuild even when present and current' }],
    json: true,
    load: async () => (await import('./commands/artifacts.js')).artifactsBuildCommand,
  },
  {
    words: ['templates', 'build'],
    summary: 'build one sandbox template per task image, in parallel, resumable',
    options: [
      concurrency,
      { name: 'prefix', type: 'string', arg: 'P', help: 'template name prefix' },
      { name: 'only', type: 'string', multiple: true, arg: 'IMAGE', help: 'build only this image (repeatable)' },
      { name: 'rebuild', type: 'boolean', help: 'rebuild templates that already exist' },
      { name: 'build-timeout', type: 'string', arg: 'MIN', help: 'give up on a build still running after MIN minutes (default 70; E2B stops builds at 60)' },
      { name: 'skip-cache', type: 'boolean', help: 'force a full rebuild without the build cache' },
    ],
    json: true,
    load: async () => (await import('./commands/templates.js')).templatesBuildCommand,
  },
  {
    words: ['templates', 'smoke'],
    summary: 'start a sandbox per template and check BBS /health and claude --version',
    options: [
      { name: 'template', type: 'string', multiple: true, arg: 'NAME', help: 'smoke this template (repeatable)' },
      { name: 'all', type: 'boolean', help: 'smoke every template in the map' },
      concurrency,
    ],
    json: true,
    load: async () => (await import('./commands/templates.js')).templatesSmokeCommand,
  },
  {
    words: ['templates', 'status'],
    summary: 'per-image template state, smoke result and errors',
    json: true,
    load: async () => (await import('./commands/templates.js')).templatesStatusCommand,
  },
  {
    words: ['convert'],
    summary: "run Dressage's converter and verify the JSONL",
    options: [
      split,
      { name: 'limit', type: 'string', arg: 'N', help: 'keep only the first N rows' },
      { name: 'input', type: 'string', arg: 'PARQUET', help: 'source split (default: data/swegym-source/<split>.parquet)' },
      { name: 'output', type: 'string', arg: 'JSONL', help: 'output (default: data/swegym-train-claude-code-e2b.jsonl)' },
      { name: 'sandbox-image-map', type: 'string', arg: 'FILE', help: 'template map (default: data/e2b-template-map.json)' },
      { name: 'swegym-package-root', type: 'string', arg: 'DIR', help: 'a SWE-Bench-Package checkout instead of the installed swegym' },
      { name: 'max-turns', type: 'string', arg: 'N', help: 'Claude Code --max-turns (default 80)' },
      { name: 'permission-mode', type: 'string', arg: 'MODE', help: 'Claude Code permission mode (default acceptEdits)' },
      { name: 'test-timeout', type: 'string', arg: 'S', help: 'eval script timeout (default 1200)' },
      { name: 'command-timeout', type: 'string', arg: 'S', help: 'after_agent timeout (default 1260)' },
      { name: 'sandbox-timeout', type: 'string', arg: 'S', help: 'sandbox lifetime (default 3600)' },
      { name: 'git-sanitize-timeout', type: 'string', arg: 'S', help: 'before_agent timeout (default 120)' },
      { name: 'verify-only', type: 'boolean', help: 'do not run the converter; verify the existing JSONL' },
      { name: 'preview', type: 'string', arg: 'N', help: 'rows to preview (default 1, 0 for none)' },
    ],
    json: true,
    load: async () => (await import('./commands/convert.js')).convertCommand,
  },
  {
    words: ['validate', 'harness'],
    summary: 'gold patch → resolved, untouched repo → unresolved, per task, in sandboxes',
    options: [
      { name: 'instance', type: 'string', multiple: true, arg: 'ID', help: 'validate this instance (repeatable)' },
      { name: 'all', type: 'boolean', help: 'validate every instance' },
      concurrency,
    ],
    json: true,
    load: async () => (await import('./commands/validate.js')).validateHarnessCommand,
  },
  {
    words: ['validate', 'agent'],
    summary: 'run Claude Code on one task through a router and evaluate its patch (--provider local: the real CLI in a sample sandbox, scripted model unless --router)',
    options: [
      { name: 'instance', type: 'string', arg: 'ID', help: 'the task' },
      { name: 'router', type: 'string', arg: 'URL', help: 'Dressage proxy or compatible endpoint (local provider: optional, default the scripted replay)' },
    ],
    json: true,
    load: async () => (await import('./commands/validate.js')).validateAgentCommand,
  },
  {
    words: ['train', 'launch'],
    summary: 'check the launch settings and start the training run, detached',
    options: [
      { name: 'env-file', type: 'string', arg: 'FILE', help: 'KEY=VALUE file with launcher settings' },
      { name: 'set', type: 'string', multiple: true, arg: 'KEY=VALUE', help: 'one setting (repeatable)' },
      { name: 'dry-run', type: 'boolean', help: 'print the command and environment (secrets masked), do not run' },
      { name: 'resume', type: 'boolean', help: 'resume from the latest checkpoint in SAVE_ROOT (RESUME_FROM_CKPT=1 …)' },
      { name: 'allow-outside-launcher', type: 'boolean', help: 'run a launcher script that resolves outside the checkout (a symlink elsewhere)' },
    ],
    json: true,
    load: async () => (await import('./commands/train.js')).trainLaunch,
  },
  { words: ['train', 'list'], summary: 'runs in the registry with their status', json: true, load: async () => (await import('./commands/train.js')).trainList },
  { words: ['train', 'status'], args: '[RUN]', summary: 'one run in detail', json: true, load: async () => (await import('./commands/train.js')).trainStatus },
  {
    words: ['train', 'stop'],
    args: 'RUN',
    summary: 'stop a run (TERM its process group, then KILL)',
    options: [yes, { name: 'ray-stop', type: 'boolean', help: 'also run `ray stop --force`' }],
    json: true,
    load: async () => (await import('./commands/train.js')).trainStop,
  },
  {
    words: ['monitor'],
    args: '[RUN|RUN_DIR|LOG_FILE]',
    summary: 'live dashboard of a run; --once --json ingests what is there and prints one summary',
    options: [
      { name: 'once', type: 'boolean', help: 'ingest what is there, print, exit (in --json a NaN or Infinity metric is null: JSON has no such number)' },
      { name: 'from-start', type: 'boolean', help: 'read the log from the beginning' },
      { name: 'compare', type: 'string', arg: 'RUN_OR_LOG', help: "draw another run (registry name, run directory or log file) over the dashboard's curves" },
    ],
    json: true,
    load: async () => (await import('./commands/monitor.js')).monitorCommand,
  },
  {
    words: ['report'],
    args: '[RUN|RUN_DIR|LOG_FILE]',
    summary: 'one self-contained HTML page of the run to share: curves, groups, failures, tasks, E2B cost, settings',
    options: [{ name: 'output', type: 'string', short: 'o', arg: 'FILE', help: 'the HTML file to write (default: <run>.html)' }],
    json: true,
    load: async () => (await import('./commands/report.js')).reportCommand,
  },
  {
    words: ['agent-log'],
    args: 'FILE|SANDBOX_ID',
    summary: "Claude Code's progress from its stream-json log: a file, or a live agent sandbox's claude_code.stdout.log",
    options: [{ name: 'follow', type: 'boolean', short: 'f', help: 'stream updates until the result event (with --json: one JSON document per line)' }],
    json: true,
    load: async () => (await import('./commands/agentLog.js')).agentLogCommand,
  },
  {
    words: ['sandboxes', 'list'],
    summary: "list this console's sandboxes (by metadata tag)",
    json: true,
    load: async () => (await import('./commands/sandboxes.js')).listCommand,
  },
  {
    words: ['sandboxes', 'kill'],
    args: 'ID…',
    summary: "kill sandboxes by id, or all of this console's with --all-console, or one session's with --session",
    options: [
      { name: 'all-console', type: 'boolean', help: "every sandbox tagged as this console's" },
      { name: 'session', type: 'string', arg: 'ID', help: "every sandbox of this console's session ID (an exit names it when a create was not answered)" },
      yes,
    ],
    json: true,
    load: async () => (await import('./commands/sandboxes.js')).killCommand,
  },
  {
    words: ['demo'],
    summary: 'the sample workspace on the local provider: data → templates → smoke → validation, offline',
    options: [{ name: 'dir', type: 'string', arg: 'DIR', help: 'sample workspace directory (default: a new temporary one)' }, concurrency],
    json: true,
    load: async () => (await import('./commands/demo.js')).demoCommand,
  },
  {
    words: ['keys'],
    summary: "every key of the interactive console: intent, keys, what it does (with your keys.json's overrides); docs/KEYS.md holds the defaults",
    options: [
      { name: 'defaults', type: 'boolean', help: 'the default keys, without the overrides in $XDG_CONFIG_HOME/swegym-console/keys.json' },
      { name: 'markdown', type: 'boolean', help: "the defaults as docs/KEYS.md's table" },
    ],
    json: true,
    load: async () => (await import('./commands/keys.js')).keysCommand,
  },
  {
    words: ['completion'],
    args: 'bash|zsh|fish',
    summary: 'print a shell completion script (e.g. source <(swegym-console completion bash)), generated from this table',
    // The table hands itself to the command: completion reads the table, and the table must not be read back by import.
    load: async () => (await import('./commands/completion.js')).completionCommand({ commands: COMMANDS, globals: GLOBAL_OPTIONS }),
  },
  {
    words: ['simulate'],
    args: 'DIR',
    summary: 'developer tool: write a simulated Dressage run (run.log, traj files) into DIR, offline or --live',
    options: [
      { name: 'live', type: 'boolean', help: 'append at the pace of a run (see --speed) instead of all at once' },
      { name: 'speed', type: 'string', arg: 'X', help: 'live: simulated seconds per second (default 1)' },
      { name: 'size', type: 'string', arg: 'SIZE', help: 'offline: grow the log to about SIZE (e.g. 1GB) with noise lines' },
      { name: 'seed', type: 'string', arg: 'N', help: 'random seed (default 1); same seed, same run' },
      { name: 'rollouts', type: 'string', arg: 'N', help: 'rollouts (default 500)' },
      { name: 'prompts', type: 'string', arg: 'N', help: 'prompts per rollout (default 8)' },
      { name: 'samples-per-prompt', type: 'string', arg: 'N', help: 'samples per prompt (default 16)' },
      { name: 'concurrency', type: 'string', arg: 'N', help: 'sessions in flight (default 64)' },
      { name: 'rollout-seconds', type: 'string', arg: 'S', help: 'generation time per rollout (default 2700 offline, 60 live)' },
      { name: 'train-seconds', type: 'string', arg: 'S', help: 'training time per rollout (default 240 offline, 8 live)' },
      { name: 'startup-seconds', type: 'string', arg: 'S', help: 'launcher start-up time (default 600 offline, 6 live)' },
      { name: 'noise-rate', type: 'string', arg: 'N', help: 'noise lines per simulated second (default 2 offline, 20 live)' },
      { name: 'traj', type: 'string', arg: 'all|none|N', help: 'write traj files for all, none or N samples (default: none offline, all live)' },
      { name: 'checkpoints', type: 'boolean', help: 'also create DIR/checkpoints/iter_<N>/ every 10 rollouts' },
      { name: 'run-name', type: 'string', arg: 'NAME', help: 'RUN_NAME used in paths (default swegym-qwen3.5-4b-claude-code-grpo-sync)' },
      { name: 'no-ansi', type: 'boolean', help: 'no ANSI colour on Ray actor prefixes' },
      { name: 'force', type: 'boolean', help: 'replace a previous simulated run in DIR' },
    ],
    json: true,
    hidden: true,
    load: async () => (await import('./commands/simulate.js')).simulateCommand,
  },
];

/** An environment variable the console reads: `--help` and the README's reference are generated from this list. */
export interface EnvVarSpec {
  name: string;
  help: string;
}

/**
 * Every variable of the console's own (SWEGYM_*), and the few of others it reads first-hand: the settings module's
 * list (src/services/config/envSettings.ts), where each is declared once. The launcher's own (DRESSAGE_*, MODEL_ROOT, …)
 * are the Train screen's settings and `train launch --dry-run`'s, not listed here.
 */
export const ENVIRONMENT: EnvVarSpec[] = environmentReference().map(({ name, help }) => ({ name, help }));

export function findCommand(words: string[]): { spec: CommandSpec; consumed: number } | undefined {
  let best: { spec: CommandSpec; consumed: number } | undefined;
  for (const spec of COMMANDS) {
    const n = spec.words.length;
    if (n <= words.length && spec.words.every((w, i) => words[i] === w)) {
      if (!best || n > best.consumed) best = { spec, consumed: n };
    }
  }
  return best;
}

export function commandGroups(): string[] {
  return [...new Set(COMMANDS.map((c) => c.words[0] as string))];
}
