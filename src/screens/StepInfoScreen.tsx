// A step screen that explains the step (what, why, files, manual and headless commands) until its interactive
// view exists. It never pretends work was done.
import React from 'react';
import { Box } from 'ink';
import type { ScreenModule, ScreenProps } from './types.js';
import { T } from '../ui/theme.js';
import { truncate } from '../ui/text.js';

export interface StepInfo {
  id: string;
  title: string;
  hotkey: string;
  what: string;
  why: string;
  files: string[];
  manual: string;
  headless: string;
}

export function stepInfoScreen(info: StepInfo): ScreenModule {
  function StepInfoView({ width, height }: ScreenProps) {
    const lines: [string, 'plain' | 'dim' | 'info' | 'accent'][] = [
      [info.what, 'plain'],
      [info.why, 'dim'],
      ['', 'plain'],
      ...info.files.map((f) => [`file: ${f}`, 'dim'] as [string, 'dim']),
      ['', 'plain'],
      [`manual:   ${info.manual}`, 'dim'],
      [`headless: ${info.headless}`, 'info'],
      ['', 'plain'],
      ['The interactive view of this step is not in this version yet; use the headless command above.', 'accent'],
    ];
    return (
      <Box flexDirection="column" width={width} height={height} overflow="hidden">
        <T bold>{truncate(info.title, width)}</T>
        {lines.slice(0, Math.max(0, height - 1)).map(([text, tone], i) => (
          <T key={i} tone={tone}>
            {truncate(text, width) || ' '}
          </T>
        ))}
      </Box>
    );
  }
  return { id: info.id, title: info.title, hotkey: info.hotkey, panels: ['main'], Component: StepInfoView, bindings: () => [] };
}
