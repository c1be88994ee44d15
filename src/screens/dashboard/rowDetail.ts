// `v` on the dashboard: the selected row of the focused panel whole, wrapped, in the detail view (a row cut with
// "…" in its panel is readable here). On the charts panel: the header, every alert and every chart's title whole.
import type { MonitorSnapshot, MonitorState } from '../../state/monitor.js';
import type { DetailContent } from '../../state/app.js';
import { fmtNum } from '../../ui/charts.js';
import { formatAge } from '../../services/util/format.js';
import { lastFinite } from '../../ui/Chart.js';
import { headerLines } from '../dashboardHeader.js';
import { gpuDetailLines } from '../dashboardGpus.js';
import { feedRows, pct, sandboxRows, selectedIndex, taskRows, trajRows, type PanelName } from './panelRows.js';

type DetailLine = DetailContent['lines'][number];

function runSummary(s: MonitorSnapshot): DetailContent {
  const lines: DetailLine[] = headerLines(s, Infinity).map((l) => ({ text: l.text, tone: l.tone }));
  const l = s.header.liveness;
  if (l) lines.push({ text: `why ${l.state}: ${l.why}`, tone: 'dim' });
  lines.push({ text: '' });
  if (s.alerts.length === 0) lines.push({ text: 'no alerts', tone: 'dim' });
  for (const a of s.alerts) lines.push({ text: `⚠ ${a.text}`, tone: a.level === 'fail' ? 'fail' : 'warn' });
  lines.push({ text: '' });
  lines.push({ text: 'charts (last value · key):', tone: 'accent' });
  for (const c of s.charts) lines.push({ text: `  ${c.label} ${fmtNum(lastFinite(c.y))} · ${c.key}` });
  return { title: 'Run', lines: [{ text: `run ${s.header.run}` }, ...lines] };
}

/** The detail view of the focused panel's selected row; undefined when the panel has no row. */
export function rowDetail(s: MonitorSnapshot, ui: MonitorState, panel: PanelName): DetailContent | undefined {
  switch (panel) {
    case 'charts':
      return runSummary(s);
    case 'rollouts': {
      const r = s.rollouts[selectedIndex(ui, s, 'rollouts')];
      if (!r) return undefined;
      return {
        title: `Rollout ${r.rollout}`,
        lines: [
          { text: `samples ${r.samples} · solved ${pct(r.resolved)} · trajectory mean ${fmtNum(r.rawTrajMean)}` },
          { text: `zero-std groups ${r.zeroStd} · failed groups ${r.failedGroups} · aborted samples ${r.aborted} · early stops ${r.earlyStops}`, tone: r.failedGroups || r.aborted ? 'warn' : 'plain' },
          { text: `failure reasons (most frequent first, reason:count): ${r.topReasons || '(none)'}` },
          { text: '' },
          { text: 'Enter on the row: its groups and the failures logged during it', tone: 'dim' },
        ],
      };
    }
    case 'samples': {
      const f = feedRows(s, ui.filter)[selectedIndex(ui, s, 'samples')];
      if (!f) return undefined;
      return {
        title: `Sample · rollout ${f.rollout}`,
        lines: [
          { text: `${f.reward === 1 ? '✓ solved' : f.integrity ? '! integrity violation' : '✗ not solved'} · reward=${f.reward} raw=${f.raw} integrity=${f.integrity}`, tone: f.integrity ? 'fail' : f.reward === 1 ? 'ok' : 'warn' },
          { text: `instance ${f.instance}` },
          { text: `fail-to-pass ${f.f2p} · pass-to-pass ${f.p2p}` },
          { text: `reason: ${f.reason || '(none)'}` },
          ...(f.at !== undefined ? [{ text: `logged ${new Date(f.at).toISOString()}`, tone: 'dim' as const }] : []),
          { text: '' },
          { text: 'Enter on the row: every sample of this task', tone: 'dim' },
        ],
      };
    }
    case 'sandboxes': {
      const r = sandboxRows(s, ui.filter)[selectedIndex(ui, s, 'sandboxes')];
      if (!r) return undefined;
      return {
        title: 'Sandbox',
        lines: [
          { text: `id ${r.id}` },
          { text: `${r.kind} sandbox · template ${r.template}` },
          { text: `trajectory_id ${r.trajectoryId || '–'}` },
          { text: `age ${r.ageMs === undefined ? '?' : formatAge(r.ageMs)}${r.startedAt ? ` · started ${new Date(r.startedAt).toISOString()}` : ''}${r.endAt ? ` · ends ${new Date(r.endAt).toISOString()}` : ''}` },
          ...(r.kind === 'agent' ? [{ text: `steps ${r.steps ?? '?'}/80 · ${r.ending ? `ended: ${r.ending}` : `last tool call: ${r.lastTool ?? '–'}`}${r.agentStatus ? ` · Claude Code ${r.agentStatus}, ${r.toolCalls ?? 0} tool call(s) in its whole log` : ''}`, tone: r.ending ? ('fail' as const) : ('plain' as const) }] : []),
          { text: '' },
          { text: 'Enter on the row: its Claude Code log, followed', tone: 'dim' },
        ],
        ...(r.kind === 'agent' ? { copy: { label: 'follow its log in a shell', text: `swegym-console agent-log ${r.id} --follow` } } : {}),
      };
    }
    case 'gpus':
      return { title: 'GPUs', lines: gpuDetailLines(s).map((l) => ({ text: l.text, tone: l.tone })) };
    case 'tasks': {
      const t = taskRows(s, ui.filter)[selectedIndex(ui, s, 'tasks')];
      if (!t) return undefined;
      return {
        title: 'Task',
        lines: [
          { text: `instance ${t.instance}` },
          { text: `solved ${t.solved} of ${t.attempts} attempts across finished rollouts` },
          { text: `history, oldest → newest (█ all solved, ▄ some, · none): ${t.recent}` },
        ],
      };
    }
    case 'trajectories': {
      const t = trajRows(s, ui.filter)[selectedIndex(ui, s, 'trajectories')];
      if (!t) return undefined;
      return {
        title: t.kind === 'error' ? 'Aborted sample' : 'Trajectory',
        lines: [{ text: `instance ${t.instance}` }, { text: `session ${t.session}` }, { text: `written ${new Date(t.mtimeMs).toISOString()}`, tone: 'dim' }, { text: '' }, { text: 'Enter on the row: its messages, tool calls and patch', tone: 'dim' }],
        copy: { label: 'its directory', text: t.dir },
      };
    }
  }
}
