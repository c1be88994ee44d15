// Convert: the converter's flags as a form (recipe defaults), the equivalent manual command, a run of Dressage's
// converter with its output streamed, the verification report and a readable row preview (prompt, tests,
// template, commands). c converts, V verifies the file on disk, p switches output/preview, ←/→ pages rows.
import React, { useEffect } from 'react';
import { Box } from 'ink';
import type { ScreenModule, ScreenProps } from './types.js';
import { useSel } from '../ui/hooks.js';
import { T } from '../ui/theme.js';
import { padEnd, truncate } from '../ui/text.js';
import { formatAge } from '../services/util/format.js';
import { Lines } from '../ui/Lines.js';
import { useTextField } from '../ui/TextField.js';
import { formatBytes } from '../services/util/format.js';
import { intent, shared, type Binding } from '../ui/keymap.js';
import { CONVERT_FIELDS } from '../state/convert.js';
import { previewLines } from '../services/convert/jsonlRows.js';

function Convert({ services, width, height }: ScreenProps) {
  const c = services.convert;
  const store = c.store;
  const form = useSel(store, (s) => s.form);
  const field = useSel(store, (s) => s.field);
  const editing = useSel(store, (s) => s.editing);
  const phase = useSel(store, (s) => s.phase);
  const lines = useSel(store, (s) => s.lines);
  const notices = useSel(store, (s) => s.notices);
  const report = useSel(store, (s) => s.report);
  const previews = useSel(store, (s) => s.previews);
  const previewIndex = useSel(store, (s) => s.previewIndex);
  const view = useSel(store, (s) => s.view);
  const command = useSel(store, (s) => s.command);
  const msg = useSel(store, (s) => s.message);
  const onDisk = useSel(store, (s) => s.onDisk);

  useEffect(() => {
    c.controller.describe();
    // A JSONL from an earlier session or a headless run: its rows, age and first rows, without converting again.
    void c.controller.inspectDisk();
  }, [c]);

  const current = CONVERT_FIELDS[field];
  const leaveField = () => {
    store.getState().set({ editing: false });
    services.app.getState().setInputCaptured(false);
    c.controller.describe();
  };
  const fieldValue = useTextField({
    active: editing,
    value: current ? form[current.key] : '',
    onChange: (value) => {
      const st = store.getState();
      const f = CONVERT_FIELDS[st.field];
      if (f) st.set({ form: { ...st.form, [f.key]: value } });
    },
    onSubmit: leaveField,
    onCancel: leaveField,
    // after "› " and the label column
    room: Math.max(8, width - 23),
  });

  const labelW = 20;
  const formLines = CONVERT_FIELDS.map((f, i) => {
    const sel = i === field;
    const value = sel && editing ? fieldValue : form[f.key] || (f.key === 'limit' ? '(all rows)' : '');
    return { text: `${sel ? '›' : ' '} ${padEnd(f.label, labelW)} ${value}${sel ? `   ${f.hint}` : ''}`, sel };
  });
  const status = phase === 'idle' ? 'not run in this session' : phase;
  const diskLine =
    onDisk === undefined
      ? 'on disk: looking…'
      : onDisk === null
        ? 'on disk: no JSONL yet'
        : `on disk: ${onDisk.rows} rows, ${formatBytes(onDisk.bytes)}, written ${formatAge(Date.now() - onDisk.mtimeMs)} ago${onDisk.staleBecause ? ` — stale: ${onDisk.staleBecause}; convert again` : ' (V verifies it)'}`;
  const reportLine = report
    ? `${report.ok ? '✓' : '✗'} ${report.rows} rows${report.expectedRows !== undefined ? ` (expected ${report.expectedRows})` : ''}${Object.keys(report.counts).length ? ` — problems: ${Object.entries(report.counts).map(([k, n]) => `${k} ${n}`).join(', ')}` : ` — every row parses, no gold patch, templates in the map, commands and ${report.checkedAgainst ?? 'options as requested'}`}`
    : undefined;
  const fixed = 3 + formLines.length + 3 + (msg ? 1 : 0) + Math.min(2, notices.length) + (reportLine ? 1 : 0);
  const panel = Math.max(1, height - fixed);
  let panelLines: { text: string; tone: 'plain' | 'dim' | 'fail' }[];
  if (view === 'preview') {
    const p = previews[previewIndex];
    panelLines = p
      ? [{ text: `row ${previewIndex + 1}/${previews.length} (←/→)`, tone: 'dim' as const }, ...previewLines(p, { problemLines: Math.max(1, panel - 10) }).map((t) => ({ text: t, tone: 'plain' as const }))]
      : [{ text: onDisk === null ? 'no JSONL yet: c converts' : 'no rows to preview yet: convert (c) or verify the file on disk (V)', tone: 'dim' }];
    if (report) for (const pr of report.problems.slice(0, 3)) panelLines.push({ text: `✗ line ${pr.line ?? '-'}${pr.instanceId ? ` ${pr.instanceId}` : ''}: [${pr.check}] ${pr.message}`, tone: 'fail' });
  } else {
    panelLines = lines.length ? lines.slice(-panel).map((t) => ({ text: `| ${t}`, tone: 'dim' as const })) : [{ text: 'converter output appears here', tone: 'dim' }];
  }
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <T tone="dim">{truncate("Runs Dressage's prepare_swegym_data.py with these flags, then verifies every row of the JSONL before anyone trains on it.", width)}</T>
      <T bold>{truncate(`output: data/swegym-train-claude-code-e2b.jsonl · status: ${status}`, width)}</T>
      <T tone={onDisk?.staleBecause ? 'warn' : 'dim'}>{truncate(diskLine, width)}</T>
      {formLines.map((l, i) => (
        <T key={i} tone={l.sel ? 'accent' : 'plain'} inverse={l.sel && editing}>
          {truncate(l.text, width)}
        </T>
      ))}
      <T tone="dim">{truncate(`manual: ${command ?? ''}`, width)}</T>
      {msg ? <T tone={msg.tone === 'error' ? 'fail' : msg.tone === 'warn' ? 'warn' : 'info'}>{truncate(msg.text, width)}</T> : null}
      {notices.slice(-2).map((n, i) => (
        <T key={i} tone={n.level === 'warn' ? 'warn' : 'info'}>
          {truncate(n.text, width)}
        </T>
      ))}
      {reportLine ? <T tone={report?.ok ? 'ok' : 'fail'}>{truncate(reportLine, width)}</T> : null}
      <T tone="dim">{truncate(view === 'preview' ? '— row preview (p: output) —' : '— converter output (p: row preview) —', width)}</T>
      <Lines lines={panelLines} width={width} height={panel} />
    </Box>
  );
}

export const convertScreen: ScreenModule = {
  id: 'convert',
  title: 'Convert',
  hotkey: '4',
  panels: ['form'],
  Component: Convert,
  bindings: (services) => {
    const c = services.convert;
    const st = () => c.store.getState();
    const move = (d: number) => () => st().set({ field: Math.max(0, Math.min(CONVERT_FIELDS.length - 1, st().field + d)) });
    const page = (d: number) => () => {
      const n = st().previews.length;
      if (n) st().set({ previewIndex: (st().previewIndex + d + n) % n });
    };
    const idle = () => !c.controller.running;
    return [
      shared('up', 'previous field', move(-1)),
      shared('down', 'next field', move(1)),
      shared('open', 'edit field', () => {
        st().set({ editing: true });
        services.app.getState().setInputCaptured(true);
      }),
      shared('runAll', 'convert', () => void c.controller.run(), { when: idle }),
      shared('verify', 'verify file', () => void c.controller.verifyOnly(), { when: idle }),
      { ...intent('convert.preview'), run: () => st().set({ view: st().view === 'preview' ? 'output' : 'preview' }) },
      shared('prevItem', 'previous row', page(-1), { footer: false }),
      shared('nextItem', 'next row', page(1), { footer: false }),
      shared('stop', 'stop', () => c.controller.stop(), { when: () => c.controller.running }),
    ] satisfies Binding[];
  },
};
