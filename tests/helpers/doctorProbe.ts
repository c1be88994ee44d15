// A stand-in for the doctor's python3 probe that holds back part of its answers until a gate file exists: tests see
// the doctor's results stream in (the protocol is the console's own, src/services/doctor/probe.ts).
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from './workspace.js';

/** A bin directory whose python3 answers python and dressage, then waits for `gate` before the other packages. */
export async function gatedProbeBin(): Promise<{ bin: string; gate: string }> {
  const bin = await tempDir('swegym-home-bin-');
  const gate = path.join(bin, 'gate');
  const body = [
    `echo '{"python": "3.11.7"}'`,
    `echo '{"modules": {"dressage": true}, "dists": {"dressage": {"version": "0.1.0"}}}'`,
    `while [ ! -f '${gate}' ]; do /bin/sleep 0.05; done`,
    `echo '{"modules": {"blackbox_server": true, "pyarrow": true, "huggingface_hub": true, "swegym": true, "build": true}}'`,
  ];
  await writeFile(path.join(bin, 'python3'), `#!/bin/sh\n${body.join('\n')}\n`);
  await chmod(path.join(bin, 'python3'), 0o755);
  return { bin, gate };
}

