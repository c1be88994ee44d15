// The run report as one self-contained HTML file: the tables are written here, the charts are drawn in the browser
// by uPlot (inlined, with its stylesheet), from the report's data inlined as JSON. Nothing is fetched: the file can
// be mailed, attached to an issue or opened offline. The page writes what it drew into #report-drawn (a test reads it).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { ConsoleError, ExitCode } from '../errors.js';
import type { ReportData } from './data.js';

export interface ChartLibrary {
  js: string;
  css: string;
  version: string;
}

/** uPlot's browser build and stylesheet, from the installed package (a dependency of the console). */
export async function loadChartLibrary(): Promise<ChartLibrary> {
  try {
    const req = createRequire(import.meta.url);
    const [js, css, pkg] = await Promise.all([
      readFile(req.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
      readFile(req.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
      readFile(req.resolve('uplot/package.json'), 'utf8'),
    ]);
    return { js, css, version: String((JSON.parse(pkg) as { version?: unknown }).version ?? '?') };
  } catch (err) {
    throw new ConsoleError({
      what: 'The chart library of the report (uPlot) is not installed.',
      cause: (err as Error).message,
      fix: 'Run npm install in the swegym-console checkout.',
      exitCode: ExitCode.precondition,
      inner: err,
    });
  }
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** JSON placed inside <script type="application/json">: every `<` escaped, so nothing in it can close the element. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** Code or CSS placed inside <script>/<style>: a closing tag in it (in a string) is split so that it stays text. */
function inlineSafe(text: string, tag: 'script' | 'style'): string {
  return text.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1');
}

const int = (n: number) => n.toLocaleString('en-US');
const pct = (a: number, b: number) => (b > 0 ? `${((100 * a) / b).toFixed(1)}%` : '–');

function table(head: string[], rows: (string | number)[][], attrs = ''): string {
  const th = head.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const tr = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(typeof c === 'number' ? int(c) : c)}</td>`).join('')}</tr>`).join('\n');
  return `<table${attrs}><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

/** A summary cell carrying its raw number in data-value (the page's numbers, read back by the test). */
function stat(id: string, label: string, value: number, shown = int(value)): string {
  return `<div class="stat"><div class="label">${escapeHtml(label)}</div><div class="value" id="${id}" data-value="${value}">${escapeHtml(shown)}</div></div>`;
}

export function renderReportHtml(data: ReportData, lib: ChartLibrary): string {
  const s = data.samples;
  const title = `${data.run.name} — run report`;
  const simulated = data.run.simulated ? `<p class="sim">SIMULATED: written by the console's run simulator, not training output.</p>` : '';
  const lastGroups = data.groups.last;
  const settings = data.settings;
  const effectiveRows = Object.entries(settings.effective).flatMap(([name, values]) => Object.entries(values).map(([k, v]) => [`effective_${name}`, k, v]));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="swegym-console report (uPlot ${escapeHtml(lib.version)})">
<title>${escapeHtml(title)}</title>
<style>${inlineSafe(lib.css, 'style')}</style>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1b1f24; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; }
.meta { color: #57606a; } .sim { background: #fff3cd; padding: 6px 10px; display: inline-block; }
.stats { display: flex; flex-wrap: wrap; gap: 12px; } .stat { border: 1px solid #ddd; border-radius: 6px; padding: 6px 12px; }
.stat .label { color: #57606a; font-size: 12px; } .stat .value { font-size: 18px; font-variant-numeric: tabular-nums; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; } .chart { min-width: 420px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; } td, th { padding: 2px 10px; border-bottom: 1px solid #eee; text-align: left; }
.scroll { max-height: 480px; overflow: auto; display: inline-block; } .note { color: #57606a; font-size: 12px; }
</style>
</head>
<body>
<h1>${escapeHtml(data.run.name)}</h1>
${simulated}
<p class="meta">phase: <span id="report-phase">${escapeHtml(data.run.phase)}</span> · generated ${escapeHtml(data.generatedAt)} by swegym-console${data.run.log ? ` · log ${escapeHtml(data.run.log)}` : ''}</p>
<div class="stats">
${stat('stat-rollouts', 'rollouts', data.counts.rollouts)}
${stat('stat-steps', 'train steps', data.counts.steps)}
${stat('stat-samples', 'graded samples', s.total)}
${stat('stat-reward-one', 'reward = 1', s.reward_one, `${int(s.reward_one)} (${pct(s.reward_one, s.total)})`)}
${stat('stat-raw-one', 'raw reward = 1', s.raw_one)}
${stat('stat-integrity', 'integrity violations', s.integrity_violations)}
${stat('stat-in-progress', `rollout ${data.inProgress.rollout} in progress: samples`, data.inProgress.samples.total)}
${stat('stat-cost', 'E2B cost so far (estimate, USD)', Math.round(data.cost.usd * 100) / 100, `$${data.cost.usd.toFixed(2)}`)}
</div>

<h2>Curves</h2>
<p>Smoothing (EMA, as W&amp;B's slider) <input id="smoothing" type="range" min="0" max="0.99" step="0.01" value="0.6"> <span id="smoothing-value">0.6</span>
<span class="note">· raw values faint, EMA bold · x: rollout (train steps at step ÷ steps per rollout)</span></p>
<div class="charts" id="curves"></div>

<h2>Reward per group</h2>
<p class="note">A GRPO group is one task's samples in a rollout. Groups whose samples all scored the same (all solved, none solved) have zero advantage and teach nothing.</p>
<div class="charts"><div class="chart" id="chart-groups"></div><div class="chart" id="chart-group-reward"></div></div>
${lastGroups ? `<p>Groups of rollout ${lastGroups.rollout}:</p>\n<div class="scroll">${table(['task', 'samples', 'solved', 'reward'], lastGroups.groups.map((g) => [g.instance, g.n, g.solved, g.n > 0 ? (g.solved / g.n).toFixed(3) : '–']), ' id="last-groups"')}</div>` : '<p>No per-sample reward lines were logged.</p>'}

<h2>Failure reasons over time</h2>
<p class="note">Graded samples that did not resolve, per reason and rollout (the reward lines' reasons), and samples aborted before grading.</p>
<div class="charts"><div class="chart" id="chart-reasons"></div></div>
${table(['reason', 'samples'], Object.entries(s.by_reason).sort((a, b) => b[1] - a[1]).map(([r, n]) => [r || '(resolved)', n]), ' id="reasons-total"')}

<h2>Tasks</h2>
<p>seen <span id="tasks-seen">${int(data.tasks.seen)}</span> · solved always ${int(data.tasks.always)} · sometimes ${int(data.tasks.sometimes)} · never ${int(data.tasks.never)}${data.tasks.rows.length < data.tasks.seen ? ` · the ${int(data.tasks.rows.length)} most attempted listed` : ''}</p>
<div class="scroll">${table(['task', 'attempts', 'solved', 'solve rate'], data.tasks.rows.map((t) => [t.instance, t.attempts, t.solved, pct(t.solved, t.attempts)]), ' id="tasks"')}</div>

<h2>E2B cost so far</h2>
<p>≈ <b>$${data.cost.usd.toFixed(2)}</b> for ${data.cost.sandboxHours.toFixed(1)} sandbox-hours: ${int(data.cost.samples)} samples × (${data.cost.agentMinutes} agent min + 2 × ${data.cost.evalMinutes} eval min) at $${data.cost.pricePerSandboxHour}/sandbox-hour (${data.cost.from === 'launch settings' ? "the run's launch settings" : "the console's defaults"}: SWEGYM_CONSOLE_AGENT_MINUTES, SWEGYM_CONSOLE_EVAL_MINUTES, SWEGYM_CONSOLE_E2B_PRICE_PER_SANDBOX_HOUR).
<span class="note">An estimate; E2B bills per second of each sandbox's life: its dashboard (Usage) has the bill.</span></p>

<h2>Launch settings</h2>
${settings.rows.length ? `<div class="scroll">${table(['setting', 'value', 'from'], settings.rows.map((r) => [r.key, r.value, r.source]), ' id="settings"')}</div>` : "<p>The run was not launched through the console's registry: the launcher's own summary lines follow.</p>"}
${effectiveRows.length ? `<p>What the launcher printed (effective_*):</p>\n${table(['line', 'key', 'value'], effectiveRows, ' id="effective"')}` : ''}
<p class="note">Secret values are masked (****).</p>

<pre id="report-drawn" hidden></pre>
<script type="application/json" id="report-data">${jsonForScript(data)}</script>
<script>${inlineSafe(lib.js, 'script')}</script>
<script>${inlineSafe(PAGE_SCRIPT, 'script')}</script>
</body>
</html>
`;
}

/** The page's own script (plain ES2017, runs in the browser). */
const PAGE_SCRIPT = String.raw`
(function () {
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
  var drawn = {};
  var charts = [];
  function nums(a) { return a.map(function (v) { return v === null ? null : v; }); }
  // The dashboard's EMA (src/ui/charts.ts): debiased, gaps stay gaps and do not reset the average.
  function ema(values, w) {
    if (!(w > 0)) return values.slice();
    var out = new Array(values.length), acc, debias = 0;
    for (var i = 0; i < values.length; i++) {
      var v = values[i];
      if (v === null || !isFinite(v)) { out[i] = null; continue; }
      acc = acc === undefined ? v * (1 - w) : acc * w + v * (1 - w);
      debias = debias * w + (1 - w);
      out[i] = acc / debias;
    }
    return out;
  }
  // Axis numbers in at most ~6 characters: 13.1k, 2.35e-5 (uPlot's own format clips large and rounds tiny values to 0).
  function short(v) {
    if (v === null || !isFinite(v)) return '';
    var a = Math.abs(v);
    if (a === 0) return '0';
    if (a >= 1e6) return Number((v / 1e6).toPrecision(3)) + 'M';
    if (a >= 1e4) return Number((v / 1e3).toPrecision(3)) + 'k';
    if (a < 1e-3) return v.toExponential(2);
    return String(Number(v.toPrecision(3)));
  }
  function width(el) { return Math.max(420, Math.min(640, (el.parentNode.clientWidth || 900) / 2 - 16)); }
  function chart(id, title, x, series, opts) {
    var el = document.getElementById(id);
    drawn[id] = { title: title, series: series.map(function (s) { return s.label; }), drawn: [], points: series.map(function (s) { return s.data.filter(function (v) { return v !== null; }).length; }) };
    var u = new uPlot({
      title: title,
      width: width(el),
      height: 240,
      scales: { x: { time: false } },
      axes: [{ label: 'rollout' }, { size: 64, values: function (u, ticks) { return ticks.map(short); } }],
      series: [{ label: 'rollout' }].concat(series.map(function (s) {
        return { label: s.label, stroke: s.stroke, width: s.width || 1.5, points: { show: s.points !== undefined ? s.points : x.length < 60 }, spanGaps: false };
      })),
      hooks: {
        drawSeries: [function (u, si) { var d = drawn[id].drawn; if (d.indexOf(si) < 0) d.push(si); }],
        draw: [function () { publish(); }],
      },
    }, [x].concat(series.map(function (s) { return s.data; })), el);
    charts.push({ u: u, opts: opts || {} });
    return u;
  }
  function publish() {
    var out = {};
    Object.keys(drawn).forEach(function (k) { var d = drawn[k]; out[k] = { title: d.title, series: d.series.length, drawn: d.drawn.length, points: d.points }; });
    document.getElementById('report-drawn').textContent = JSON.stringify(out);
  }

  var curves = document.getElementById('curves');
  var curveCharts = [];
  data.curves.forEach(function (c, i) {
    var div = document.createElement('div');
    div.className = 'chart';
    div.id = 'chart-curve-' + i;
    curves.appendChild(div);
    var raw = nums(c.y);
    var u = chart(div.id, c.label + ' (' + c.key + ')', c.x, [
      { label: 'raw', data: raw, stroke: 'rgba(31,119,180,0.35)', width: 1 },
      { label: 'EMA', data: ema(raw, 0.6), stroke: '#1f77b4', width: 2, points: false },
    ]);
    curveCharts.push({ u: u, x: c.x, raw: raw });
  });
  var slider = document.getElementById('smoothing');
  slider.addEventListener('input', function () {
    var w = Number(slider.value);
    document.getElementById('smoothing-value').textContent = w.toFixed(2);
    curveCharts.forEach(function (c) { c.u.setData([c.x, c.raw, ema(c.raw, w)]); });
  });

  var g = data.groups;
  chart('chart-groups', 'groups per rollout by outcome', g.x, [
    { label: 'all solved', data: g.allSolved, stroke: PALETTE[2] },
    { label: 'mixed (learns)', data: g.mixed, stroke: PALETTE[0] },
    { label: 'none solved', data: g.noneSolved, stroke: PALETTE[1] },
  ]);
  chart('chart-group-reward', 'mean reward over the groups\' samples', g.x, [{ label: 'mean reward', data: nums(g.meanReward), stroke: PALETTE[4] }]);

  var r = data.reasons;
  var reasonSeries = r.series.map(function (s, i) { return { label: s.reason, data: s.counts, stroke: PALETTE[i % PALETTE.length] }; });
  reasonSeries.push({ label: 'aborted before grading', data: r.aborted, stroke: '#000' });
  chart('chart-reasons', 'failure reasons per rollout (samples)', r.x, reasonSeries);
  publish();
})();
`;
