// Text captures of every screen of the BUILT console in a real terminal (tmux), to compare the screens before and
// after a change: `npm run build && node --import tsx scripts/captures.ts OUT_DIR [--sizes 120x40,80x24]`.
// It uses the sample workspace (`demo --dir`, made once in /tmp/swegym-captures-ws and kept, so two runs see the same
// files) and an offline simulated run (`simulate --seed 1`) for the dashboard. One file per screen and size.
// Compare two runs with `diff -r BEFORE AFTER`; a run log's ages ("3m ago") move between runs, nothing else should.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TmuxSession, hasTmux } from '../tests/helpers/tmux.js';

const BIN = path.resolve('bin/swegym-console');
const WS = process.env.SWEGYM_CAPTURES_WS ?? '/tmp/swegym-captures-ws';
const SIM = process.env.SWEGYM_CAPTURES_SIM ?? '/tmp/swegym-captures-sim';

interface Step {
  name: string;
  keys?: string[];
  literal?: string;
  waitFor?: string | RegExp;
  /** Then waits until this has left the screen (a check still running). */
  waitGone?: string;
}

/** The console on the sample workspace: every tab, help, detail views and each text field while typing. */
const CONSOLE_STEPS: Step[] = [
  { name: '1-home', waitFor: /Doctor — \d+ ok/, waitGone: 'checking…' },
  { name: 'help', keys: ['?'], waitFor: 'Home keys' },
  { name: 'help-scrolled', keys: ['PageDown', 'PageDown'], waitFor: /lines [2-9]\d*–/ },
  { name: 'home-step-detail', keys: ['Escape', 'v'], waitFor: 'c copies the command' },
  { name: '2-data', keys: ['Escape', '2'], waitFor: 'instance_id' },
  { name: 'data-filter-typing', keys: ['/'], literal: 'calc', waitFor: '/ calc' },
  { name: 'data-task-detail', keys: ['Enter', 'Enter'], waitFor: 'problem statement' },
  { name: '3-templates', keys: ['Escape', 'Escape', '3'], waitFor: /\d+ images:/ },
  { name: 'templates-filter-typing', keys: ['/'], literal: 'calc', waitFor: 'filter: calc' },
  { name: 'templates-row-detail', keys: ['Enter', 'v'], waitFor: 'Template — ' },
  { name: '4-convert', keys: ['Escape', 'Escape', '4'], waitFor: 'output: data/' },
  { name: 'convert-field-typing', keys: ['Enter'], literal: 'x1', waitFor: 'x1' },
  { name: '5-validate', keys: ['Escape', '5'], waitFor: 'Validate' },
  { name: 'validate-row-detail', keys: ['v'], waitFor: /╭/ },
  { name: '6-train', keys: ['Escape', '6'], waitFor: 'Launch settings' },
  { name: 'train-field-typing', keys: ['Enter'], literal: '42', waitFor: /42[▌▏]/ },
  { name: '7-dashboard-no-run', keys: ['Escape', '7'], waitFor: /No run open|Cannot open|Reading/ },
];

/** `monitor SIM`: the dashboard on a finished simulated run, and its filter while typing. */
const MONITOR_STEPS: Step[] = [
  { name: '7-dashboard', waitFor: /SIMULATED/i },
  { name: 'dashboard-filter-typing', keys: ['/'], literal: 'calc', waitFor: 'calc' },
];

async function settle(t: TmuxSession): Promise<string> {
  // Until the screen has not changed for 700 ms (at most 8 s): a capture never lands mid-redraw.
  let last = t.screen();
  let since = Date.now();
  const deadline = Date.now() + 8000;
  while (Date.now() < deadline && Date.now() - since < 700) {
    await new Promise((r) => setTimeout(r, 100));
    const now = t.screen();
    if (now !== last) {
      last = now;
      since = Date.now();
    }
  }
  return last;
}

async function capture(argv: string[], steps: Step[], cols: number, rows: number, out: string, tag: string): Promise<void> {
  const t = new TmuxSession(`cap-${tag}-${cols}x${rows}`);
  try {
    t.start([process.execPath, BIN, ...argv], { cols, rows, env: { NO_COLOR: '1' } });
    await t.waitForText('[1 Home]', 20000).catch(() => t.waitForText('Dashboard', 20000));
    for (const step of steps) {
      for (const k of step.keys ?? []) {
        t.key(k);
        await new Promise((r) => setTimeout(r, 150));
      }
      if (step.literal) t.literal(step.literal);
      let screen: string;
      try {
        if (step.waitFor) await t.waitForText(step.waitFor, 15000);
        if (step.waitGone) await t.waitForTextGone(step.waitGone, 30000);
        screen = await settle(t);
      } catch (err) {
        screen = `!! did not see ${String(step.waitFor)}\n${t.screen()}`;
        process.stderr.write(`${step.name} ${cols}x${rows}: ${(err as Error).message.split('\n')[0]}\n`);
      }
      writeFileSync(path.join(out, `${step.name}.${cols}x${rows}.txt`), screen);
    }
    t.key('Escape');
    t.key('q');
  } finally {
    t.kill();
  }
}

async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error('usage: node --import tsx scripts/captures.ts OUT_DIR [--sizes 120x40,80x24]');
  if (!hasTmux()) throw new Error('tmux is not installed (apt-get install tmux)');
  if (!existsSync(path.resolve('dist/swegym-console.mjs'))) throw new Error('run npm run build first');
  const sizesArg = process.argv.indexOf('--sizes');
  const sizes = (sizesArg > 0 ? (process.argv[sizesArg + 1] ?? '') : '120x40,80x24').split(',').map((s) => s.split('x').map(Number) as [number, number]);
  mkdirSync(out, { recursive: true });
  const node = process.execPath;
  if (!existsSync(path.join(WS, 'data'))) execFileSync(node, [BIN, 'demo', '--dir', WS, '--json'], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 300_000 });
  if (!existsSync(path.join(SIM, 'run.log'))) execFileSync(node, [BIN, 'simulate', SIM, '--seed', '1', '--rollouts', '12', '--traj', '40'], { stdio: 'ignore', timeout: 120_000 });
  for (const [cols, rows] of sizes) {
    await capture(['-w', WS, '--provider', 'local'], CONSOLE_STEPS, cols, rows, out, 'console');
    await capture(['-w', WS, '--provider', 'local', 'monitor', SIM], MONITOR_STEPS, cols, rows, out, 'monitor');
  }
  process.stdout.write(`captures in ${out}\n`);
}

await main();
