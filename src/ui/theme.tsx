// Colours with meaning (status thresholds), switched off by NO_COLOR / --no-color through one context.
import React, { createContext, useContext } from 'react';
import { Text, type TextProps } from 'ink';

export type Tone = 'ok' | 'warn' | 'fail' | 'info' | 'dim' | 'accent' | 'plain';

const COLORS: Record<Tone, string | undefined> = {
  ok: 'green',
  warn: 'yellow',
  fail: 'red',
  info: 'cyan',
  dim: 'gray',
  accent: 'magenta',
  plain: undefined,
};

export const ColorContext = createContext(true);

export function useColorEnabled(): boolean {
  return useContext(ColorContext);
}

/** Text with a semantic tone; without colour, tones fall back to plain text (symbols carry the meaning). */
export function T({ tone = 'plain', children, ...rest }: { tone?: Tone; children?: React.ReactNode } & Omit<TextProps, 'color'>) {
  const color = useColorEnabled();
  const c = color ? COLORS[tone] : undefined;
  return (
    <Text {...rest} color={c} dimColor={color && tone === 'dim' ? undefined : rest.dimColor} wrap={rest.wrap ?? 'truncate-end'}>
      {children}
    </Text>
  );
}

export const STATE_SYMBOL: Record<string, string> = {
  ok: '✓',
  present: '✓',
  passed: '✓',
  warn: '!',
  partial: '◐',
  stale: '~',
  fail: '✗',
  failed: '✗',
  invalid: '✗',
  missing: '·',
  skip: '-',
  unknown: '?',
  running: '▶',
};

export function toneFor(state: string): Tone {
  switch (state) {
    case 'ok':
    case 'present':
    case 'passed':
    case 'built':
      return 'ok';
    case 'warn':
    case 'partial':
    case 'stale':
      return 'warn';
    case 'fail':
    case 'failed':
    case 'invalid':
      return 'fail';
    case 'running':
    case 'building':
      return 'info';
    default:
      return 'dim';
  }
}
