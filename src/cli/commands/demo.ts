// `swegym-console demo [--dir DIR] [--json]`: the sample workspace on the local provider, walked through
// data → templates → smoke → rows → harness validation, offline; in a terminal it then opens the console there,
// with a simulated training run (labelled) playing in the dashboard. `--json` prints the summary, whose `results` have
// the shape of `validate harness --json`. Exit 0 when every step passed, 1 otherwise.
import type { CommandContext, GlobalOptions } from '../context.js';
import { commandRegistry, note, optInt, optString, say, writeJson } from '../context.js';
import { ExitCode } from '../../services/errors.js';
import { sandboxConsoleError } from '../../services/sandbox/index.js';
import { recipePaths } from '../../services/workspace/paths.js';
import { SAMPLE_LABEL } from '../../services/workspace/sample.js';
import { startDemoSimulation } from '../../services/demo/simulation.js';
import { formatDuration } from '../../services/util/format.js';
import path from 'node:path';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';

/** Home's `d` outside a Dressage checkout: the offline demo, which then opens the console on its sample workspace. */
export function runDemoInstead(global: GlobalOptions): Promise<number> {
  process.stdout.write('Starting the offline demo (a sample workspace on local sandboxes)…\n');
  return demoCommand({
    command: ['demo'],
    positionals: [],
    options: {},
    global: { ...global, provider: 'local' },
    paths: recipePaths(global.workspace),
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    signal: new AbortController().signal,
  });
}

export async function demoCommand(ctx: CommandContext): Promise<number> {
  const dirOpt = optString(ctx, 'dir');
  const workspace = dirOpt ? path.resolve(dirOpt) : await mkdtemp(path.join(tmpdir(), 'swegym-sample-workspace-'));
  const concurrency = optInt(ctx, 'concurrency', 2);
  note(ctx, SAMPLE_LABEL);
  // The demo always runs on the local provider (offline, without an E2B key), in the registry of its own workspace.
  const sample = commandRegistry({ ...ctx, global: { ...ctx.global, workspace, provider: 'local' }, paths: recipePaths(workspace) });
  // In a terminal the console opens afterwards: the Claude Code step runs there, live on the Validate screen.
  const inConsole = !ctx.global.json && Boolean(process.stdout.isTTY && process.stdin.isTTY) && ctx.stdout === process.stdout;
  const summary = await (await sample.jobs('demo')).demo({
    concurrency,
    signal: ctx.signal,
    agentInConsole: inConsole,
    onLine: (l) => (l.startsWith('SCRIPTED') || l.startsWith('  agent:') ? note(ctx, l) : undefined),
    onStep: (s) => note(ctx, 'running' in s ? `== ${s.title}…` : `${s.ok ? 'ok  ' : 'FAIL'} ${s.title}: ${s.detail} (${formatDuration(s.durationMs)})`),
    onResult: (r) => note(ctx, `     ${r.ok ? 'ok  ' : 'FAIL'} ${r.instance_id}${r.error ? `: ${r.error}` : ''}`),
  }).catch((err: unknown) => {
    throw sandboxConsoleError(err, 'the demo stopped');
  });
  if (ctx.global.json) writeJson(ctx, summary);
  else {
    say(ctx, `\n${SAMPLE_LABEL}`);
    say(ctx, `workspace: ${summary.workspace}`);
    for (const s of summary.steps) say(ctx, `${s.ok ? 'ok  ' : 'FAIL'} ${s.title}: ${s.detail}`);
    say(ctx, summary.ok ? '\nThe sample recipe works end to end on this machine. Open it: swegym-console -w ' + summary.workspace + ' --provider local' : '\nSome steps failed (see above).');
    // In a terminal, continue in the console on the sample workspace (its screens read what the demo wrote), with
    // a simulated training run playing in the dashboard (7), labelled as simulated there.
    if (process.stdout.isTTY && process.stdin.isTTY && !ctx.signal.aborted && ctx.stdout === process.stdout) {
      const simulation = await startDemoSimulation(summary.workspace).catch((err: unknown) => {
        note(ctx, `the simulated run for the dashboard did not start: ${(err as Error).message}`);
        return undefined;
      });
      try {
        const { startInteractive } = await import('../interactive.js');
        const code = await startInteractive(
          { ...ctx.global, workspace: summary.workspace, provider: 'local' },
          { monitorTarget: simulation?.dir, runDemo: () => runDemoInstead(ctx.global), ...(summary.agentInConsole ? { startAgent: summary.agentInConsole } : {}) },
        );
        return summary.ok ? code : ExitCode.failed;
      } finally {
        await simulation?.stop();
      }
    }
    say(ctx, 'A simulated training run to watch (labelled as such): swegym-console simulate DIR --live, then swegym-console monitor DIR');
  }
  return summary.ok ? ExitCode.ok : ExitCode.failed;
}
