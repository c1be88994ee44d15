// Table: columns with widths and alignment, cells cut with "…" (wide graphemes counted as two columns, so the next
// column starts where it does on an ASCII row), the selected row kept in view, nothing wider than the terminal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React from 'react';
import { Table, columnWidths, tableLine, type Column } from '../../src/ui/Table.js';
import { displayWidth } from '../../src/ui/text.js';
import { renderInk } from '../helpers/ink.js';

const COLUMNS: Column[] = [
  { header: 'id', width: 'fill' },
  { header: 'repo', width: 8 },
  { header: 'F2P', width: 4, align: 'right' },
  { header: 'tpl', width: 3 },
];

test('widths: the fill column takes what the fixed columns and gaps leave', () => {
  assert.deepEqual(columnWidths(COLUMNS, 40), [40 - 8 - 4 - 3 - 3, 8, 4, 3]);
  assert.deepEqual(columnWidths(COLUMNS, 10), [1, 8, 4, 3], 'a fill column keeps one column on a narrow screen');
});

test('cells are padded, right-aligned or cut with "…"; the line is exactly as wide as the columns', () => {
  assert.equal(tableLine(COLUMNS, ['calc-2', 'org/calc', '2', '✓'], 30), 'calc-2       org/calc    2 ✓');
  assert.equal(tableLine(COLUMNS, ['a-very-long-instance-identifier', 'sample-org/calc', '12345', 'yes!'], 30), 'a-very-long… sample-… 123… ye…');
  assert.equal(displayWidth(tableLine(COLUMNS, ['x', 'y', '1', 'no'], 30)), 30 - 1, 'the last column is not padded');
});

test('a fill column at the end keeps its text up to the line width, cut once', () => {
  const cols: Column[] = [{ width: 1 }, { width: 6 }, { width: 'fill' }];
  assert.equal(tableLine(cols, ['›', 'built', 'image:latest  access denied'], 20), '› built  image:late…');
  assert.equal(tableLine(cols, [' ', 'queued', 'short'], 20), '  queued short');
});

test('wide and emoji graphemes count two columns: the next column starts at the same place', () => {
  const ascii = tableLine(COLUMNS, ['abcdefghijkl', 'REPO', '1', '✓'], 30);
  const wide = tableLine(COLUMNS, ['日本語のタスク名です', 'REPO', '1', '✓'], 30);
  const emoji = tableLine(COLUMNS, ['fix 👍🏽 and 🚀 ok!', 'REPO', '1', '✓'], 30);
  const at = (line: string) => displayWidth(line.slice(0, line.indexOf('REPO')));
  assert.equal(at(wide), at(ascii), wide);
  assert.equal(at(emoji), at(ascii), emoji);
  assert.match(wide, /^日本語のタ… {2}REPO/, 'a wide cell is cut before a grapheme that does not fit, and padded to its column');
  assert.ok(!emoji.includes('\u{1F3FD}') || emoji.includes('👍🏽'), 'a skin-toned emoji is never split from its modifier');
});

for (const size of [
  { width: 120, height: 40 },
  { width: 80, height: 24 },
]) {
  test(`${size.width}x${size.height}: header, the selected row kept in view, no line wider than the screen`, async () => {
    const rows = Array.from({ length: 60 }, (_, i) => ({
      key: `r${i}`,
      cells: [`sample-org__task-${i}${i % 7 === 0 ? ' 🚀 日本語' : ''}-${'x'.repeat(i)}`, `org/repo${i}`, String(i), i % 2 ? '✓' : '·'],
      tone: (i % 3 ? 'plain' : 'fail') as 'plain' | 'fail',
    }));
    const ui = renderInk(<Table columns={COLUMNS} rows={rows} width={size.width} height={size.height - 4} selected={49} />);
    try {
      await ui.waitForText('sample-org__task-49');
      const lines = ui.frame().split('\n');
      assert.match(lines[0]!, /^id +repo +F2P tpl$/);
      assert.equal(lines.length, size.height - 4, 'header plus the rows that fit');
      assert.ok(!ui.frame().includes('sample-org__task-0-'), 'the window moved to the selection');
      for (const l of lines) assert.ok(displayWidth(l) <= size.width, `${displayWidth(l)} > ${size.width}: ${l}`);
      assert.ok(lines.some((l) => l.includes('…')), 'long ids are cut with …');
    } finally {
      ui.unmount();
    }
  });
}

test('per-cell tones render the same text; an empty table says so', async () => {
  const cols: Column[] = [{ header: 'st', width: 2 }, { header: 'gold', width: 6 }, { header: 'template', width: 'fill' }];
  const ui = renderInk(
    <Table columns={cols} width={40} height={5} selected={0} rows={[{ key: 'a', cells: [{ text: '›✓', tone: 'ok' }, { text: 'R 2/2', tone: 'ok' }, { text: 'tpl-a', tone: 'dim' }] }]} />,
  );
  const empty = renderInk(<Table columns={cols} width={40} height={5} rows={[]} empty="no failing task" />);
  try {
    await ui.waitForText('tpl-a');
    assert.equal(ui.frame().split('\n')[1], tableLine(cols, ['›✓', 'R 2/2', 'tpl-a'], 40));
    await empty.waitForText('no failing task');
  } finally {
    ui.unmount();
    empty.unmount();
  }
});
