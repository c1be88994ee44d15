// `swegym-console report [RUN|RUN_DIR|LOG_FILE] -o run.html`: one self-contained HTML page of the run to share:
// curves (raw + EMA on the rollout axis), reward per group, failure reasons per rollout, the per-task solve table,
// the E2B cost so far and the launch settings (secrets masked). Read from the model `monitor --once --json` prints.
import path from 'node:path';
import type { CommandContext } from '../context.js';
import { optString, say, note, writeJson } from '../context.js';
import { usageError } from '../../services/errors.js';
import { resolveMonitorTarget } from '../../services/monitor/resolve.js';
import { assertRunLog } from '../../services/monitor/runLogCheck.js';
import { buildReportData, readRunModel } from '../../services/report/data.js';
import { loadChartLibrary, renderReportHtml } from '../../services/report/html.js';
import { writeFileAtomic } from '../../services/workspace/atomic.js';
import { ExitCode } from '../../services/errors.js';
import { setting } from '../../services/config/envSettings.js';

export async function reportCommand(ctx: CommandContext): Promise<number> {
  if (ctx.positionals.length > 1) throw usageError('report takes at most one RUN, RUN_DIR or LOG_FILE', 'swegym-console report [RUN|RUN_DIR|LOG_FILE] -o run.html');
  const output = optString(ctx, 'output');
  if (output !== undefined && !output.trim()) throw usageError('-o needs a file name', 'swegym-console report RUN -o run.html');
  const target = await resolveMonitorTarget(ctx.positionals[0], ctx.paths);
  if (target.source === 'log-file' && target.logFile) await assertRunLog(target.logFile);
  const file = path.resolve(ctx.paths.root, output ?? `${target.name.replace(/[^A-Za-z0-9._-]/g, '_')}.html`);
  // The library first: a missing install fails before a long read.
  const lib = await loadChartLibrary();
  if (!ctx.global.json) note(ctx, `reading ${target.logFile ?? `ray job ${target.rayJob ?? target.name}`}`);
  const model = await readRunModel(target, { cwd: ctx.paths.root, signal: ctx.signal, rayBin: setting(ctx.env, 'SWEGYM_RAY_BIN') });
  const data = await buildReportData(target, model, { paths: ctx.paths, env: ctx.env });
  const html = renderReportHtml(data, lib);
  await writeFileAtomic(file, html);
  if (ctx.global.json) {
    writeJson(ctx, { file, bytes: Buffer.byteLength(html), run: data.run, rollouts: data.counts.rollouts, steps: data.counts.steps, samples: data.samples.total, tasks: data.tasks.seen, cost_usd: data.cost.usd });
  } else {
    say(ctx, `wrote ${file} (${Math.round(Buffer.byteLength(html) / 1024)} KiB): ${data.counts.rollouts} rollouts, ${data.samples.total} graded samples, ${data.tasks.seen} tasks, E2B ≈ $${data.cost.usd.toFixed(2)} so far`);
    say(ctx, 'self-contained: open it in any browser, offline; attach it or mail it as it is');
  }
  return ExitCode.ok;
}
