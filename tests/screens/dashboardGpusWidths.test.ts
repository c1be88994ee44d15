// The GPU panel's node headings keep their columns as the numbers in them change (util 99% → 100%, memory used
// gaining a digit), so a poll repaints the cells that changed rather than the rest of the row (bench/README.md,
// dashboard-rows at a run's own pace).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from '../helpers/property.js';
import { gpuPanelLines } from '../../src/screens/dashboardGpus.js';
import type { MonitorSnapshot } from '../../src/state/monitor.js';
import type { GpuSample } from '../../src/state/types/monitor.js';

function snapshot(util: number, memUsedMiB: number): MonitorSnapshot {
  const sample = (index: number): GpuSample =>
    ({ index, uuid: `GPU-${index}`, name: 'NVIDIA H200', util, memUtil: undefined, memTotal: 143_771, memUsed: memUsedMiB, memFree: undefined, temp: 58, power: 550, powerLimit: 700 }) as GpuSample;
  const nodes = [0, 1].map((n) => ({ label: `node-${n}`, ip: `10.1.0.${10 + n}`, isHead: n === 0, state: 'ALIVE', gpus: [0, 1, 2, 3].map((g) => ({ sample: sample(g), util: [util], mem: [50] })) }));
  return {
    gpuPanel: { source: 'ray', label: 'Ray cluster · 2 nodes · 8 GPUs', nodes, note: undefined, columnSeconds: 10 },
    proxy: { url: undefined, last: undefined },
    header: {},
  } as unknown as MonitorSnapshot;
}

const headings = (s: MonitorSnapshot) => gpuPanelLines(s, 60, 8, false).filter((l) => /^n\d /.test(l.text)).map((l) => l.text);

test('a node heading is as wide at any utilisation and memory, and only the changed cells differ', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 143_771 }), fc.integer({ min: 0, max: 143_771 }), (u1, u2, m1, m2) => {
      const [a, b] = [headings(snapshot(u1, m1)), headings(snapshot(u2, m2))];
      assert.equal(a.length, 2, 'the compact layout: a heading per node');
      a.forEach((line, k) => {
        const other = b[k]!;
        assert.equal([...line].length, [...other].length, `${line}\n${other}`);
        // After the memory figure nothing moves.
        assert.equal(line.slice(line.indexOf('G · ')), other.slice(other.indexOf('G · ')));
      });
    }),
    { numRuns: 200 },
  );
  assert.match(headings(snapshot(99, 8192))[0]!, /^n0 node-0 \(head\) [▁▂▃▄▅▆▇█]{4} util {2}99% · mem {2}32\/562G · 4 GPUs/);
});
