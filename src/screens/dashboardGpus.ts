// The GPUs panel: every node of the run's Ray cluster (or this node's nvidia-smi, labelled as one node's), grouped
// by node; per GPU a utilisation bar and a memory bar on a stated scale, temperature, power and its utilisation
// history. When not every GPU fits, the panel says how many are hidden. Pure: snapshot + size → lines.
import type { MonitorSnapshot } from '../state/monitor.js';
import type { Tone } from '../ui/theme.js';
import type { GpuNodeView, GpuRowView } from '../services/monitor/clusterGpus.js';
import { sparkline } from '../ui/charts.js';
import { padEnd, padStart, truncate } from '../ui/text.js';
import { GPU_THRESHOLDS } from '../services/monitor/gpu.js';
import { runEnded } from './dashboardHeader.js';

export type GpuLine = { text: string; tone?: Tone; bold?: boolean };

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** A bar of `width` cells for `pct` (0–100) in eighth blocks; empty cells are `·` so the scale shows without colour. */
export function bar(pct: number | undefined, width: number): string {
  if (pct === undefined || !Number.isFinite(pct)) return padEnd('–', width);
  const cells = (Math.min(100, Math.max(0, pct)) / 100) * width;
  const full = Math.floor(cells);
  const part = EIGHTHS[Math.round((cells - full) * 8)] ?? '';
  const s = '█'.repeat(full) + (full < width ? part : '');
  return s + '·'.repeat(Math.max(0, width - [...s].length));
}

const gib = (mib: number | undefined) => (mib === undefined ? '–' : String(Math.round(mib / 1024)));

function gpuRow(g: GpuRowView, width: number, label: string, labelW: number): GpuLine {
  const x = g.sample;
  const memPct = x.memTotal && x.memUsed !== undefined ? (x.memUsed / x.memTotal) * 100 : undefined;
  const T = GPU_THRESHOLDS;
  const tone: Tone = (x.temp ?? 0) >= T.tempFail ? 'fail' : (x.temp ?? 0) >= T.tempWarn || (memPct ?? 0) >= T.memWarnPct ? 'warn' : x.util !== undefined && x.util < T.utilIdle ? 'dim' : 'ok';
  const barW = width >= 76 ? 10 : 6;
  const power = width >= 56 ? ` ${padStart(x.power === undefined ? '–' : `${Math.round(x.power)}W`, 4)}` : '';
  const head = `${padStart(label, labelW)} ${bar(x.util, barW)} ${padStart(x.util === undefined ? '–' : `${Math.round(x.util)}%`, 4)}  ${bar(memPct, barW)} ${padStart(`${gib(x.memUsed)}/${gib(x.memTotal)}G`, 8)} ${padStart(x.temp === undefined ? '–' : `${x.temp}C`, 3)}${power} `;
  const room = Math.max(0, width - [...head].length);
  return { text: head + sparkline(g.util.slice(-room), Math.min(room, g.util.length), { min: 0, max: 100 }), tone };
}

function avg(xs: (number | undefined)[]): number | undefined {
  const f = xs.filter((v): v is number => v !== undefined && Number.isFinite(v));
  return f.length ? f.reduce((a, b) => a + b, 0) / f.length : undefined;
}

function nodeHeading(n: GpuNodeView, prefix: string): GpuLine {
  const u = avg(n.gpus.map((g) => g.sample.util));
  const used = n.gpus.reduce((a, g) => a + (g.sample.memUsed ?? 0), 0);
  const cap = n.gpus.reduce((a, g) => a + (g.sample.memTotal ?? 0), 0);
  // Every GPU of the node in one cell each (utilisation now), so the whole cluster shows even when rows are hidden.
  const cells = n.gpus.map((g) => (g.sample.util === undefined ? '?' : sparkline([g.sample.util], 1, { min: 0, max: 100 }))).join('');
  const alive = n.state === 'ALIVE' || n.state === 'local';
  // Fixed widths for what changes every poll, so 99% → 100% repaints those cells, not the rest of the row.
  const util = padStart(u === undefined ? '–' : `${Math.round(u)}%`, 4);
  const capacity = gib(cap);
  return {
    // A node that is not ALIVE says so before anything else; an alive one does not repeat it.
    text: `${prefix}${n.label}${n.isHead ? ' (head)' : ''}${alive ? '' : ` ${n.state}`} ${cells} util ${util} · mem ${padStart(gib(used), capacity.length)}/${capacity}G · ${n.gpus.length} GPUs${n.ip && n.ip !== n.label ? ` · ${n.ip}` : ''}`,
    tone: alive ? 'accent' : 'fail',
  };
}

/** Title, scale, then per node a heading and one row per GPU; `… N of M GPUs hidden` when they do not all fit. */
export function gpuPanelLines(s: MonitorSnapshot, width: number, height: number, focused: boolean): GpuLine[] {
  const v = s.gpuPanel;
  const p = s.proxy;
  // A run that ended took its proxy with it: that is expected, not an alarm.
  const ended = runEnded(s);
  const proxy = p.url ? (p.last ? (p.last.ok ? `proxy ok · ${p.last.activeSessions ?? '?'} sessions${p.last.paused ? ' · paused' : ''}` : ended ? 'proxy gone (the run ended)' : `proxy DOWN (${p.last.error ?? ''})`) : 'proxy: checking…') : 'proxy: URL unknown';
  const title: GpuLine = { text: `${focused ? '▸ ' : '  '}GPUs — ${v.label} · ${proxy}`, tone: p.url && p.last && !p.last.ok && !ended ? 'fail' : focused ? 'accent' : 'plain', bold: true };
  const lines: GpuLine[] = [title];
  if (v.note) lines.push({ text: `  ${v.note}`, tone: 'dim' });
  const total = v.nodes.reduce((a, n) => a + n.gpus.length, 0);
  if (total === 0) {
    if (!v.note) lines.push({ text: '  no GPU reading yet', tone: 'dim' });
    return lines.slice(0, height).map((l) => ({ ...l, text: truncate(l.text, width) }));
  }
  const barW = width >= 76 ? 10 : 6;
  const budgetNow = height - lines.length - 1;
  const multi = v.nodes.length > 1 || v.source === 'ray';
  const compact = total + (multi ? v.nodes.length : 0) > budgetNow;
  const labelW = compact && multi ? 4 : 2;
  lines.push({ text: `${' '.repeat(labelW + 1)}${padEnd('util 0–100%', barW + 5)}  ${padEnd('mem used/total', barW + 9)} temp${width >= 56 ? ' power' : ''} · ${v.columnSeconds} s/col →`, tone: 'dim' });
  // Rows left for node headings and GPUs. When all fit: each node's heading, then its GPUs. When not: every node's
  // heading first (its cells show each GPU's utilisation), then GPU rows as room allows (n<node>:<gpu>), and a count
  // of the hidden ones.
  const budget = height - lines.length;
  const headings = multi ? v.nodes.map((n, k) => nodeHeading(n, compact ? `n${k} ` : '')) : [];
  let shown = 0;
  const body: GpuLine[] = [];
  if (!compact) {
    v.nodes.forEach((n, k) => {
      if (multi) body.push(headings[k] as GpuLine);
      for (const g of n.gpus) {
        body.push(gpuRow(g, width, String(g.sample.index), labelW));
        shown++;
      }
    });
  } else {
    body.push(...headings.slice(0, Math.max(0, budget - 1)));
    const room = budget - body.length - 1;
    v.nodes.forEach((n, k) => {
      for (const g of n.gpus) {
        if (shown >= room) return;
        body.push(gpuRow(g, width, multi ? `n${k}:${g.sample.index}` : String(g.sample.index), labelW));
        shown++;
      }
    });
  }
  lines.push(...body);
  if (shown < total) lines.push({ text: `… ${total - shown} of ${total} GPUs hidden (${v.nodes.length} node${v.nodes.length === 1 ? '' : 's'}) — Enter lists every GPU`, tone: 'warn' });
  return lines.slice(0, height).map((l) => ({ ...l, text: truncate(l.text, width) }));
}

/** The drill-in: every GPU of every node, one line each. */
export function gpuDetailLines(s: MonitorSnapshot): GpuLine[] {
  const v = s.gpuPanel;
  const out: GpuLine[] = [{ text: `GPUs — ${v.label}`, tone: 'accent' }];
  if (v.note) out.push({ text: v.note, tone: 'dim' });
  for (const n of v.nodes) {
    out.push({ text: `node ${n.label}${n.ip ? ` ${n.ip}` : ''}${n.isHead ? ' (head)' : ''} ${n.state}`, tone: n.state === 'ALIVE' || n.state === 'local' ? 'ok' : 'fail' });
    for (const { sample: g } of n.gpus) out.push({ text: `  GPU ${g.index} ${g.name} · util ${g.util ?? '–'}% · mem ${g.memUsed ?? '–'}/${g.memTotal ?? '–'} MiB · ${g.temp ?? '–'}C · ${g.power ?? '–'}/${g.powerLimit ?? '–'} W${g.pstate ? ` · ${g.pstate}` : ''}` });
  }
  return out;
}
