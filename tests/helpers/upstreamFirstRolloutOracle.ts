// Clients for the two upstream judges of a launch's settings, for property-based differential tests:
// - Dressage's Python code at the first rollout (tests/helpers/upstreamFirstRollout.py, one long-lived python3 process, so a
//   property can ask it once per generated value and fast-check can shrink);
// - the launcher's own shell checks that these settings reach, taken from the real launcher's text and the real
//   defaults file it sources, run by bash under the launcher's `set -euo pipefail`.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { PYTHON } from './upstreamOracle.js';
import { PYTHON_MISSING, REPO, UPSTREAM_DRESSAGE_DIR, upstreamMissing } from './upstreamDir.js';

const DEFAULTS = path.join(UPSTREAM_DRESSAGE_DIR, 'examples', 'scripts', 'default', 'dressage_env_defaults.sh');
const LAUNCHER = path.join(UPSTREAM_DRESSAGE_DIR, 'examples', 'scripts', 'run_dressage_swegym_qwen3.5_4b_claude_code_sync_4_node.sh');

/** Why these tests cannot run here, or undefined. */
export function firstRolloutSkip(): string | undefined {
  const missing = upstreamMissing([path.join(UPSTREAM_DRESSAGE_DIR, 'dressage', 'rollout', 'generate', 'runtime.py'), DEFAULTS, LAUNCHER]);
  if (missing) return missing;
  if (!PYTHON) return PYTHON_MISSING;
  return undefined;
}

export type Reply = { ok: unknown } | { error: string };

export class PythonJudge {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: ((line: string) => void)[] = [];
  private stderr = '';

  constructor() {
    this.child = spawn(PYTHON as string, [path.join(REPO, 'tests', 'helpers', 'upstreamFirstRollout.py'), UPSTREAM_DRESSAGE_DIR], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8' },
    });
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    createInterface({ input: this.child.stdout }).on('line', (line) => this.waiting.shift()?.(line));
  }

  call(fn: string, args: unknown[], env: Record<string, string> = {}): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const onExit = () => reject(new Error(`upstreamFirstRollout.py ended: ${this.stderr.slice(-2000)}`));
      this.child.once('exit', onExit);
      this.waiting.push((line) => {
        this.child.off('exit', onExit);
        const r = JSON.parse(line) as { ok?: unknown; error?: string };
        resolve(r.error !== undefined ? { error: r.error } : { ok: r.ok });
      });
      this.child.stdin.write(JSON.stringify({ fn, args, env }) + '\n');
    });
  }

  close(): void {
    this.child.stdin.end();
  }
}

/** The launcher's checks of the compaction threshold and the provider keys, as written in the real launcher. */
function launcherSnippet(): string {
  const text = readFileSync(LAUNCHER, 'utf8');
  const block = (re: RegExp, what: string) => {
    const m = re.exec(text);
    if (!m) throw new Error(`the launcher has no ${what} check any more: ${LAUNCHER}`);
    return m[0];
  };
  return [
    'set -euo pipefail',
    `source ${JSON.stringify(DEFAULTS)}`,
    block(/if \[\[ "\$\{DRESSAGE_BLACKBOX_COMPACT_THRESHOLD\}" -le 0 \]\]; then\n[\s\S]*?\nfi\n/, 'compaction threshold'),
    block(/if \[\[ "\$\{DRESSAGE_SANDBOX_PROVIDER\}" == "e2b" \]\]; then\n[\s\S]*?\nfi\n/, 'E2B key'),
    block(/if \[\[ "\$\{DRESSAGE_SANDBOX_PROVIDER\}" == "custom" \]\]; then\n[\s\S]*?\nfi\n/, 'custom provider'),
    'dressage_validate_proxy_defaults',
    'echo LAUNCHER_CARRIES_ON',
  ].join('\n');
}

let snippet: string | undefined;

/** Runs those checks with the values the launcher would hold there: refused (its first stderr line) or not. */
export function launcherJudge(values: Record<string, string>): { refused: false } | { refused: true; said: string } {
  snippet ??= launcherSnippet();
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', snippet], { env: { PATH: '/usr/bin:/bin', ...values }, encoding: 'utf8' });
  if (r.status === 0 && r.stdout.includes('LAUNCHER_CARRIES_ON')) return { refused: false };
  // bash's own `${VAR:?message}` and `set -u` lines carry a `bash: [line N: ]NAME: ` prefix; arithmetic errors it
  // carried on after end with "(error token is …)" and may span lines (a value with a newline).
  const lines = r.stderr.split('\n');
  let from = 0;
  let inToken = false;
  lines.forEach((l, i) => {
    if (/\(error token is /.test(l)) inToken = true;
    if (inToken && /"\)$/.test(l)) {
      inToken = false;
      from = i + 1;
    }
  });
  const said = (lines.slice(from).find((l) => l !== '') ?? '').replace(/^bash: (?:line \d+: )?[A-Za-z_][A-Za-z0-9_]*: /, '');
  return { refused: true, said };
}
