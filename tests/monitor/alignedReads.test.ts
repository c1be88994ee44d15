// The log readers' reads land where the kernel's copy stays aligned (src/services/util/alignedRead.ts: file position
// and destination equal modulo 64; misaligned, a read from the page cache cost ≈ 4.8× the CPU), and cutting the reads
// that way changes none of the bytes or lines read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from '../helpers/property.js';
import { READ_ALIGNMENT, alignedBuffer, alignedOffset, alignedStart } from '../../src/services/util/alignedRead.js';
import { readSegment } from '../../src/services/monitor/segmentScan.js';
import { FileFollower, scanFile, type LineScanner } from '../../src/services/monitor/tail.js';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait.js';

test('alignedStart and alignedOffset split a position into an aligned start and the offset past it', () => {
  fc.assert(
    fc.property(fc.nat({ max: 2 ** 40 }), (p) => {
      const start = alignedStart(p);
      assert.equal(start % READ_ALIGNMENT, 0);
      assert.ok(start <= p && p - start < READ_ALIGNMENT);
      assert.equal(start + alignedOffset(p), p);
    }),
  );
});

test('alignedBuffer: exactly the bytes asked for, at the start of a memory of whole 64 KiB pages', () => {
  for (const n of [1, 64, 65_536, 65_537, 4 * 1024 * 1024 + 64]) {
    const b = alignedBuffer(n);
    assert.equal(b.length, n);
    assert.equal(b.byteOffset, 0);
    assert.equal(b.buffer.byteLength % 65_536, 0, `${n}: a WebAssembly memory's pages`);
    b.fill(7);
    assert.equal(b[n - 1], 7);
  }
});

/** How far a buffer offset and a file position are apart modulo the alignment (0: the fast copy). */
function apart(offset: number, position: number): number {
  return (((offset - position) % READ_ALIGNMENT) + READ_ALIGNMENT) % READ_ALIGNMENT;
}

/** A file of generated lines (some long, some empty, maybe no final newline). */
const fileText = fc
  .tuple(fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ minLength: 100, maxLength: 3000 })), { maxLength: 40 }), fc.boolean())
  .map(([lines, lastNewline]) => lines.map((l) => l.replace(/\n/g, ' ')).join('\n') + (lastNewline ? '\n' : ''))
  .filter((t) => t.length > 0);

/** The lines that start in [start, end) of `bytes`, each to its newline or the end (readSegment's contract). */
function linesStartingIn(bytes: Buffer, start: number, end: number): string[] {
  const out: string[] = [];
  for (let s = 0; s < bytes.length; ) {
    let e = bytes.indexOf(10, s);
    if (e < 0) e = bytes.length;
    if (s >= start && s < end) out.push(bytes.toString('latin1', s, e));
    s = e + 1;
  }
  return out;
}

test('readSegment: every read aligned (file position ≡ buffer offset mod 64), and the same lines as a line split', async () => {
  const dir = await tempDir('swegym-aligned-');
  try {
    const file = path.join(dir, 'log');
    fc.assert(
      fc.property(fileText, fc.integer({ min: 1, max: 700 }), fc.integer({ min: 1, max: 9000 }), (text, segmentBytes, capacity) => {
        writeFileSync(file, text, 'latin1');
        const bytes = Buffer.from(text, 'latin1');
        const fd = openSync(file, 'r');
        try {
          const reads: { off: number; pos: number }[] = [];
          const recording = (f: number, buf: Buffer, off: number, n: number, pos: number) => {
            reads.push({ off: buf.byteOffset + off, pos });
            let got = 0;
            for (let r = 1; got < n && r > 0; got += r) r = readSync(f, buf, off + got, n - got, pos + got);
            return got;
          };
          const into = alignedBuffer(capacity);
          for (let start = 0; start < bytes.length; start += segmentBytes) {
            const end = Math.min(bytes.length, start + segmentBytes);
            const seg = readSegment(fd, start, end, bytes.length, into, recording);
            const got = seg.stop < 0 ? [] : seg.buf.toString('latin1', seg.from, seg.stop).split('\n');
            assert.deepEqual(got, linesStartingIn(bytes, start, end), `segment at ${start}`);
          }
          for (const r of reads) assert.equal(apart(r.off, r.pos), 0, `a read of position ${r.pos} into offset ${r.off}`);
        } finally {
          closeSync(fd);
        }
      }),
      { numRuns: 150 },
    );
  } finally {
    await removeDir(dir);
  }
});

/** A scanner that keeps what it is handed, and where each chunk lay in its buffer. */
function recordingScanner(): { scanner: LineScanner; chunks: Buffer[]; offsets: number[] } {
  const chunks: Buffer[] = [];
  const offsets: number[] = [];
  const push = (b: Buffer) => {
    chunks.push(Buffer.from(b));
    offsets.push(b.byteOffset);
  };
  return { scanner: { push, end: () => {}, reset: () => {} } as unknown as LineScanner, chunks, offsets };
}

test('scanFile from any offset in chunks of any size: the file\'s bytes from there, each chunk read aligned', async () => {
  const dir = await tempDir('swegym-aligned-');
  try {
    const file = path.join(dir, 'log');
    const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => `line ${i} ${'x'.repeat(i % 37)}`).join('\n') + '\n');
    writeFileSync(file, bytes);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: bytes.length }), fc.integer({ min: 500, max: 40_000 }), async (offset, chunkBytes) => {
        const { scanner, chunks, offsets } = recordingScanner();
        const r = await scanFile(file, scanner, { offset, chunkBytes });
        assert.equal(r.offset, bytes.length);
        assert.ok(Buffer.concat(chunks).equals(bytes.subarray(offset)));
        let pos = offset;
        chunks.forEach((c, i) => {
          assert.equal(apart(offsets[i] as number, pos), 0, `chunk ${i} at position ${pos}`);
          pos += c.length;
        });
      }),
      { numRuns: 40 },
    );
  } finally {
    await removeDir(dir);
  }
});

test('follower: appends at unaligned offsets are read whole, each read aligned', async () => {
  const dir = await tempDir('swegym-aligned-');
  const file = path.join(dir, 'log');
  writeFileSync(file, 'first line\n');
  const { scanner, chunks, offsets } = recordingScanner();
  const follower = new FileFollower(file, scanner, { intervalMs: 5, chunkBytes: 1000 });
  try {
    follower.start();
    let text = 'first line\n';
    for (let i = 0; i < 5; i++) {
      const more = `appended ${i} ${'y'.repeat(300 * i + 13)}\n`;
      text += more;
      appendFileSync(file, more);
      await waitFor(() => Buffer.concat(chunks).length === text.length, { message: () => `append ${i} not read: ${Buffer.concat(chunks).length} of ${text.length} bytes` });
    }
    assert.equal(Buffer.concat(chunks).toString(), text);
    let pos = 0;
    chunks.forEach((c, i) => {
      assert.equal(apart(offsets[i] as number, pos), 0, `read ${i} at position ${pos}`);
      pos += c.length;
    });
  } finally {
    await follower.stop();
    await removeDir(dir);
  }
});
