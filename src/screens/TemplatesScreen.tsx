// Templates: artifacts status, then every task image with its template, state, build duration and smoke result,
// totals and ETA; `/` filters, Enter opens the build log, v the row whole, b builds, F retries failed, s smokes,
// x stops launching (then X, pressed twice, abandons running builds). Work runs in the templates controller (services).
import React, { useEffect } from 'react';
import { Box } from 'ink';
import type { ScreenModule, ScreenProps } from './types.js';
import type { AppServices } from '../services/registry/appServices.js';
import { useSel } from '../ui/hooks.js';
import { ProgressBar } from '../ui/ProgressBar.js';
import { T, toneFor } from '../ui/theme.js';
import { truncate } from '../ui/text.js';
import { Lines } from '../ui/Lines.js';
import { Table, tableLine, type Column } from '../ui/Table.js';
import { useTextField } from '../ui/TextField.js';
import { backOut, intent, shared, type Binding } from '../ui/keymap.js';
import { confirmTwice } from '../ui/confirm.js';
import type { DetailContent } from '../state/app.js';
import { filterRows } from '../state/templates.js';
import { formatElapsed } from '../services/util/format.js';
import { manualBuildCommand } from '../services/templates/recipe.js';
import { ARTIFACTS_LOG } from '../services/templates/controller.js';
import { TEMPLATE_LOG_DIR, logFileName } from '../services/templates/buildLogs.js';
import { BLACKBOX_PORT } from '../services/recipe.js';

const SYMBOL: Record<string, string> = { queued: '·', building: '▶', built: '✓', failed: '✗' };
const FILTER_MAX = 80;
const COLUMN_HEADERS = ['', '', 'state', 'template', 'time', 'smoke', 'image'];

/** Selection mark, state symbol, state, template, build time, smoke, image (and the failure reason after it). */
function templateColumns(width: number): Column[] {
  const nameW = Math.max(20, Math.min(48, Math.floor(width * 0.4)));
  return [{ width: 1 }, { width: 1 }, { width: 8 }, { width: nameW }, { width: 7 }, { width: 6 }, { width: 'fill' }];
}

function Templates({ services, width, height }: ScreenProps) {
  const t = services.templates;
  const store = t.store;
  const rows = useSel(store, (s) => s.rows);
  const counts = useSel(store, (s) => s.counts);
  const artifacts = useSel(store, (s) => s.artifacts);
  const loading = useSel(store, (s) => s.loading);
  const running = useSel(store, (s) => s.running);
  const stopping = useSel(store, (s) => s.stopping);
  const active = useSel(store, (s) => s.active);
  const buildProgress = useSel(store, (s) => s.buildProgress);
  const smokeProgress = useSel(store, (s) => s.smokeProgress);
  const smoking = useSel(store, (s) => s.smoking);
  const selected = useSel(store, (s) => s.selected);
  const filter = useSel(store, (s) => s.filter);
  const filtering = useSel(store, (s) => s.filtering);
  const logImage = useSel(store, (s) => s.logImage);
  const logLines = useSel(store, (s) => s.logLines);
  const msg = useSel(store, (s) => s.message);
  const mapProblems = useSel(store, (s) => s.mapProblems);

  useEffect(() => {
    void t.controller.refresh();
  }, [t]);

  const leaveFilter = () => {
    store.getState().set({ filtering: false });
    services.app.getState().setInputCaptured(false);
  };
  const filterText = useTextField({
    active: filtering,
    value: filter,
    onChange: (value) => store.getState().set({ filter: value, selected: 0 }),
    onSubmit: leaveFilter,
    onCancel: leaveFilter,
    maxLength: FILTER_MAX,
    // "filter: " before it, "  (12/293)" after
    room: Math.max(8, width - 20),
  });

  const visible = filterRows(rows, filter);
  const header = [
    truncate(`Build one E2B template per image (~293), recorded in data/e2b-template-map.json; smoke-test BBS /health on ${BLACKBOX_PORT}.`, width),
  ];
  const totals = `${counts.total} images: ${counts.built} built, ${counts.failed} failed, ${counts.building} building, ${counts.queued} to build · mapped ${counts.mapped} · smoke ${counts.smokePassed}✓ ${counts.smokeFailed}✗${running ? ` · ${active} running` : ''}${smoking ? ` · smoking ${smoking}` : ''}`;

  if (logImage) {
    const rowsAvail = Math.max(1, height - 2);
    const lines = logLines.slice(-rowsAvail);
    return (
      <Box flexDirection="column" width={width} height={height} overflow="hidden">
        <T bold>{truncate(`Build log — ${logImage}  (Esc closes)`, width)}</T>
        <Lines lines={lines.length === 0 ? [{ text: '(no lines yet)', tone: 'dim' }] : lines.map((text) => ({ text }))} width={width} height={rowsAvail} />
      </Box>
    );
  }

  const progress = buildProgress ?? smokeProgress;
  const fixed = 6 + (progress ? 1 : 0) + (stopping ? 1 : 0) + (msg ? 1 : 0) + (mapProblems.length ? 1 : 0);
  const tableRows = Math.max(1, height - fixed);
  const sel = Math.min(selected, Math.max(0, visible.length - 1));
  const columns = templateColumns(width);
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <T tone="dim">{header[0]}</T>
      <T tone={artifacts ? (artifacts.ok ? 'ok' : 'warn') : 'dim'}>{truncate(artifacts?.text ?? 'artifacts: checking…', width)}</T>
      <T bold>{truncate(loading ? 'reading the workspace…' : totals, width)}</T>
      <ProgressBar progress={progress} width={width} label={buildProgress ? 'build ' : 'smoke '} />
      {stopping ? <T tone="warn">{truncate(`stopping: no new builds; ${active} still running — wait, or press X to abandon them (rebuilt next time)`, width)}</T> : null}
      {msg ? <T tone={msg.tone === 'error' ? 'fail' : msg.tone === 'warn' ? 'warn' : 'info'}>{truncate(msg.text, width)}</T> : null}
      {mapProblems.length ? <T tone="fail">{truncate(`map: ${mapProblems[0]}`, width)}</T> : null}
      <T tone={filtering ? 'accent' : 'dim'}>
        {filtering || filter ? truncate(`filter: ${filterText}  (${visible.length}/${rows.length})`, width) : tableLine(columns, COLUMN_HEADERS, width)}
      </T>
      <Table
        columns={columns}
        header={false}
        width={width}
        height={tableRows}
        selected={sel}
        rows={visible.map((r, idx) => ({
          key: r.image,
          tone: r.smoke === 'failed' ? 'fail' : toneFor(r.state),
          cells: [idx === sel ? '›' : ' ', SYMBOL[r.state] ?? '?', r.state, r.template, r.durationMs ? formatElapsed(r.durationMs) : '', r.smoke ?? '-', `${r.image}${r.error ? `  ${r.error}` : ''}`],
        }))}
      />
      {visible.length === 0 && !loading ? <T tone="dim">{rows.length ? 'no image matches the filter' : 'no images: run `swegym-console data images` first'}</T> : null}
      <Box flexGrow={1} />
      {visible[sel] ? <T tone="dim">{truncate(`manual: ${manualBuildCommand(visible[sel].image, visible[sel].template)}`, width)}</T> : null}
    </Box>
  );
}

function selectedRow(services: AppServices) {
  const st = services.templates.store.getState();
  const visible = filterRows(st.rows, st.filter);
  return visible[Math.min(st.selected, Math.max(0, visible.length - 1))];
}

export const templatesScreen: ScreenModule = {
  id: 'templates',
  title: 'Templates',
  hotkey: '3',
  panels: ['templates'],
  Component: Templates,
  bindings: (services) => {
    const t = services.templates;
    const st = () => t.store.getState();
    const move = (delta: number) => () => {
      const n = filterRows(st().rows, st().filter).length;
      if (n) st().set({ selected: Math.max(0, Math.min(n - 1, st().selected + delta)) });
    };
    const abandon = confirmTwice(
      () => services.app.getState().setFlash(`X again abandons ${st().active} running build(s): they are rebuilt next time`, 'warn'),
      () => t.controller.abandon(),
    );
    const noLog = () => !st().logImage;
    return [
      shared('up', 'previous image', move(-1)),
      shared('down', 'next image', move(1)),
      shared('pageUp', 'page up', move(-10), { footer: false }),
      shared('pageDown', 'page down', move(10), { footer: false }),
      shared('open', 'drill in: the build log', () => t.controller.openLog(selectedRow(services)?.image), { when: noLog }),
      shared(
        'view',
        'the row whole (reason, manual command)',
        () => {
          const row = selectedRow(services);
          if (row) services.app.getState().openDetail(templateDetail(row));
        },
        { when: noLog },
      ),
      backOut([
        { description: 'close the log', isOpen: () => Boolean(st().logImage), close: () => t.controller.openLog(undefined) },
        { description: 'clear the kept filter', isOpen: () => st().filter !== '', close: () => st().set({ filter: '', selected: 0 }) },
      ]),
      shared('filter', 'filter', () => {
        st().set({ filtering: true });
        services.app.getState().setInputCaptured(true);
      }),
      { ...intent('templates.buildArtifacts'), short: 'artifacts', run: () => void t.controller.buildArtifacts() },
      { ...intent('templates.artifactsLog'), run: () => t.controller.openLog(ARTIFACTS_LOG), footer: false },
      shared('runAll', 'build all', () => void t.controller.build()),
      shared('retryFailed', 'retry failed', () => void t.controller.retryFailed()),
      {
        ...intent('templates.smoke'),
        run: () => {
          const row = selectedRow(services);
          if (row) void t.controller.smoke([row]);
        },
      },
      shared('stop', 'stop launching', () => t.controller.stop(), { when: () => t.controller.running }),
      { ...intent('templates.abandon'), run: abandon, when: () => st().stopping },
      shared('refresh', 'refresh', () => void t.controller.refresh(), { footer: false }),
    ] satisfies Binding[];
  },
};

function templateDetail(row: ReturnType<typeof selectedRow> & object): DetailContent {
  const lines: DetailContent['lines'] = [
    { text: `image: ${row.image}` },
    { text: `template: ${row.template}` },
    { text: `state: ${row.state}${row.durationMs ? ` (${formatElapsed(row.durationMs)})` : ''} · smoke: ${row.smoke ?? '-'}`, tone: toneFor(row.state) },
  ];
  if (row.error) lines.push({ text: `reason: ${row.error}`, tone: 'fail' });
  lines.push({ text: `build log: ${TEMPLATE_LOG_DIR}/${logFileName(row.image)}`, tone: 'dim' });
  return { title: `Template — ${row.template}`, lines, copy: { label: 'manual', text: manualBuildCommand(row.image, row.template) } };
}
