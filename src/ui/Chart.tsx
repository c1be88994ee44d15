// Chart components: one <Text> per row, fixed height, never wraps.
import React from 'react';
import { Box } from 'ink';
import { T, useColorEnabled, type Tone } from './theme.js';
import { brailleChart, ema, fitName, fmtNum, sparkline } from './charts.js';
import { COMPARE_GLYPH, curvePlot, xAxisLabels } from './curvePlot.js';
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

export interface CurveSeriesProps {
  key: string;
  label: string;
  x: readonly number[];
  y: readonly number[];
}

/** Last finite value of a series. */
export function lastFinite(values: readonly number[]): number | undefined {
  for (let i = values.length - 1; i >= 0; i--) if (Number.isFinite(values[i] as number)) return values[i];
  return undefined;
}

/**
 * A curve as W&B draws it: raw values faint (every point, spikes included), the EMA bold over them, a compared run
 * in its own tone; y labels are the raw min/max, the bottom row is the x-axis in rollouts. Exactly `height` rows.
 * The title (unless `title={false}`) shortens the metric's name to fit and keeps the values whole.
 */
export function CurveChart({ series, compare, width, height, smoothing, tone = 'info', focused = false, title = true, cursor }: { series: CurveSeriesProps; compare?: CurveSeriesProps; width: number; height: number; smoothing: number; tone?: Tone; focused?: boolean; title?: boolean; cursor?: number }) {
  const n = series.y.filter((v) => Number.isFinite(v)).length;
  const last = lastFinite(series.y);
  const sLast = lastFinite(ema(series.y, smoothing));
  const titleRows = title ? 1 : 0;
  const plotRows = Math.max(1, height - titleRows - 1);
  const labelW = width >= 24 ? 8 : 0;
  const plotW = Math.max(1, width - labelW);
  // Without colour the compared run needs a shape of its own.
  const color = useColorEnabled();
  const plot = curvePlot(series, plotW, plotRows, { smoothing, compare, ...(color ? {} : { compareGlyph: COMPARE_GLYPH }) });
  const rawStyle = smoothing > 0 ? 'raw' : 'ema';
  let head = '';
  if (title) {
    const values = n === 0 ? (series.y.length ? `${series.y.length} values, none finite` : 'no data yet') : `${fmtNum(last)}${smoothing > 0 && n > 1 ? ` · ema ${fmtNum(sLast)}` : ''}`;
    const short = n === 0 ? values : fmtNum(last);
    // The whole name with both values, else the whole name with the last value, else a shortened name.
    const fits = (t: string) => [...t].length <= width;
    head = [`${series.label} ${values}`, `${series.label} ${short}`].find(fits) ?? `${fitName(series.label, series.key, Math.max(1, width - [...short].length - 1))} ${short}`;
  }
  const cursorCol = cursor !== undefined && plot.domain ? plot.colOf(cursor) : undefined;
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {title ? (
        <T tone={focused ? 'accent' : 'plain'} bold={focused}>
          {truncate(head, width)}
        </T>
      ) : null}
      {plot.rows.map((segs, i) => {
        const label = labelW === 0 || !plot.range ? '' : i === 0 ? fmtNum(plot.range[1]) : i === plot.rows.length - 1 ? fmtNum(plot.range[0]) : '';
        return (
          <Box key={i} width={width} height={1}>
            {labelW ? <T tone="dim">{padEnd(label, labelW - 1) + ' '}</T> : null}
            {segs.map((s, j) => {
              const layer = s.layer === 'raw' ? rawStyle : s.layer;
              return layer === 'raw' ? (
                <T key={j} tone="dim" dimColor>
                  {s.text}
                </T>
              ) : layer === 'ema' ? (
                <T key={j} tone={tone} bold>
                  {s.text}
                </T>
              ) : layer === 'compare' ? (
                <T key={j} tone="warn">
                  {s.text}
                </T>
              ) : (
                <T key={j}>{s.text}</T>
              );
            })}
          </Box>
        );
      })}
      <T tone="dim">{truncate((labelW ? padEnd('rollout', labelW) : '') + xAxisLabels(plot.domain, plotW, cursorCol, plot.colOf), width)}</T>
    </Box>
  );
}
