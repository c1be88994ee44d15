// File names of a simulated run. The monitor labels such runs and the simulator writes them; they live here, below
// both, so that the monitor never imports the simulator (the simulator re-exports them from simulator/names.ts).
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export const SIM_LOG_NAME = 'run.log';
/** Written beside run.log; `simulated: true` marks the run as not real training output. */
export const SIM_MANIFEST_NAME = 'simulation.json';
/**
 * Written beside run.log about once a second while a live simulation runs: its live sandboxes, phase and GPUs, the
 * simulated stand-ins for E2B, the Dressage proxy and nvidia-smi (see simulator/liveSources.ts).
 */
export const SIM_LIVE_NAME = 'live.json';

/** Whether `dir` holds the simulator's manifest (`simulated: true`). A missing or unreadable one means no. */
export async function hasSimulationManifest(dir: string): Promise<boolean> {
  try {
    const manifest = JSON.parse(await readFile(path.join(dir, SIM_MANIFEST_NAME), 'utf8')) as { simulated?: unknown } | null;
    return manifest?.simulated === true;
  } catch {
    return false;
  }
}
