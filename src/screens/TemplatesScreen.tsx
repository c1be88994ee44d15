// Templates: artifacts status, then every task image with its template, state, build duration and smoke result,
// totals and ETA; `/` filters, Enter opens the build log, b builds, r retries failed, s smokes the selected one,
// x stops launching (then a abandons running builds). Work runs in the templates controller (services).
import React, { useEffect } from 'react';
import { Box, useInput } from 'ink';
import type { ScreenModule, ScreenProps } from './types.js';
import type { AppServices } from './services.js';
import { useSel } from '../ui/hooks.js';
import { T, toneFor } from '../ui/theme.js';
import { padEnd, truncate, visibleWindow } from '../ui/text.js';
import { is } from '../ui/keymap.js';
import { filterRows } from '../state/templates.js';
import { formatElapsed } from '../services/util/format.js';
import { manualBuildCommand } from '../services/templates/recipe.js';
import { ARTIFACTS_LOG } from '../services/templates/controller.js';

const SYMBOL: Record<string, string> = { queued: '·', building: '▶', built: '✓', failed: '✗' };

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
  const etaMs = useSel(store, (s) => s.etaMs);
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

  useInput(
    (input, key) => {
      const st = store.getState();
      if (key.escape || key.return) {
        st.set({ filtering: false });
        services.app.getState().setInputCaptured(false);
      } else if (key.backspace || key.delete) st.set({ filter: st.filter.slice(0, -1), selected: 0 });
      else if (input && !key.ctrl && !key.meta) st.set({ filter: st.filter + input, selected: 0 });
    },
    { isActive: filtering },
  );

  const visible = filterRows(rows, filter);
  const header = [
    truncate('Build one E2B template per image (~293), recorded in data/e2b-template-map.json; smoke-test BBS /health on 31000.', width),
  ];
  const eta = etaMs !== undefined ? ` · ETA ${formatElapsed(etaMs)}` : '';
  const totals = `${counts.total} images: ${counts.built} built, ${counts.failed} failed, ${counts.building} building, ${counts.queued} to build · mapped ${counts.mapped} · smoke ${counts.smokePassed}✓ ${counts.smokeFailed}✗${running ? ` · ${active} running${eta}` : ''}${smoking ? ` · smoking ${smoking}` : ''}`;

  if (logImage) {
    const rowsAvail = Math.max(1, height - 2);
    const lines = logLines.slice(-rowsAvail);
    return (
      <Box flexDirection="column" width={width} height={height} overflow="hidden">
        <T bold>{truncate(`Build log — ${logImage}  (Esc closes)`, width)}</T>
        {lines.length === 0 ? <T tone="dim">(no lines yet)</T> : lines.map((l, i) => <T key={i}>{truncate(l, width) || ' '}</T>)}
      </Box>
    );
  }

  const fixed = 6 + (stopping ? 1 : 0) + (msg ? 1 : 0) + (mapProblems.length ? 1 : 0);
  const tableRows = Math.max(1, height - fixed);
  const sel = Math.min(selected, Math.max(0, visible.length - 1));
  const [start, end] = visibleWindow(visible.length, sel, tableRows);
  const nameW = Math.max(20, Math.min(48, Math.floor(width * 0.4)));
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <T tone="dim">{header[0]}</T>
      <T tone={artifacts ? (artifacts.ok ? 'ok' : 'warn') : 'dim'}>{truncate(artifacts?.text ?? 'artifacts: checking…', width)}</T>
      <T bold>{truncate(loading ? 'reading the workspace…' : totals, width)}</T>
      {stopping ? <T tone="warn">{truncate(`stopping: no new builds; ${active} still running — wait, or press a to abandon them (rebuilt next time)`, width)}</T> : null}
      {msg ? <T tone={msg.tone === 'error' ? 'fail' : msg.tone === 'warn' ? 'warn' : 'info'}>{truncate(msg.text, width)}</T> : null}
      {mapProblems.length ? <T tone="fail">{truncate(`map: ${mapProblems[0]}`, width)}</T> : null}
      <T tone={filtering ? 'accent' : 'dim'}>
        {truncate(filtering || filter ? `filter: ${filter}${filtering ? '▏' : ''}  (${visible.length}/${rows.length})` : `${padEnd('  state', 11)}${padEnd('template', nameW)} ${padEnd('time', 7)} ${padEnd('smoke', 6)} image`, width)}
      </T>
      {visible.slice(start, end).map((r, i) => {
        const idx = start + i;
        const line = `${idx === sel ? '›' : ' '} ${SYMBOL[r.state] ?? '?'} ${padEnd(r.state, 8)}${padEnd(r.template, nameW)} ${padEnd(r.durationMs ? formatElapsed(r.durationMs) : '', 7)} ${padEnd(r.smoke ?? '-', 6)} ${r.image}${r.error ? `  ${r.error}` : ''}`;
        return (
          <T key={r.image} tone={r.smoke === 'failed' ? 'fail' : toneFor(r.state)} inverse={idx === sel}>
            {truncate(line, width)}
          </T>
        );
      })}
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
    return [
      { keys: ['↑', 'k'], description: 'previous image', match: is.up, run: move(-1) },
      { keys: ['↓', 'j'], description: 'next image', match: is.down, run: move(1) },
      { keys: ['PgUp'], description: 'page up', match: is.pageUp, run: move(-10), footer: false },
      { keys: ['PgDn'], description: 'page down', match: is.pageDown, run: move(10), footer: false },
      {
        keys: ['Enter'],
        description: 'build log',
        match: (i, k) => is.enter(i, k) && !st().logImage,
        run: () => t.controller.openLog(selectedRow(services)?.image),
      },
      { keys: ['Esc'], description: 'close log', match: (i, k) => is.escape(i, k) && Boolean(st().logImage), run: () => t.controller.openLog(undefined), footer: false },
      {
        keys: ['/'],
        description: 'filter',
        match: is.char('/'),
        run: () => {
          st().set({ filtering: true });
          services.app.getState().setInputCaptured(true);
        },
      },
      { keys: ['A'], description: 'build artifacts', match: is.char('A'), run: () => void t.controller.buildArtifacts() },
      { keys: ['l'], description: 'artifacts log', match: is.char('l'), run: () => t.controller.openLog(ARTIFACTS_LOG), footer: false },
      { keys: ['b'], description: 'build all', match: is.char('b'), run: () => void t.controller.build() },
      { keys: ['r'], description: 'retry failed', match: is.char('r'), run: () => void t.controller.retryFailed() },
      {
        keys: ['s'],
        description: 'smoke selected',
        match: is.char('s'),
        run: () => {
          const row = selectedRow(services);
          if (row) void t.controller.smoke([row]);
        },
      },
      { keys: ['x'], description: 'stop launching', match: (i, k) => is.char('x')(i, k) && t.controller.running, run: () => t.controller.stop() },
      { keys: ['a'], description: 'abandon running', match: (i, k) => is.char('a')(i, k) && st().stopping, run: () => t.controller.abandon() },
      { keys: ['R'], description: 'refresh', match: is.char('R'), run: () => void t.controller.refresh(), footer: false },
    ];
  },
};
