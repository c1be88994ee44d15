// Train: the launch form by group (defaults, explanations, validation), the derived values and the effective_*
// lines the launcher will print, the blocking checks, and the runs of the registry with their status. Launch and
// stop ask first. The launched run is detached: quitting the console never stops it.
import React, { useEffect } from 'react';
import { Box } from 'ink';
import type { ScreenModule, ScreenProps } from './types.js';
import type { AppServices } from '../services/registry/appServices.js';
import { useSel } from '../ui/hooks.js';
import { T, STATE_SYMBOL, toneFor } from '../ui/theme.js';
import { padEnd, truncate, visibleWindow } from '../ui/text.js';
import { formatAge } from '../services/util/format.js';
import { runRowCells } from '../services/train/runRow.js';
import { Lines } from '../ui/Lines.js';
import { useTextField } from '../ui/TextField.js';
import { Table, type Column } from '../ui/Table.js';
import { backOut, intent, shared, type Binding } from '../ui/keymap.js';
import { GROUPS, SETTING_BY_KEY, isSecretSetting } from '../services/train/settings.js';
import { describeSecret } from '../services/secrets.js';
import type { RunView } from '../services/train/registry.js';
import type { DetailContent } from '../state/app.js';
import { trainDomain } from '../services/train/domain.js';

const { FIELD_KEYS, mergedChecks, settingProblem, describeDerived } = trainDomain.projections;

const INTRO = [
  'Check every launcher setting and trap, then start the 4-node GRPO run detached: a misconfigured launch wastes a cluster allocation; a detached run survives SSH drops.',
  'manual: bash examples/scripts/run_dressage_swegym_qwen3.5_4b_claude_code_sync_4_node.sh · headless: swegym-console train launch --dry-run · writes .swegym-console/runs/<run>/, outputs/logs/<RUN_NAME>/',
];

/** The settings panel's width (the whole width when compact), and its key column's (then " = " and the value). */
const settingsWidth = (width: number) => (width < 110 ? width : Math.floor(width * 0.5));
const settingsKeyWidth = (panelWidth: number) => Math.min(36, Math.max(20, Math.floor(panelWidth * 0.45)));

/** Longest value a setting takes (paths, URLs, flag lists), and a key. */
const VALUE_MAX = 1024;
const SECRET_MAX = 512;

/** Selection mark, status, then the run's name, pid and age. */
const RUN_COLUMNS: Column[] = [{ width: 1 }, { width: 10 }, { width: 'fill' }];

const SOURCE_TAG: Record<string, string> = { environment: 'env', saved: 'form', console: 'console', 'env-file': 'file', set: 'set', default: '' };

function shownValue(key: string, value: string | undefined): string {
  // The store holds a secret setting already described ("set (N chars)", describeSecretSettings).
  if (isSecretSetting(key)) return value ?? describeSecret(undefined);
  return value === undefined || value === '' ? '(unset)' : value;
}

function runTone(r: RunView): 'ok' | 'warn' | 'fail' | 'info' | 'dim' {
  if (r.status === 'running' || r.status === 'starting') return 'info';
  if (r.status === 'exited') return r.exitCode === 0 ? 'ok' : 'fail';
  if (r.status === 'lost') return 'warn';
  return 'dim';
}

function SettingsPanel({ services, width, height, focused, draftText }: { services: AppServices; width: number; height: number; focused: boolean; draftText: string }) {
  const effective = useSel(services.train.store, (s) => s.effective);
  const sources = useSel(services.train.store, (s) => s.sources);
  const values = useSel(services.train.store, (s) => s.values);
  const selected = useSel(services.train.store, (s) => s.selected);
  const editing = useSel(services.train.store, (s) => s.editing);
  const storeSecrets = useSel(services.train.store, (s) => s.storeSecrets);
  // Rows: group headers and fields.
  const rows: ({ kind: 'group'; title: string } | { kind: 'field'; key: string; index: number })[] = [];
  let index = 0;
  for (const g of GROUPS) {
    rows.push({ kind: 'group', title: g.title });
    for (const key of FIELD_KEYS) if (SETTING_BY_KEY.get(key)?.group === g.id) rows.push({ kind: 'field', key, index: index++ });
  }
  const selRow = rows.findIndex((r) => r.kind === 'field' && r.index === selected);
  const detailLines = 3;
  const listRows = Math.max(1, height - 1 - detailLines);
  const [start, end] = visibleWindow(rows.length, selRow, listRows);
  const key = FIELD_KEYS[selected] ?? '';
  const def = SETTING_BY_KEY.get(key);
  const problem = settingProblem(key, values[key]);
  const keyWidth = settingsKeyWidth(width);
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <T tone={focused ? 'accent' : 'plain'} bold>
        {truncate(`Launch settings (${Object.values(sources).filter((src) => src && src !== 'default').length} set explicitly${storeSecrets ? '; secrets saved 0600' : ''})`, width)}
      </T>
      {rows.slice(start, end).map((r, i) => {
        if (r.kind === 'group') return <T key={`g${start + i}`} tone="dim">{truncate(`── ${r.title} ──`, width)}</T>;
        const isSel = r.index === selected;
        const src = SOURCE_TAG[sources[r.key] ?? 'default'] ?? '';
        const bad = settingProblem(r.key, values[r.key]) !== undefined;
        const text =
          editing && editing.key === r.key
            ? `› ${padEnd(r.key, keyWidth)} = ${draftText}`
            : `${isSel ? '›' : ' '} ${padEnd(r.key, keyWidth)} ${shownValue(r.key, effective[r.key])}${src ? `  [${src}]` : ''}`;
        return (
          <T key={r.key} tone={bad ? 'fail' : src ? 'plain' : 'dim'} inverse={isSel && focused && !editing}>
            {truncate(text, width)}
          </T>
        );
      })}
      <Box flexDirection="column" height={detailLines} overflow="hidden">
        <T tone="info">{truncate(def ? `${key}: ${def.help}` : '', width)}</T>
        <T tone="dim">{truncate(def ? `default: ${def.defaultText}${def.consoleOnly ? ' (console only, not passed to the launcher)' : ''}` : '', width)}</T>
        {problem ? <T tone="fail">{truncate(problem, width)}</T> : <T tone="dim">{truncate(editing ? 'Enter saves · Esc cancels · empty = default' : '', width) || ' '}</T>}
      </Box>
    </Box>
  );
}

function DerivedPanel({ services, width, height, focused, checksFirst = false }: { services: AppServices; width: number; height: number; focused: boolean; checksFirst?: boolean }) {
  const derived = useSel(services.train.store, (s) => s.derived);
  const staticChecks = useSel(services.train.store, (s) => s.staticChecks);
  const checks = useSel(services.train.store, (s) => s.checks);
  const checking = useSel(services.train.store, (s) => s.checking);
  const checkedAt = useSel(services.train.store, (s) => s.checkedAt);
  // The probes know more than the pure checks; a pure failure stands.
  const all = mergedChecks(staticChecks, checks);
  type PanelLine = { text: string; tone: 'ok' | 'warn' | 'fail' | 'info' | 'dim' | 'plain' | 'accent' };
  const derivedLines: PanelLine[] = [];
  if (derived) {
    for (const d of describeDerived(derived)) derivedLines.push({ text: `${d.label}: ${d.value}`, tone: d.tone ?? 'plain' });
    derivedLines.push({ text: 'the launcher will print:', tone: 'accent' });
    for (const l of derived.effectiveLines) derivedLines.push({ text: `  ${l}`, tone: 'dim' });
  }
  const lines: PanelLine[] = [];
  const fails = all.filter((c) => c.status === 'fail').length;
  const warns = all.filter((c) => c.status === 'warn').length;
  lines.push({
    text: `checks: ${fails} blocking, ${warns} warn${checking ? ' (checking…)' : checkedAt ? ` (disk/network/Ray checked ${formatAge(Date.now() - checkedAt)} ago)` : ' (C checks disk, network, Ray)'}`,
    tone: fails ? 'fail' : warns ? 'warn' : 'ok',
  });
  for (const c of all) {
    lines.push({ text: `${STATE_SYMBOL[c.status] ?? '?'} ${c.title}: ${c.detail}`, tone: toneFor(c.status) });
    if (c.fix && (c.status === 'fail' || (focused && c.status === 'warn'))) lines.push({ text: `    fix: ${c.fix}`, tone: 'dim' });
  }
  // Side by side there is room for both; stacked (80 columns) what blocks the launch comes before the arithmetic.
  if (checksFirst) lines.push(...derivedLines);
  else lines.unshift(...derivedLines);
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <T tone={focused ? 'accent' : 'plain'} bold>
        {truncate('Derived values and checks', width)}
      </T>
      <Lines lines={lines} width={width} height={Math.max(0, height - 1)} />
    </Box>
  );
}

function RunsPanel({ services, width, height, focused }: { services: AppServices; width: number; height: number; focused: boolean }) {
  const runs = useSel(services.train.store, (s) => s.runs);
  const sel = useSel(services.train.store, (s) => s.runSelected);
  const checkpoint = useSel(services.train.store, (s) => s.checkpoint);
  const rowsAvail = Math.max(0, height - 2);
  const now = Date.now();
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <T tone={focused ? 'accent' : 'plain'} bold>
        {truncate(`Runs (${runs.length}) — detached; they outlive the console`, width)}
      </T>
      {runs.length === 0 ? <T tone="dim">{truncate('no runs yet: l launches one', width)}</T> : null}
      <Table
        columns={RUN_COLUMNS}
        header={false}
        width={width}
        height={rowsAvail}
        selected={sel}
        focused={focused}
        rows={runs.map((r, i) => {
          const c = runRowCells(r, now);
          return { key: r.name, tone: runTone(r), cells: [i === sel ? '›' : ' ', c.status, `${c.name}  ${c.pid}  ${c.age}`] };
        })}
      />
      {checkpoint && runs.length < rowsAvail ? (
        <T tone="info">{truncate(`checkpoint iter ${checkpoint.step} in ${checkpoint.root} — R resumes from it`, width)}</T>
      ) : null}
    </Box>
  );
}

function Train({ services, width, height, focus }: ScreenProps) {
  const editing = useSel(services.train.store, (s) => s.editing);
  const confirm = useSel(services.train.store, (s) => s.confirm);
  const busy = useSel(services.train.store, (s) => s.busy);
  const loaded = useSel(services.train.store, (s) => s.loaded);

  useEffect(() => {
    const train = services.train.controller;
    if (!services.train.store.getState().loaded) void train.init();
    else train.recompute();
    const timer = setInterval(() => void train.refreshRuns(), 2000);
    return () => clearInterval(timer);
  }, [services]);

  const editingKey = editing?.key;
  const draftText = useTextField({
    active: editing !== undefined,
    value: editing?.draft ?? '',
    onChange: (draft) => {
      const ed = services.train.store.getState().editing;
      if (ed) services.train.store.getState().set({ editing: { ...ed, draft } });
    },
    onSubmit: (draft) => {
      const ed = services.train.store.getState().editing;
      if (!ed) return;
      const saving = services.train.controller.commitField(ed.key, draft);
      // A valid value closes the field at once (the save follows): the next key, even one in the same read, is the
      // screen's again.
      if (services.train.store.getState().editing === undefined) services.app.getState().setInputCaptured(false);
      void saving;
    },
    onCancel: () => {
      services.train.store.getState().set({ editing: undefined });
      services.app.getState().setInputCaptured(false);
    },
    secret: editingKey !== undefined && isSecretSetting(editingKey),
    maxLength: editingKey !== undefined && isSecretSetting(editingKey) ? SECRET_MAX : VALUE_MAX,
    room: Math.max(8, settingsWidth(width) - settingsKeyWidth(settingsWidth(width)) - 5),
  });

  const compact = width < 110;
  const status = confirm
    ? confirm.kind === 'launch'
      ? 'Launch the run now (detached)? y launch · n cancel'
      : `Stop ${confirm.run}? TERM, then KILL after 30 s; checkpoints kept. y stop · Y stop + ray stop --force · n cancel`
    : busy ?? (loaded ? 'l checks first and asks only when nothing blocks; the run is detached (quitting never stops it)' : 'loading settings…');
  // What the step does and why, and the manual twin (DESIGN: the console teaches the recipe while it runs it).
  const intro = height >= 16 ? INTRO : INTRO.slice(0, 1);
  const bodyH = height - 1 - intro.length;
  const statusLine = (
    <Box flexDirection="column" width={width} height={1 + intro.length} overflow="hidden">
      {intro.map((l, i) => (
        <T key={i} tone={i === 0 ? 'plain' : 'dim'}>
          {truncate(l, width)}
        </T>
      ))}
      <T tone={confirm ? 'warn' : busy ? 'info' : 'dim'} bold={confirm !== undefined}>
        {truncate(status, width)}
      </T>
    </Box>
  );
  if (compact) {
    const settingsH = Math.max(5, Math.floor(bodyH * 0.5));
    const runsH = Math.min(6, Math.max(2, Math.floor(bodyH * 0.2)));
    const derivedH = Math.max(0, bodyH - settingsH - runsH);
    return (
      <Box flexDirection="column" width={width} height={height} overflow="hidden">
        {statusLine}
        <SettingsPanel services={services} width={width} height={settingsH} focused={focus === 0} draftText={draftText} />
        <DerivedPanel services={services} width={width} height={derivedH} focused={focus === 1} checksFirst />
        <RunsPanel services={services} width={width} height={runsH} focused={focus === 2} />
      </Box>
    );
  }
  const leftW = settingsWidth(width);
  const rightW = width - leftW - 1;
  const runsH = Math.min(10, Math.max(4, Math.floor(bodyH * 0.3)));
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {statusLine}
      <Box flexDirection="row" width={width} height={bodyH} overflow="hidden">
        <SettingsPanel services={services} width={leftW} height={bodyH} focused={focus === 0} draftText={draftText} />
        <Box width={1} />
        <Box flexDirection="column" width={rightW} height={bodyH} overflow="hidden">
          <DerivedPanel services={services} width={rightW} height={bodyH - runsH} focused={focus === 1} />
          <RunsPanel services={services} width={rightW} height={runsH} focused={focus === 2} />
        </Box>
      </Box>
    </Box>
  );
}

function bindings(services: AppServices): Binding[] {
  const st = () => services.train.store.getState();
  const train = services.train.controller;
  const focus = () => services.app.getState().focus;
  const confirming = () => st().confirm !== undefined;
  const move = (delta: number) => () => {
    if (focus() === 2) {
      const n = st().runs.length;
      if (n) st().set({ runSelected: Math.max(0, Math.min(n - 1, st().runSelected + delta)) });
    } else st().set({ selected: Math.max(0, Math.min(FIELD_KEYS.length - 1, st().selected + delta)) });
  };
  const selectedRun = () => st().runs[st().runSelected];
  const askLaunch = () => {
    // Check first: a launch that cannot start is reported at once, and the question comes only when it can.
    const blocking = train.blocking();
    if (blocking.length) {
      services.app.getState().setFlash(`cannot launch: ${blocking.length} blocking check(s) — ${blocking.map((c) => c.title).join(', ')} (Tab to the checks; C re-checks)`, 'error');
      return;
    }
    st().set({ confirm: { kind: 'launch' } });
  };
  return [
    shared('confirm', 'confirm', () => train.confirmYes(false), { when: confirming, footer: false }),
    { ...intent('train.confirmRayStop'), run: () => train.confirmYes(true), when: confirming, footer: false },
    shared('cancel', 'cancel', () => st().set({ confirm: undefined }), { when: confirming, footer: false }),
    backOut([{ description: 'cancel the question', isOpen: confirming, close: () => st().set({ confirm: undefined }) }]),
    // The screen's own actions first: the footer shows them in this order.
    { ...intent('train.launch'), run: askLaunch },
    { ...intent('train.checks'), short: 'checks', run: () => void train.runChecks() },
    shared('up', 'previous', move(-1), { footer: false }),
    shared('down', 'next', move(1), { footer: false }),
    shared('pageUp', 'page up', move(-10), { footer: false }),
    shared('pageDown', 'page down', move(10), { footer: false }),
    shared(
      'open',
      'edit setting',
      () => {
        const key = FIELD_KEYS[st().selected];
        if (!key) return;
        // Secrets start empty (their value is never put on screen); others start from the explicit value.
        st().set({ editing: { key, draft: isSecretSetting(key) ? '' : st().values[key] ?? '' } });
        services.app.getState().setInputCaptured(true);
      },
      { when: () => focus() === 0, short: 'edit' },
    ),
    shared(
      'view',
      'the setting whole (value, help)',
      () => {
        const key = FIELD_KEYS[st().selected];
        if (key) services.app.getState().openDetail(settingDetail(key, st()));
      },
      { when: () => focus() === 0, context: 'settings panel', short: 'whole' },
    ),
    shared(
      'view',
      'the checks whole (fixes)',
      () => services.app.getState().openDetail(checksDetail(mergedChecks(st().staticChecks, st().checks))),
      { when: () => focus() === 1, context: 'checks panel', short: 'whole' },
    ),
    { ...intent('train.reset'), run: () => void train.resetField(FIELD_KEYS[st().selected] ?? ''), when: () => focus() === 0 },
    shared('stop', 'stop run (asks)', () => {
      const r = selectedRun();
      if (!r) services.app.getState().setFlash('no run selected (Tab to the runs panel)', 'warn');
      else if (!(r.alive || r.status === 'running' || r.status === 'starting')) services.app.getState().setFlash(`${r.name} is not running (${r.status})`, 'warn');
      else st().set({ confirm: { kind: 'stop', run: r.name, rayStop: false } });
    }),
    { ...intent('train.resume'), short: 'resume', run: () => void train.applyResume() },
    { ...intent('train.saveSecrets'), run: () => void train.toggleStoreSecrets(), footer: false },
    shared('refresh', 'refresh runs', () => void train.refreshRuns(), { footer: false }),
  ];
}

/** One setting whole: its value unshortened (a secret: only whether it is set), where it comes from, its help. */
function settingDetail(key: string, st: { effective: Record<string, string | undefined>; sources: Record<string, string | undefined>; values: Record<string, string | undefined> }): DetailContent {
  const def = SETTING_BY_KEY.get(key);
  const value = st.effective[key];
  const source = st.sources[key] ?? 'default';
  const problem = settingProblem(key, st.values[key]);
  const lines: DetailContent['lines'] = [
    { text: `value: ${shownValue(key, value)}`, tone: problem ? 'fail' : 'plain' },
    { text: `from: ${source === 'environment' ? 'the environment' : source === 'saved' ? 'the form (saved in .swegym-console/settings.json)' : source === 'default' ? "the launcher's default" : source}` },
    ...(problem ? [{ text: `problem: ${problem}`, tone: 'fail' as const }] : []),
    { text: '' },
    { text: def?.help ?? '', tone: 'info' },
    { text: `default: ${def?.defaultText ?? ''}${def?.consoleOnly ? ' (console only, not passed to the launcher)' : ''}`, tone: 'dim' },
    ...(def?.options ? [{ text: `one of: ${def.options.join(', ')}`, tone: 'dim' as const }] : []),
  ];
  const copy = !isSecretSetting(key) && value ? { copy: { label: 'export line', text: `export ${key}=${quoteShell(value)}` } } : {};
  return { title: key, lines, ...copy };
}

function quoteShell(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

function checksDetail(all: ReturnType<typeof mergedChecks>): DetailContent {
  const lines: DetailContent['lines'] = [];
  for (const c of all) {
    lines.push({ text: `${STATE_SYMBOL[c.status] ?? '?'} ${c.title}: ${c.detail}`, tone: toneFor(c.status) });
    if (c.fix) lines.push({ text: `    fix: ${c.fix}`, tone: 'dim' });
  }
  const firstFix = all.find((c) => c.status === 'fail' && c.fix) ?? all.find((c) => c.status === 'warn' && c.fix);
  return { title: 'Launch checks', lines, ...(firstFix?.fix ? { copy: { label: `fix (${firstFix.title})`, text: firstFix.fix } } : {}) };
}

export const trainScreen: ScreenModule = {
  id: 'train',
  title: 'Train',
  hotkey: '6',
  panels: ['settings', 'derived', 'runs'],
  Component: Train,
  bindings,
};
