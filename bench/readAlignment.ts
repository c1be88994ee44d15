// Benchmark 1b: what a file read costs with the destination aligned to the file position modulo 64 and without
// (src/services/util/alignedRead.ts). The log readers depend on it: on this project's machines the kernel's copy from
// the page cache is several times slower when the two disagree. Method: a 512 MiB file in the page cache (written,
// then read once); the same 2 MiB reads into one page-aligned buffer, at offset 0 (aligned), at offset 1 and 16
// (not), and into a Node Buffer from malloc at its start; CPU time of each pass (process.cpuUsage), alternating
// three times, medians.
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { alignedBuffer } from '../src/services/util/alignedRead.js';
import { fmt, median, result, type BenchResult } from './lib.js';

const FILE_BYTES = 512 * 1024 * 1024;
const READ_BYTES = 2 * 1024 * 1024;

/** CPU ms to read the whole file in READ_BYTES reads into buf[offset…]. */
function readPass(file: string, buf: Buffer, offset: number): number {
  const fd = openSync(file, 'r');
  try {
    const c0 = process.cpuUsage();
    for (let pos = 0; ; ) {
      const n = readSync(fd, buf, offset, READ_BYTES, pos);
      if (n <= 0) break;
      pos += n;
    }
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000;
  } finally {
    closeSync(fd);
  }
}

export async function benchReadAlignment(log: (s: string) => void): Promise<BenchResult> {
  const res = result('read-alignment', 'file reads from the page cache, destination aligned to the file position (mod 64) or not, 512 MiB');
  const dir = await mkdtemp(path.join(tmpdir(), 'swegym-bench-align-'));
  try {
    const file = path.join(dir, 'data');
    const fd = openSync(file, 'w');
    const block = Buffer.alloc(READ_BYTES, 'log line text\n');
    for (let i = 0; i < FILE_BYTES / READ_BYTES; i++) writeSync(fd, block);
    closeSync(fd);
    const aligned = alignedBuffer(READ_BYTES + 64);
    const malloced = Buffer.allocUnsafe(READ_BYTES);
    readPass(file, aligned, 0); // into the page cache
    const cases: [string, Buffer, number][] = [
      ['aligned (page-aligned buffer, offset 0)', aligned, 0],
      ['1 byte apart (offset 1)', aligned, 1],
      ['16 bytes apart (offset 16)', aligned, 16],
      ['a Node Buffer of 2 MiB (malloc), offset 0', malloced, 0],
    ];
    const ms = cases.map(() => [] as number[]);
    log(`  ${cases.length} cases × 3 alternations …`);
    for (let round = 0; round < 3; round++) cases.forEach(([, buf, off], i) => ms[i]?.push(readPass(file, buf, off)));
    const medians = ms.map((xs) => median(xs));
    cases.forEach(([label], i) => res.metrics.push({ label: `CPU to read 512 MiB: ${label} (median)`, value: fmt(medians[i] as number, 0), unit: `ms (${(ms[i] as number[]).map((x) => fmt(x, 0)).join(', ')})` }));
    res.ratio = { value: (medians[1] as number) / (medians[0] as number), what: 'CPU of reads 1 byte apart ÷ aligned reads' };
    return res;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
