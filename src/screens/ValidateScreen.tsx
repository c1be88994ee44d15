// Validate: the result matrix of harness validation, one row per task of the JSONL: gold arm (gold patch → must
// resolve) and control arm (untouched repo → must not), F2P/P2P counts, verdict and time; the selected task's
// failure and harness output below. e validates the selected task, b all, F the failing ones, x stops; v shows a row whole.
// w runs `validate agent` on the selected task (the real Claude Code CLI in a local sandbox); its live progress and
// graded result show in the Claude Code panel, which the demo inside the console uses too.
import React, { useEffect } from 'react';
import { Box } from 'ink';
import type { ScreenModule, ScreenProps } from './types.js';
import type { AppServices } from '../services/registry/appServices.js';
import { useSel } from '../ui/hooks.js';
import { T, type Tone } from '../ui/theme.js';
import { truncate } from '../ui/text.js';
import { Lines } from '../ui/Lines.js';
import { Table, type Column } from '../ui/Table.js';
import { intent, shared, type Binding } from '../ui/keymap.js';
import type { DetailContent } from '../state/app.js';
import { ProgressBar } from '../ui/ProgressBar.js';
import { validateCounts, visibleValidateRows, type ValidateRow } from '../state/validate.js';
import type { MarkerJson } from '../services/validate/harness.js';
import type { AgentRunRecord, ValidateAgentView } from '../state/types/validate.js';
import { agentProgressText, agentResultText } from '../services/validate/agentRecord.js';

const STATUS_SYMBOL: Record<ValidateRow['status'], string> = { untested: '·', queued: '…', running: '▶', ok: '✓', failed: '✗' };
const STATUS_TONE: Record<ValidateRow['status'], Tone> = { untested: 'dim', queued: 'dim', running: 'info', ok: 'ok', failed: 'fail' };

/** One matrix cell: `✓ 2/2 3/3` (resolved, F2P, P2P), `✗ 0/2 3/3`, a failure reason, or the live phase. */
export function armCell(marker: MarkerJson | undefined, phase: string | undefined, expectResolved: boolean): { text: string; tone: Tone } {
  if (phase && phase !== 'done' && phase !== 'failed') return { text: phase, tone: 'info' };
  if (!marker) return { text: phase === 'failed' ? 'error' : '—', tone: phase === 'failed' ? 'fail' : 'dim' };
  if (marker.parse_failure || marker.fresh_sandbox) return { text: String(marker.failure_reason ?? 'no marker'), tone: 'fail' };
  const resolved = marker.resolved === true;
  const counts = `${marker.fail_to_pass_success ?? '?'}/${marker.fail_to_pass_total ?? '?'} ${marker.pass_to_pass_success ?? '?'}/${marker.pass_to_pass_total ?? '?'}`;
  return { text: `${resolved ? 'R' : 'U'} ${counts}`, tone: resolved === expectResolved ? 'ok' : 'fail' };
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? '' : `${(ms / 1000).toFixed(1)}s`;
}

/** What the detail pane (and the detail view) says of a row: a running row's live phases, never an older result. */
export function validateDetailLines(row: ValidateRow): { text: string; tone: Tone }[] {
  const lines: { text: string; tone: Tone }[] = [];
  if (row.status === 'running' || row.status === 'queued') {
    // Only the live phases: an older result next to "applying" reads as this run's.
    lines.push({ text: `${row.instance_id}: ${row.status} — gold ${row.gold ?? 'queued'}, control ${row.control ?? 'queued'}`, tone: 'info' });
    return lines;
  }
  if (row.result) {
    const r = row.result;
    if (r.error) lines.push({ text: `✗ ${r.error}`, tone: 'fail' });
    else lines.push({ text: `✓ gold resolved, control unresolved — grading works for ${r.instance_id} (${seconds(r.durationMs)}, ${r.validatedAt})`, tone: 'ok' });
    const tail = (label: string, t?: string) => {
      for (const l of (t ?? '').trim().split('\n').filter(Boolean).slice(-2)) lines.push({ text: `${label} ${l}`, tone: 'dim' });
    };
    tail('gold   │', r.goldDetail?.outputTail);
    tail('control│', r.controlDetail?.outputTail);
  } else lines.push({ text: `${row.instance_id}: not validated yet — e validates it (gold patch and untouched repo, each in a fresh sandbox from ${row.template})`, tone: 'dim' });
  return lines;
}

/** The row whole for the detail view: every failure reason and the full output tails. */
function validateDetail(row: ValidateRow): DetailContent {
  const lines: DetailContent['lines'] = [{ text: `template: ${row.template}` }, { text: `status: ${row.status}` }];
  const r = row.result;
  if (r?.error) lines.push({ text: `error: ${r.error}`, tone: 'fail' });
  for (const [label, m] of [['gold', r?.gold], ['control', r?.control]] as const) {
    if (m?.failure_reason) lines.push({ text: `${label} failure reason: ${String(m.failure_reason)}`, tone: 'fail' });
  }
  for (const [label, d] of [['gold', r?.goldDetail], ['control', r?.controlDetail]] as const) {
    if (d?.outputTail?.trim()) lines.push({ text: `${label} output (tail):`, tone: 'accent' }, ...d.outputTail.trim().split('\n').map((t) => ({ text: `  ${t}`, tone: 'dim' as const })));
  }
  if (lines.length === 2) lines.push(...validateDetailLines(row));
  return { title: `Validate — ${row.instance_id}`, lines, copy: { label: 'headless', text: `swegym-console validate harness --instance ${row.instance_id}` } };
}

/**
 * The Claude Code panel: the `validate agent` run started here while it runs (phase, model, the stream-json
 * reader's counts) and its graded result; else the selected task's last recorded run; empty when there is none.
 */
export function agentPanelLines(live: ValidateAgentView | undefined, selectedId: string | undefined, records: Record<string, AgentRunRecord>): { text: string; tone: Tone }[] {
  const view = live && (live.running || live.instanceId === selectedId) ? live : undefined;
  const record = view ? view.record : selectedId ? records[selectedId] : undefined;
  if (!view && !record) return [];
  const id = view?.instanceId ?? record?.instance_id ?? '';
  const lines: { text: string; tone: Tone }[] = [];
  if (view?.running) {
    lines.push({ text: `Claude Code (validate agent) on ${id}: ${view.phase}${view.scripted ? ' · model SCRIPTED: a replay of the gold patch (not a language model)' : view.model ? ` · model ${view.model}` : ''}`, tone: 'accent' });
    lines.push({ text: `  ${view.progress ? agentProgressText(view.progress) : 'no stream-json event yet'}`, tone: 'info' });
    return lines;
  }
  if (view?.error && !record) {
    lines.push({ text: `Claude Code (validate agent) on ${id}: ${view.error}`, tone: view.error === 'stopped' ? 'warn' : 'fail' });
    return lines;
  }
  if (!record) return lines;
  lines.push({ text: `Claude Code (validate agent) on ${id}: ${record.scripted ? 'model SCRIPTED (gold patch replay)' : `model ${record.model}`} · CLI ${record.cliVersion} · ${record.finishedAt}`, tone: 'accent' });
  lines.push({ text: `  ${agentProgressText(record.claudeCode)}${record.claudeCode.cause ? ` — ${record.claudeCode.cause}` : ''}`, tone: 'dim' });
  lines.push({ text: `  graded in a fresh sandbox: ${agentResultText(record)}`, tone: record.resolved ? 'ok' : 'fail' });
  lines.push({ text: `  log: swegym-console agent-log ${record.logFile}`, tone: 'dim' });
  return lines;
}

function Validate({ services, width, height }: ScreenProps) {
  const store = services.validate.store;
  const rows = useSel(store, (s) => s.rows);
  const loading = useSel(store, (s) => s.loading);
  const running = useSel(store, (s) => s.running);
  const selected = useSel(store, (s) => s.selected);
  const onlyFailures = useSel(store, (s) => s.onlyFailures);
  const msg = useSel(store, (s) => s.message);
  const sampleLabel = useSel(store, (s) => s.sampleLabel);
  const progress = useSel(store, (s) => s.progress);
  const agent = useSel(store, (s) => s.agent);
  const agentRuns = useSel(store, (s) => s.agentRuns);

  useEffect(() => {
    void services.validate.controller.refresh();
  }, [services]);

  const visible = visibleValidateRows({ rows, onlyFailures });
  const counts = validateCounts(rows);
  const sel = Math.min(selected, Math.max(0, visible.length - 1));
  const row = visible[sel];
  const detailLines = row ? validateDetailLines(row) : [];
  const agentLines = agentPanelLines(agent, row?.instance_id, agentRuns);
  const detailHeight = Math.min(5, Math.max(0, height - 8));
  const agentHeight = Math.min(agentLines.length, Math.max(0, height - 10 - detailHeight));
  const tableRows = Math.max(1, height - 5 - detailHeight - agentHeight - (msg ? 1 : 0) - (sampleLabel ? 1 : 0) - (running && progress ? 1 : 0));
  const idW = Math.max(18, Math.min(40, Math.floor(width * 0.32)));
  const cellW = 14;
  const columns: Column[] = [
    { width: 2 },
    { header: 'instance', width: idW - 1 },
    { header: 'gold (F2P P2P)', width: cellW },
    { header: 'control', width: cellW },
    { header: 'time', width: 7 },
    { header: 'template', width: 'fill' },
  ];
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {sampleLabel ? <T tone="accent" bold>{truncate(sampleLabel, width)}</T> : null}
      <T tone="dim">{truncate('Proves grading before GPUs: per task, the gold patch must give resolved (reward 1) and the untouched repo must not (reward 0).', width)}</T>
      <T bold>
        {truncate(
          loading
            ? 'reading the JSONL and the journal…'
            : `${rows.length} tasks: ${counts.ok} ✓ validated, ${counts.failed} ✗ failing, ${counts.untested} not run${running ? `, ${counts.running} running, ${counts.queued} queued` : ''}${onlyFailures ? '  [only failures]' : ''}`,
          width,
        )}
      </T>
      {running ? <ProgressBar progress={progress} width={width} label="validating " /> : null}
      {msg ? <T tone={msg.tone === 'error' ? 'fail' : msg.tone === 'warn' ? 'warn' : 'info'}>{truncate(msg.text, width)}</T> : null}
      <Table
        columns={columns}
        width={width}
        height={tableRows + 1}
        selected={sel}
        headerBold={false}
        rows={visible.map((r, idx) => {
          const live = r.status === 'running' || r.status === 'queued';
          const g = live ? armCell(undefined, r.gold, true) : armCell(r.result?.gold, r.gold, true);
          const c = live ? armCell(undefined, r.control, false) : armCell(r.result?.control, r.control, false);
          const tone = STATUS_TONE[r.status];
          return {
            key: r.instance_id,
            cells: [
              { text: `${idx === sel ? '›' : ' '}${STATUS_SYMBOL[r.status]}`, tone },
              { text: r.instance_id, tone },
              g,
              c,
              { text: seconds(live ? undefined : r.result?.durationMs), tone: 'dim' },
              { text: r.template, tone: 'dim' },
            ],
          };
        })}
      />
      {visible.length === 0 && !loading ? <T tone="dim">{rows.length ? 'no failing task' : 'no rows: convert first (4), or run `swegym-console demo` for the sample workspace'}</T> : null}
      <Box flexGrow={1} />
      {agentHeight > 0 ? <Lines lines={agentLines} width={width} height={agentHeight} /> : null}
      <Lines lines={detailLines} width={width} height={detailHeight} />
      <T tone="dim">{truncate('headless: swegym-console validate harness --all --json   (R = resolved, U = unresolved; counts are F2P and P2P passing/expected)', width)}</T>
    </Box>
  );
}

function selectedRow(services: AppServices): ValidateRow | undefined {
  const st = services.validate.store.getState();
  const visible = visibleValidateRows(st);
  return visible[Math.min(st.selected, Math.max(0, visible.length - 1))];
}

export const validateScreen: ScreenModule = {
  id: 'validate',
  title: 'Validate',
  hotkey: '5',
  panels: ['matrix'],
  Component: Validate,
  bindings: (services) => {
    const v = services.validate;
    const st = () => v.store.getState();
    const move = (delta: number) => () => {
      const n = visibleValidateRows(st()).length;
      if (n) st().set({ selected: Math.max(0, Math.min(n - 1, st().selected + delta)) });
    };
    const idle = () => !v.controller.running;
    return [
      shared('up', 'previous task', move(-1)),
      shared('down', 'next task', move(1)),
      shared('pageUp', 'page up', move(-10), { footer: false }),
      shared('pageDown', 'page down', move(10), { footer: false }),
      // Not V: on Convert V verifies a file on disk; this starts sandboxes for a task.
      {
        ...intent('validate.one'),
        short: 'validate one',
        run: () => {
          const row = selectedRow(services);
          if (row) void v.controller.run([row.instance_id]);
        },
        when: idle,
      },
      {
        ...intent('validate.agent'),
        short: 'Claude Code',
        run: () => {
          const row = selectedRow(services);
          if (row) void v.controller.runAgent(row.instance_id);
        },
        when: () => !v.controller.agentRunning,
      },
      shared('view', 'the task whole (reasons, output)', () => {
        const row = selectedRow(services);
        if (row) services.app.getState().openDetail(validateDetail(row));
      }, { short: 'whole' }),
      shared('open', 'drill in: the task whole', () => {
        const row = selectedRow(services);
        if (row) services.app.getState().openDetail(validateDetail(row));
      }, { footer: false }),
      shared('runAll', 'validate all', () => void v.controller.run(), { when: idle }),
      shared(
        'retryFailed',
        'rerun failing',
        () => {
          const ids = st().rows.filter((r) => r.status === 'failed').map((r) => r.instance_id);
          if (ids.length) void v.controller.run(ids);
        },
        { when: idle },
      ),
      { ...intent('validate.onlyFailures'), run: () => st().set({ onlyFailures: !st().onlyFailures, selected: 0 }) },
      shared('stop', 'stop', () => v.controller.stop(), { when: () => v.controller.running || v.controller.agentRunning }),
      shared('refresh', 'refresh', () => void v.controller.refresh()),
    ] satisfies Binding[];
  },
};
