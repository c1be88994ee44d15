// Buffers for large file reads, and where in them a read should land. On the machines this console runs on (AMD EPYC,
// Linux 6), the kernel copies a read from the page cache ≈ 4.8× slower when the destination address and the file
// position differ modulo a cache line: 1 GB read in 2 MiB reads took 380–400 ms of CPU with the two 1 or 16 bytes
// apart, 77–94 ms with them equal modulo 64 (bench/README.md, "Reads and cache-line alignment"). The segment scan
// read from one byte before each segment, and Node's large Buffers come from malloc 16 bytes into a page, so every
// read took the slow copy. A WebAssembly memory starts on a page, so a buffer made from one has a known alignment.

/** The one part of the WebAssembly API used here (the project's type libraries, without the DOM's, do not declare it). */
interface MemoryApi {
  Memory: new (d: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
}
const wasm = (globalThis as unknown as { WebAssembly?: MemoryApi }).WebAssembly;

/** File positions and buffer offsets agree modulo this many bytes for the fast copy. */
export const READ_ALIGNMENT = 64;

/** A buffer of at least `bytes` whose first byte lies on a page boundary (a fixed-size WebAssembly memory's). */
export function alignedBuffer(bytes: number): Buffer {
  const pages = Math.max(1, Math.ceil(bytes / 65_536));
  try {
    if (wasm) return Buffer.from(new wasm.Memory({ initial: pages, maximum: pages }).buffer, 0, bytes);
  } catch {
    // No room to reserve another memory: the slower copy below, the same bytes.
  }
  return Buffer.allocUnsafe(bytes);
}

/** The offset in an aligned buffer at which a read from `filePosition` keeps the two aligned. */
export function alignedOffset(filePosition: number): number {
  return filePosition % READ_ALIGNMENT;
}

/** The aligned file position at or before `position`: reading from it into an aligned buffer's start is fast. */
export function alignedStart(position: number): number {
  return position - alignedOffset(position);
}
