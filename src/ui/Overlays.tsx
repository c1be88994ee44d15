// Help overlay (generated from the binding tables, scrolling), quit confirmation, the command-log panel, the detail
// view (a row whole and wrapped), the footer and the tab bar.
import React from 'react';
import { Box } from 'ink';
import { T } from './theme.js';
import type { Binding } from './keymap.js';
import { INTENTS } from './intents.js';
import type { DetailContent } from '../state/app.js';
import { displayWidth, padEnd, truncate, visibleWindow, wrapText } from './text.js';
import { Lines, clampScroll, type Line } from './Lines.js';

export interface HelpSection {
  title: string;
  bindings: readonly Binding[];
}

/** A screen's keys for help, one section per place they apply: the screen's own, then each context in order. */
export function screenHelpSections(title: string, bindings: readonly Binding[]): HelpSection[] {
  const groups = new Map<string, Binding[]>();
  for (const b of bindings) {
    const key = b.context ?? '';
    groups.set(key, [...(groups.get(key) ?? []), b]);
  }
  const sections = [...groups].map(([context, list]) => ({ title: context ? `${title} — ${context}` : title, bindings: list }));
  return [...sections.filter((s) => s.title === title), ...sections.filter((s) => s.title !== title)];
}

export function helpLines(sections: readonly HelpSection[]): Line[] {
  const lines: Line[] = [];
  for (const s of sections) {
    if (!s.bindings.length) continue;
    lines.push({ text: s.title, tone: 'accent' });
    for (const b of s.bindings) {
      const disabled = b.disabledReason?.();
      lines.push({ text: `  ${padEnd(b.keys.join(' / '), 16)} ${b.description}${disabled ? ` (now: ${disabled})` : ''}`, tone: disabled ? 'dim' : 'plain' });
    }
    lines.push({ text: '', tone: 'plain' });
  }
  return lines;
}

/** Rows the help overlay shows of its text (inside the border, less the position line). */
export function helpRows(height: number): number {
  return Math.max(1, height - 3);
}

export function HelpOverlay({ sections, width, height, scroll, closeHint = 'Esc or ? closes this help' }: { sections: readonly HelpSection[]; width: number; height: number; scroll: number; closeHint?: string }) {
  const lines = helpLines(sections);
  const rows = helpRows(height);
  const start = clampScroll(scroll, lines.length, rows);
  const end = Math.min(lines.length, start + rows);
  const more = lines.length > rows;
  return (
    <Box flexDirection="column" borderStyle="round" width={width} height={height} paddingX={1} overflow="hidden">
      <Lines lines={lines} width={width - 4} height={rows} scroll={start} />
      <T tone="dim">{truncate(`${more ? `lines ${start + 1}–${end} of ${lines.length} · ↑↓ PgUp PgDn scroll · ` : ''}${closeHint}`, width - 4)}</T>
    </Box>
  );
}

/** The quit question: every sentence whole, wrapped to the box (the last one is what an operator must read). */
export function QuitConfirm({ jobs, width, answers = 'y / q quit · n / Esc stay' }: { jobs: string[]; width: number; answers?: string }) {
  const inner = Math.min(width, 80) - 4;
  const sentences: Line[] = [
    { text: 'Quit swegym-console?', tone: 'warn' },
    { text: `${jobs.length} job${jobs.length === 1 ? '' : 's'} still running: ${jobs.join(', ')}` },
    { text: 'Quitting stops them; finished work is kept and resumes next time.' },
    { text: 'Training runs are detached and keep running; the console finds them again later.', tone: 'dim' },
    { text: answers, tone: 'accent' },
  ];
  const lines = sentences.flatMap((l) => wrapText(l.text, inner).map((text): Line => ({ text, tone: l.tone })));
  return (
    <Box flexDirection="column" borderStyle="double" width={Math.min(width, 80)} paddingX={1}>
      {lines.map((l, i) => (
        <T key={i} tone={l.tone ?? 'plain'}>
          {l.text}
        </T>
      ))}
    </Box>
  );
}

/** One process of the command log, as the screen words it (src/screens/commandLogRows.ts). */
export interface CommandLogRow {
  id: number;
  /** `ok`, `exit 3`, `stopped`, `running` … */
  outcome: string;
  duration: string;
  /** When it started, as the clock on the wall says it (HH:MM:SS). */
  time: string;
  command: string;
  tone: 'ok' | 'info' | 'dim' | 'fail';
}

/** The command log as a list with a cursor (`selected`); Enter or v shows the process under it whole. */
export function CommandLogPanel({ rows: entries, width, height, selected }: { rows: readonly CommandLogRow[]; width: number; height: number; selected: number }) {
  const rows = Math.max(1, height - 4);
  const cursor = Math.max(0, Math.min(entries.length - 1, selected));
  const [start, end] = visibleWindow(entries.length, cursor, rows);
  return (
    <Box flexDirection="column" borderStyle="single" width={width} height={height} paddingX={1} overflow="hidden">
      <T tone="accent">{truncate(`Command log (${entries.length} processes; secrets redacted; stopped = ended by the console, expected)`, width - 4)}</T>
      {entries.length === 0 ? <T tone="dim">no processes started yet</T> : null}
      {entries.slice(start, end).map((e, i) => (
        <T key={e.id} tone={e.tone} inverse={start + i === cursor}>
          {truncate(`${start + i === cursor ? '›' : ' '} ${e.time} ${padEnd(e.outcome, 9)} ${padEnd(e.duration, 7)} ${e.command}`, width - 4)}
        </T>
      ))}
      <T tone="dim">{truncate(entries.length ? `${cursor + 1}/${entries.length} · ↑↓ choose · Enter or v the whole command, exit, duration, times · Esc closes` : 'Esc closes', width - 4)}</T>
    </Box>
  );
}

/** The detail view's text, wrapped to the width: nothing is cut. */
export function detailLines(detail: DetailContent, width: number): Line[] {
  const out: Line[] = [];
  for (const l of detail.lines) for (const w of wrapText(l.text, width)) out.push({ text: w, tone: l.tone });
  if (detail.copy) {
    out.push({ text: '', tone: 'plain' });
    out.push({ text: `${detail.copy.label}:`, tone: 'accent' });
    for (const w of wrapText(detail.copy.text, width - 2)) out.push({ text: `  ${w}`, tone: 'info' });
  }
  return out;
}

export function detailRows(height: number): number {
  return Math.max(1, height - 4);
}

export function DetailView({ detail, width, height, scroll }: { detail: DetailContent; width: number; height: number; scroll: number }) {
  const inner = width - 4;
  const lines = detailLines(detail, inner);
  const rows = detailRows(height);
  const start = clampScroll(scroll, lines.length, rows);
  const more = lines.length > rows;
  return (
    <Box flexDirection="column" borderStyle="round" width={width} height={height} paddingX={1} overflow="hidden">
      <T tone="accent" bold>
        {truncate(detail.title, inner)}
      </T>
      <Lines lines={lines} width={inner} height={rows} scroll={start} />
      <T tone="dim">
        {truncate(`${more ? `lines ${start + 1}–${Math.min(lines.length, start + rows)} of ${lines.length} · ↑↓ scroll · ` : ''}${detail.copy ? 'c copies the command · ' : ''}Esc closes`, inner)}
      </T>
    </Box>
  );
}

/** Keys the footer always shows, whatever the width: the way out, help and the command log (the user's keys, if moved). */
const PINNED_INTENTS = [
  ['quit', 'quit'],
  ['overlay.help', 'help'],
  ['overlay.log', 'log'],
] as const;
const PINNED_IDS = new Set<string>(PINNED_INTENTS.map(([id]) => id));

function pinnedText(bindings: readonly Binding[]): string {
  return PINNED_INTENTS.map(([id, word]) => `${(bindings.find((b) => b.intent === id)?.keys ?? INTENTS[id].keys)[0] ?? ''} ${word}`).join(' · ');
}

/** Moving about (rows, pages, panels, back): help (`?`) lists these; the footer keeps its room for actions. */
const NAVIGATION = new Set(['up', 'down', 'pageUp', 'pageDown', 'first', 'last', 'prevItem', 'nextItem', 'back', 'panel.next', 'panel.previous']);

/** A description without what it says in parentheses (or after a colon). */
function plain(description: string): string {
  return description.replace(/\s*\([^)]*\)/g, '').replace(/:.*$/, '').trim();
}

/** Its shortest form: the binding's own, else the description of two words or less, else its first real word. */
function shortest(b: Binding): string {
  if (b.short) return b.short;
  const words = plain(b.description).replace(/^(the|a|an) /, '').split(/\s+/);
  return words.length <= 2 ? words.join(' ') : (words[0] ?? '');
}

/**
 * The footer, as htop, k9s and lazygit have it: the actions that apply now (the focused panel's first, then the
 * screen's), navigation left to `?`; in full when they fit, else in their shortest form, else as many whole ones
 * as fit and "…" (never a word cut in half). `q quit · ? help · L log` always ends it.
 */
export function footerText(bindings: readonly Binding[], width: number, hint?: string): string {
  const PINNED = pinnedText(bindings);
  const pinned = new Set(bindings.filter((b) => PINNED_IDS.has(b.intent)).map((b) => b.keys[0] ?? ''));
  const seen = new Set<string>();
  const applying = bindings.filter((b) => {
    const key = b.keys[0] ?? '';
    if (b.footer === false || PINNED_IDS.has(b.intent) || pinned.has(key) || NAVIGATION.has(b.intent) || (b.when && !b.when()) || b.disabledReason?.() !== undefined || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // In the screen's order (its main actions first); a binding whose condition fails (another panel's) is left out.
  const ordered = applying;
  const room = width - PINNED.length - 3;
  if (room < 8) return truncate(PINNED, width);
  const lead = hint ? hint + '  ' : '';
  const fits = (text: string) => displayWidth(text) <= room;
  for (const form of [(b: Binding) => b.description, (b: Binding) => plain(b.description), shortest]) {
    const text = lead + ordered.map((b) => `${b.keys[0]} ${form(b)}`).join(' · ');
    if (fits(text)) return `${padEnd(text, room)} · ${PINNED}`;
  }
  const kept: string[] = [];
  for (const b of ordered) {
    const item = `${b.keys[0]} ${shortest(b)}`;
    if (!fits(`${lead}${[...kept, item].join(' · ')} …`)) break;
    kept.push(item);
  }
  return `${padEnd(truncate(`${lead}${kept.join(' · ')} …`, room), room)} · ${PINNED}`;
}

export function Footer({ bindings, width, hint }: { bindings: readonly Binding[]; width: number; hint?: string }) {
  return (
    <Box height={1} width={width}>
      <T tone="dim">{footerText(bindings, width, hint)}</T>
    </Box>
  );
}

/**
 * The tab bar in `width` columns: full titles when they fit, then without the name and padding, then the current
 * tab in full and the others as their number and initials, so every number key stays visible.
 */
export function tabBarText(tabs: readonly { hotkey: string; title: string }[], current: string, width: number): string {
  const full = 'swegym-console ' + tabs.map((t) => (t.title === current ? `[${t.hotkey} ${t.title}]` : ` ${t.hotkey} ${t.title} `)).join('');
  if ([...full].length <= width) return full;
  const tight = tabs.map((t) => (t.title === current ? `[${t.hotkey} ${t.title}]` : `${t.hotkey} ${t.title}`)).join(' ');
  if ([...tight].length <= width) return tight;
  for (const n of [4, 3, 2, 1]) {
    const short = tabs.map((t) => (t.title === current ? `[${t.hotkey} ${t.title}]` : `${t.hotkey} ${t.title.slice(0, n)}`)).join(' ');
    if ([...short].length <= width) return short;
  }
  return truncate(tabs.map((t) => (t.title === current ? `[${t.hotkey} ${t.title}]` : t.hotkey)).join(' '), width);
}
