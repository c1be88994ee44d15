// Data: the SWE-Gym split as the recipe sees it — summary, repo histogram, a filterable task table and the task
// detail (problem statement, tests, image, template) — plus the download (bytes, rate, ETA) and the image list.
import React, { useEffect } from 'react';
import { Box } from 'ink';
import type { ScreenModule, ScreenProps } from './types.js';
import type { AppServices } from '../services/registry/appServices.js';
import { useSel } from '../ui/hooks.js';
import { T } from '../ui/theme.js';
import { graphemeWidth, graphemes, padEnd, padStart, truncate } from '../ui/text.js';
import { Lines } from '../ui/Lines.js';
import { Table, type Column } from '../ui/Table.js';
import { useTextField } from '../ui/TextField.js';
import { backOut, intent, shared, type Binding } from '../ui/keymap.js';
import { filterTasks, type DataState } from '../state/data.js';
import { formatProgress } from '../services/dataset/format.js';
import { formatBytes } from '../services/util/format.js';
import { displayPath } from '../services/workspace/paths.js';
import type { SweGymTask } from '../services/dataset/types.js';
import { SWEGYM_DATASET } from '../services/recipe.js';

const FILTER_MAX = 80;
const MANUAL = 'python3 examples/data/swegym/prepare_swegym_e2b.py list-images --download --download-dir data/swegym-source --split';

/** Hard-wraps text to `width` columns (the detail view shows whole problem statements, never letting Ink wrap). */
export function wrapLines(text: string, width: number): string[] {
  const out: string[] = [];
  const w = Math.max(1, width);
  for (const raw of text.replace(/\t/g, '  ').split('\n')) {
    let line = '';
    let used = 0;
    for (const g of graphemes(raw.replace(/\r$/, ''))) {
      const gw = graphemeWidth(g);
      if (used + gw > w && line) {
        out.push(line);
        line = '';
        used = 0;
      }
      line += g;
      used += gw;
    }
    out.push(line);
  }
  return out;
}

function visibleTasks(s: DataState): SweGymTask[] {
  return filterTasks(s.rows, s.filter);
}

function Header({ services, width }: { services: AppServices; width: number }) {
  const split = useSel(services.data, (s) => s.split);
  const status = useSel(services.data, (s) => s.status);
  const summary = useSel(services.data, (s) => s.summary);
  const imageList = useSel(services.data, (s) => s.imageList);
  const mapNote = useSel(services.data, (s) => s.templateMapNote);
  const file = displayPath(services.paths, services.paths.parquet(split));
  const first =
    status === 'loaded' && summary
      ? `Data · ${split} · ${file} · ${summary.rows} tasks · ${formatBytes(summary.fileBytes)}`
      : `Data · ${split} · ${file} · ${status === 'loading' ? 'reading…' : status === 'missing' ? 'not downloaded' : status === 'invalid' ? 'fails its checks' : ''}`;
  const listText = !imageList
    ? ''
    : imageList.state === 'current'
      ? `${displayPath(services.paths, services.paths.imageList)} matches`
      : imageList.state === 'missing'
        ? `${displayPath(services.paths, services.paths.imageList)} missing (i writes it)`
        : `${displayPath(services.paths, services.paths.imageList)} differs from this split (${imageList.lines} lines; i rewrites it)`;
  const second =
    status === 'loaded' && summary
      ? `images: ${summary.images} unique${summary.legacyImages ? `, ${summary.legacyImages} legacy SWE-bench` : ''} · ${listText} · ${mapNote ?? ''}`
      : 'Download the split, check it, and list one Docker image per task; every later step is keyed by these tasks.';
  return (
    <Box flexDirection="column" height={2} width={width} overflow="hidden">
      <T bold tone="accent">
        {truncate(first, width)}
      </T>
      <T tone={imageList?.state === 'differs' || imageList?.state === 'missing' ? 'warn' : 'dim'}>{truncate(second, width)}</T>
    </Box>
  );
}

function DownloadLine({ services, width }: { services: AppServices; width: number }) {
  const download = useSel(services.data, (s) => s.download);
  if (!download) return null;
  const text = download.running
    ? download.progress
      ? formatProgress(download.progress)
      : `starting the download of ${download.split}.parquet…`
    : download.outcome?.ok
      ? download.outcome.text
      : `download failed: ${download.outcome?.error.what ?? ''}`;
  const tone = download.running ? 'info' : download.outcome?.ok ? 'ok' : 'fail';
  const total = download.progress?.total;
  const ratio = total ? Math.min(1, (download.progress?.received ?? 0) / total) : 0;
  const barWidth = Math.max(0, Math.min(30, width - 60));
  const bar = download.running && total && barWidth >= 10 ? `[${'█'.repeat(Math.round(ratio * barWidth)).padEnd(barWidth, '·')}] ` : '';
  return (
    <Box height={1} width={width}>
      <T tone={tone}>{truncate(bar + text, width)}</T>
    </Box>
  );
}

function NotLoaded({ services, width, height }: { services: AppServices; width: number; height: number }) {
  const status = useSel(services.data, (s) => s.status);
  const error = useSel(services.data, (s) => s.error);
  const split = useSel(services.data, (s) => s.split);
  const lines: { text: string; tone: 'plain' | 'dim' | 'warn' | 'fail' | 'info' }[] = [];
  if (status === 'loading' || status === 'idle') lines.push({ text: 'reading the split…', tone: 'dim' });
  if (status === 'missing') {
    lines.push({ text: `${split}.parquet is not downloaded yet.`, tone: 'warn' });
    lines.push({ text: `d downloads it from the Hugging Face dataset ${SWEGYM_DATASET} (resumable; HF_ENDPOINT, HF_TOKEN and proxies are honoured).`, tone: 'info' });
    lines.push({ text: '', tone: 'plain' });
    lines.push({ text: `manual:   ${MANUAL} ${split}`, tone: 'dim' });
    lines.push({ text: `headless: swegym-console data download --split ${split} && swegym-console data images --split ${split}`, tone: 'dim' });
    lines.push({ text: 'offline:  copy the file to the path above by hand; it is checked when read.', tone: 'dim' });
  }
  if (status === 'invalid' && error) {
    lines.push({ text: error.what, tone: 'fail' });
    if (error.cause) lines.push({ text: `cause: ${error.cause}`, tone: 'plain' });
    if (error.fix) lines.push({ text: `fix:   ${error.fix}`, tone: 'info' });
    for (const p of error.problems ?? []) lines.push({ text: `  - ${p}`, tone: 'plain' });
  }
  const shown = lines.slice(0, Math.max(0, height));
  if (lines.length > height && height > 0) shown[height - 1] = { text: `… ${lines.length - height + 1} more lines (swegym-console data show lists all)`, tone: 'dim' };
  return <Lines lines={shown} width={width} height={height} />;
}

function TaskTable({ services, width, height, focused, filterText }: { services: AppServices; width: number; height: number; focused: boolean; filterText: string }) {
  const rows = useSel(services.data, (s) => s.rows);
  const filter = useSel(services.data, (s) => s.filter);
  const filtering = useSel(services.data, (s) => s.filtering);
  const selected = useSel(services.data, (s) => s.selected);
  const map = useSel(services.data, (s) => s.templateMap);
  const tasks = filterTasks(rows, filter);
  const listRows = Math.max(0, height - 2);
  const shownRows = Math.min(tasks.length, listRows);
  const numW = 5;
  const longestRepo = rows.reduce((m, r) => Math.max(m, r.repo.length), 4);
  const repoW = Math.max(4, Math.min(longestRepo, 24, Math.floor(width * 0.3)));
  // id · repo · F2P · P2P · tpl, single spaces between; the id takes what the others leave
  const columns: Column[] = [
    { header: 'instance_id', width: 'fill' },
    { header: 'repo', width: repoW },
    { header: 'F2P', width: numW, align: 'right' },
    { header: 'P2P', width: numW, align: 'right' },
    { header: 'tpl', width: 3 },
  ];
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Table
        columns={columns}
        width={width}
        height={listRows + 1}
        selected={selected}
        focused={focused}
        headerTone={focused ? 'accent' : 'dim'}
        rows={tasks.map((t) => ({
          key: t.instance_id,
          cells: [t.instance_id, t.repo, String(t.FAIL_TO_PASS.length), String(t.PASS_TO_PASS.length), map?.[t.image] ? '✓' : '·'],
        }))}
      />
      {tasks.length === 0 ? <T tone="dim">{truncate(filter ? `no task matches "${filter}"` : 'no tasks', width)}</T> : null}
      <Box height={Math.max(0, listRows - Math.max(1, shownRows))} />
      <T tone={filtering ? 'info' : 'dim'}>
        {truncate(
          filtering ? `/ ${filterText}  (${tasks.length}/${rows.length}; Enter keeps, Esc cancels)` : filter ? `filter: ${filter} (${tasks.length}/${rows.length}) · / edits · Esc clears` : `${rows.length} tasks · / filters by id, repo, image or version`,
          width,
        )}
      </T>
    </Box>
  );
}

function SummaryPanel({ services, width, height, focused }: { services: AppServices; width: number; height: number; focused: boolean }) {
  const summary = useSel(services.data, (s) => s.summary);
  const warnings = useSel(services.data, (s) => s.warnings);
  if (!summary) return null;
  const d = (x: { min: number; median: number; max: number }) => `min ${x.min} · median ${x.median} · max ${x.max}`;
  const lines: { text: string; tone: 'plain' | 'dim' | 'warn' | 'accent' }[] = [
    { text: `Summary — ${summary.rows} tasks in ${summary.repos.length} repos`, tone: focused ? 'accent' : 'plain' },
    { text: `FAIL_TO_PASS/task: ${d(summary.failToPass)}`, tone: 'plain' },
    { text: `PASS_TO_PASS/task: ${d(summary.passToPass)}`, tone: 'plain' },
    { text: `statement chars:   ${d(summary.problemStatementChars)}`, tone: 'plain' },
    { text: `test lists stored as: ${summary.encoding.FAIL_TO_PASS} / ${summary.encoding.PASS_TO_PASS}`, tone: 'dim' },
    { text: '', tone: 'plain' },
  ];
  const maxCount = Math.max(1, ...summary.repos.map((r) => r.count));
  const repoW = Math.min(26, Math.max(8, ...summary.repos.map((r) => r.repo.length)));
  const barW = Math.max(1, width - repoW - 7);
  for (const r of summary.repos) {
    lines.push({ text: `${padEnd(r.repo, repoW)} ${padStart(String(r.count), 4)} ${'█'.repeat(Math.max(1, Math.round((r.count / maxCount) * barW)))}`, tone: 'plain' });
  }
  lines.push({ text: '', tone: 'plain' });
  lines.push({ text: `manual:   ${MANUAL} ${summary.split ?? 'train'} --output data/swegym-images.txt`, tone: 'dim' });
  lines.push({ text: `headless: swegym-console data show${summary.split === 'validation' ? ' --split validation' : ''} --json`, tone: 'dim' });
  if (warnings.length) {
    lines.push({ text: '', tone: 'plain' });
    lines.push({ text: `${warnings.length} warning(s):`, tone: 'warn' });
    for (const w of warnings) lines.push({ text: `  ${w}`, tone: 'dim' });
  }
  return <Lines lines={lines.map((l, i) => ({ ...l, bold: i === 0 }))} width={width} height={height} />;
}

function TaskDetail({ services, width, height }: { services: AppServices; width: number; height: number }) {
  const id = useSel(services.data, (s) => s.detail);
  const rows = useSel(services.data, (s) => s.rows);
  const scroll = useSel(services.data, (s) => s.detailScroll);
  const map = useSel(services.data, (s) => s.templateMap);
  const task = rows.find((r) => r.instance_id === id);
  if (!task) return null;
  const template = map?.[task.image];
  // Small terminals keep room for the problem statement.
  const f2pShown = Math.max(1, Math.min(6, height - 16));
  const lines: { text: string; tone: 'plain' | 'dim' | 'accent' | 'ok' | 'warn' | 'info' }[] = [
    { text: `${task.instance_id}  (row ${task.row})`, tone: 'accent' },
    { text: `repo ${task.repo} · version ${task.version} · base ${task.base_commit.slice(0, 12)}`, tone: 'plain' },
    { text: `image     ${task.image}`, tone: 'plain' },
    template
      ? { text: `template  ${template}`, tone: 'ok' }
      : { text: `template  none yet — no entry in ${displayPath(services.paths, services.paths.templateMap)}`, tone: 'warn' },
    { text: `FAIL_TO_PASS (${task.FAIL_TO_PASS.length}):`, tone: 'info' },
    ...task.FAIL_TO_PASS.slice(0, f2pShown).map((t) => ({ text: `  ${t}`, tone: 'plain' as const })),
    ...(task.FAIL_TO_PASS.length > f2pShown ? [{ text: `  … ${task.FAIL_TO_PASS.length - f2pShown} more`, tone: 'dim' as const }] : []),
    { text: `PASS_TO_PASS (${task.PASS_TO_PASS.length}) · gold patch ${task.patch ? `${patchLines(task.patch).length} lines` : 'none'} · test patch ${patchLines(task.test_patch).length} lines: all below`, tone: 'info' },
    { text: `── problem statement (${task.problem_statement.length} chars), the tests, the patches as diffs; ↑/↓ PgUp/PgDn scroll, Esc back ──`, tone: 'dim' },
  ];
  const bodyRows = Math.max(0, height - lines.length);
  const document = taskDocument(task, width);
  const maxScroll = Math.max(0, document.length - bodyRows);
  const from = Math.min(scroll, maxScroll);
  const body = document.slice(from, from + bodyRows);
  return <Lines lines={[...lines.map((l, i) => ({ ...l, bold: i === 0 })), ...body]} width={width} height={height} />;
}

function patchLines(patch: string): string[] {
  return patch.replace(/\n$/, '').split('\n');
}

type DocTone = 'plain' | 'dim' | 'accent' | 'ok' | 'fail' | 'info';

/** A unified diff's line in the colour a reader expects: files, hunks, additions, removals. */
function diffTone(line: string): DocTone {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') || line.startsWith('index ')) return 'accent';
  if (line.startsWith('@@')) return 'info';
  if (line.startsWith('+')) return 'ok';
  if (line.startsWith('-')) return 'fail';
  return 'plain';
}

/** Everything of a task, whole: the statement, every test id of both lists, and both patches as diffs. */
function taskDocument(task: SweGymTask, width: number): { text: string; tone?: DocTone }[] {
  const out: { text: string; tone?: DocTone }[] = wrapLines(task.problem_statement.trim(), width).map((text) => ({ text }));
  const list = (title: string, items: string[]) => {
    out.push({ text: '' }, { text: `── ${title} (${items.length}) ──`, tone: 'info' });
    for (const t of items) for (const w of wrapLines(`  ${t}`, width)) out.push({ text: w });
    if (items.length === 0) out.push({ text: '  (none)', tone: 'dim' });
  };
  list('FAIL_TO_PASS', task.FAIL_TO_PASS);
  list('PASS_TO_PASS', task.PASS_TO_PASS);
  const diff = (title: string, patch: string | undefined) => {
    out.push({ text: '' }, { text: `── ${title} ──`, tone: 'info' });
    if (!patch) {
      out.push({ text: '  (none in the split: grading cannot be validated against it)', tone: 'dim' });
      return;
    }
    for (const l of patchLines(patch)) for (const w of wrapLines(l, width)) out.push({ text: w, tone: diffTone(l) });
  };
  diff('gold patch (diff)', task.patch);
  diff('test patch (diff)', task.test_patch);
  return out;
}

function DataView({ services, width, height, focus }: ScreenProps) {
  const status = useSel(services.data, (s) => s.status);
  const detail = useSel(services.data, (s) => s.detail);
  const filtering = useSel(services.data, (s) => s.filtering);
  const filter = useSel(services.data, (s) => s.filter);
  const hasDownload = useSel(services.data, (s) => s.download !== undefined);

  // Each time the screen opens: reload when the files changed on disk (a manual step, another console).
  useEffect(() => {
    void services.dataset.load({ ifChanged: true });
  }, [services]);

  // The filter field owns the keyboard while typing (the app suspends global keys while inputCaptured).
  const leaveFilter = () => {
    services.data.getState().set({ filtering: false });
    services.app.getState().setInputCaptured(false);
  };
  const filterText = useTextField({
    active: filtering,
    value: filter,
    onChange: (value) => services.data.getState().set({ filter: value, selected: 0 }),
    onSubmit: leaveFilter,
    onCancel: leaveFilter,
    maxLength: FILTER_MAX,
    // "/ " before it, the counts and keys after, in the table's width
    room: Math.max(8, (width >= 100 ? Math.floor(width * 0.6) : width) - 45),
  });

  const headerH = 2 + (hasDownload ? 1 : 0);
  const bodyH = Math.max(0, height - headerH);
  let body: React.ReactNode;
  if (status !== 'loaded') body = <NotLoaded services={services} width={width} height={bodyH} />;
  else if (detail) body = <TaskDetail services={services} width={width} height={bodyH} />;
  else if (width >= 100) {
    const left = Math.floor(width * 0.6);
    body = (
      <Box flexDirection="row" width={width} height={bodyH}>
        <TaskTable services={services} width={left} height={bodyH} focused={focus === 0} filterText={filterText} />
        <Box width={width - left} paddingLeft={1} height={bodyH}>
          <SummaryPanel services={services} width={width - left - 1} height={bodyH} focused={focus === 1} />
        </Box>
      </Box>
    );
  } else {
    // Compact: one panel at a time; Tab switches.
    body = focus === 1 ? <SummaryPanel services={services} width={width} height={bodyH} focused /> : <TaskTable services={services} width={width} height={bodyH} focused filterText={filterText} />;
  }
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Header services={services} width={width} />
      <DownloadLine services={services} width={width} />
      {body}
    </Box>
  );
}

function dataBindings(services: AppServices): Binding[] {
  const st = () => services.data.getState();
  const loaded = () => st().status === 'loaded';
  const inTable = () => loaded() && !st().detail && services.app.getState().focus === 0;
  const move = (delta: number | 'home' | 'end') => () => {
    const s = st();
    if (s.detail) {
      const next = delta === 'home' ? 0 : delta === 'end' ? 1e9 : Math.max(0, s.detailScroll + delta);
      s.set({ detailScroll: next });
      return;
    }
    const n = visibleTasks(s).length;
    if (!n) return;
    const next = delta === 'home' ? 0 : delta === 'end' ? n - 1 : Math.max(0, Math.min(n - 1, s.selected + delta));
    s.set({ selected: next });
  };
  return [
    shared(
      'filter',
      'filter',
      () => {
        st().set({ filtering: true });
        services.app.getState().setInputCaptured(true);
      },
      { when: inTable },
    ),
    shared('up', 'up', move(-1), { when: loaded, footer: false }),
    shared('down', 'down', move(1), { when: loaded, footer: false }),
    shared('pageUp', 'page up', move(-10), { when: loaded, footer: false }),
    shared('pageDown', 'page down', move(10), { when: loaded, footer: false }),
    shared('first', 'first', move('home'), { when: loaded, footer: false }),
    shared('last', 'last', move('end'), { when: loaded, footer: false }),
    shared(
      'open',
      'open task',
      () => {
        const s = st();
        const task = visibleTasks(s)[s.selected];
        if (task) s.set({ detail: task.instance_id, detailScroll: 0 });
      },
      { when: inTable },
    ),
    backOut([
      { description: 'close the task', isOpen: () => st().detail !== undefined, close: () => st().set({ detail: undefined, detailScroll: 0 }) },
      { description: 'clear the kept filter', isOpen: () => st().filter !== '', close: () => st().set({ filter: '', selected: 0 }) },
    ]),
    { ...intent('data.download'), run: () => void services.dataset.download() },
    shared(
      'stop',
      'cancel download',
      () => services.dataset.cancelDownload(),
      { when: () => Boolean(st().download?.running), footer: false },
    ),
    { ...intent('data.images'), run: () => void services.dataset.writeImages() },
    { ...intent('data.split'), run: () => services.dataset.switchSplit(), disabledReason: () => (st().download?.running ? 'not while the split downloads (stop the download first)' : undefined) },
    shared('refresh', 'reload', () => void services.dataset.load()),
  ];
}

export const dataScreen: ScreenModule = {
  id: 'data',
  title: 'Data',
  hotkey: '2',
  panels: ['tasks', 'summary'],
  Component: DataView,
  bindings: dataBindings,
};
