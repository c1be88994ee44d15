// Help overlay (generated from the binding tables), quit confirmation and the command-log panel.
import React from 'react';
import { Box } from 'ink';
import { T } from './theme.js';
import type { Binding } from './keymap.js';
import type { CommandLogEntry } from '../services/process/commandLog.js';
import { formatDuration } from '../services/util/format.js';
import { padEnd, truncate } from './text.js';

export function HelpOverlay({ sections, width, height }: { sections: { title: string; bindings: Binding[] }[]; width: number; height: number }) {
  const lines: { text: string; tone: 'accent' | 'plain' | 'dim' }[] = [];
  for (const s of sections) {
    lines.push({ text: s.title, tone: 'accent' });
    for (const b of s.bindings) lines.push({ text: `  ${padEnd(b.keys.join(' / '), 16)} ${b.description}`, tone: 'plain' });
    lines.push({ text: '', tone: 'plain' });
  }
  lines.push({ text: 'Esc or ? closes this help.', tone: 'dim' });
  const inner = Math.max(1, height - 2);
  return (
    <Box flexDirection="column" borderStyle="round" width={width} height={height} paddingX={1} overflow="hidden">
      {lines.slice(0, inner).map((l, i) => (
        <T key={i} tone={l.tone}>
          {truncate(l.text, width - 4) || ' '}
        </T>
      ))}
    </Box>
  );
}

export function QuitConfirm({ jobs, width }: { jobs: string[]; width: number }) {
  return (
    <Box flexDirection="column" borderStyle="double" width={Math.min(width, 80)} paddingX={1}>
      <T tone="warn">Quit swegym-console?</T>
      <T>{truncate(`${jobs.length} job(s) still running: ${jobs.join(', ')}`, Math.min(width, 80) - 4)}</T>
      <T>Quitting stops them; finished work is kept and resumes next time.</T>
      <T tone="dim">Training runs are detached and keep running; the console finds them again later.</T>
      <T tone="accent">y quit · n / Esc stay</T>
    </Box>
  );
}

export function CommandLogPanel({ entries, width, height, now }: { entries: readonly CommandLogEntry[]; width: number; height: number; now: number }) {
  const rows = Math.max(1, height - 3);
  const shown = entries.slice(-rows);
  return (
    <Box flexDirection="column" borderStyle="single" width={width} height={height} paddingX={1} overflow="hidden">
      <T tone="accent">{truncate(`Command log (${entries.length} processes; secrets redacted)`, width - 4)}</T>
      {shown.length === 0 ? <T tone="dim">no processes started yet</T> : null}
      {shown.map((e) => {
        const dur = formatDuration((e.endedAt ?? now) - e.startedAt);
        const code = e.status === 'running' ? 'running' : e.status === 'detached' ? 'detached' : e.signal ? e.signal : `exit ${e.exitCode ?? '?'}`;
        const tone = e.status === 'ok' ? 'ok' : e.status === 'running' || e.status === 'detached' ? 'info' : 'fail';
        return (
          <T key={e.id} tone={tone}>
            {truncate(`${padEnd(code, 9)} ${padEnd(dur, 7)} ${e.argv.join(' ')}`, width - 4)}
          </T>
        );
      })}
    </Box>
  );
}

export function Footer({ bindings, width, hint }: { bindings: Binding[]; width: number; hint?: string }) {
  const parts = bindings.filter((b) => b.footer !== false).map((b) => `${b.keys[0]} ${b.description}`);
  const text = (hint ? hint + '  ' : '') + parts.join(' · ');
  return (
    <Box height={1} width={width}>
      <T tone="dim">{truncate(text, width)}</T>
    </Box>
  );
}
