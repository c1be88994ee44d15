// The CLI's one table renderer (issue 26): columns fit their widest cell, numbers right-aligned where asked, the last
// column never padded; and a run row worded once for the Train screen and `train list`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { renderTable } from '../../src/ui/renderTable.js';
import { runRowCells } from '../../src/services/train/runRow.js';
import type { RunView } from '../../src/state/types/train.js';

test('renderTable: a header when titled, widths from the widest cell, no trailing spaces', () => {
  const lines = renderTable([{ title: 'ID' }, { title: 'STATE' }, { title: 'TAGS' }], [['sbx-1', 'running', 'run=r1'], ['s2', 'paused', '']]);
  assert.deepEqual(lines, ['ID     STATE    TAGS', 'sbx-1  running  run=r1', 's2     paused']);
});

test('renderTable: right-aligned numbers, minimum widths, an indent, a gap, a block character counted as one column', () => {
  const lines = renderTable([{ minWidth: 4 }, { align: 'right', minWidth: 4 }, {}], [['moto', '12', '███'], ['a', '3', '█']], { indent: '  ' });
  assert.deepEqual(lines, ['  moto    12  ███', '  a        3  █']);
  assert.deepEqual(renderTable([{}, {}], [['x', 'y']], { gap: ' | ' }), ['x | y']);
});

test('a run row is worded once: status, host, pid and age for both faces', () => {
  const base = { name: 'swegym-a', status: 'running', pid: 42, createdAt: '2026-12-01T00:00:00.000Z', startedAt: '2026-12-01T00:00:00.000Z', host: 'gpu-7' } as unknown as RunView;
  const now = Date.parse('2026-12-01T00:03:10.000Z');
  assert.deepEqual(runRowCells(base, now), { status: 'running', where: '', name: 'swegym-a', pid: 'pid 42', age: '3m' });
  assert.deepEqual(runRowCells({ ...base, remote: true } as RunView, now), { status: 'running?', where: 'on gpu-7', name: 'swegym-a', pid: 'pid 42', age: '3m' });
  assert.equal(runRowCells({ ...base, status: 'exited', exitCode: 1, remote: true } as RunView, now).status, 'exited 1');
});
