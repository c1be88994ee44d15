// The Ray job of a run: `ray job submit` prints `Job 'raysubmit_…' submitted successfully` near the start of the
// launcher's output (before it streams the job's logs), so the run log names its job.
import { open } from 'node:fs/promises';

const SUBMITTED = /Job '(raysubmit_[A-Za-z0-9]+)' submitted successfully/;

/** The submission id in the first `maxBytes` of the log (the line comes after the launcher's set-up), if any. */
export async function rayJobIdInLog(file: string, maxBytes = 64 * 1024 * 1024): Promise<string | undefined> {
  let fh;
  try {
    fh = await open(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(1024 * 1024);
    let carry = '';
    for (let pos = 0; pos < maxBytes; ) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) return undefined;
      pos += bytesRead;
      const text = carry + buf.subarray(0, bytesRead).toString('latin1');
      const m = SUBMITTED.exec(text);
      if (m) return m[1];
      // A line cut at the chunk's end is read again with the next one.
      carry = text.slice(-200);
    }
    return undefined;
  } finally {
    await fh.close();
  }
}
