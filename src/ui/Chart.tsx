// Chart components: one <Text> per row, fixed height, never wraps.
import React from 'react';
import { Box } from 'ink';
import { T, type Tone } from './theme.js';
import { brailleChart, ema, fmtNum, sparkline } from './charts.js';
import { padEnd, truncate } from './text.js';

export function Sparkline({ values, width, min, max, tone }: { values: readonly number[]; width: number; min?: number; max?: number; tone?: Tone }) {
  return <T tone={tone}>{sparkline(values, width, { min, max }) || ' '}</T>;
}

/**
 * A titled line chart: raw values faint, EMA-smoothed line on top is what is drawn; the title carries the last
 * value, the smoothed value and the range. Exactly `height` rows.
 */
export function LineChart({ title, values, width, height, smoothing = 0.6, tone = 'info', focused = false }: { title: string; values: readonly number[]; width: number; height: number; smoothing?: number; tone?: Tone; focused?: boolean }) {
  const finite = values.filter((v) => Number.isFinite(v));
  const last = finite[finite.length - 1];
  const smooth = ema(values, smoothing);
  const sLast = [...smooth].reverse().find((v) => Number.isFinite(v));
  const plotRows = Math.max(1, height - 1);
  const labelW = width >= 24 ? 7 : 0;
  const { rows, range } = brailleChart(smooth, Math.max(1, width - labelW), plotRows);
  const head = `${title} ${fmtNum(last)}${smoothing > 0 && finite.length > 1 ? ` (ema ${fmtNum(sLast)})` : ''}${finite.length ? '' : values.length ? ` — ${values.length} values, none finite (nan/inf)` : ' — no data yet'}`;
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <T tone={focused ? 'accent' : 'plain'} bold={focused}>
        {truncate(head, width)}
      </T>
      {rows.map((r, i) => {
        const label = labelW === 0 || !range ? '' : i === 0 ? fmtNum(range[1]) : i === rows.length - 1 ? fmtNum(range[0]) : '';
        return (
          <T key={i} tone={tone}>
            {labelW ? <T tone="dim">{padEnd(label, labelW - 1) + ' '}</T> : null}
            {r}
          </T>
        );
      })}
    </Box>
  );
}
