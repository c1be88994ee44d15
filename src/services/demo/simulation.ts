// The demo's monitoring part: a simulated Dressage run written live into the sample workspace, for the dashboard to
// follow. It is labelled everywhere it shows (simulation.json beside run.log; see monitor/resolve.ts isSimulatedRun).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { recipePaths } from '../workspace/paths.js';
import { LiveSimulator } from '../simulator/writer.js';
import { hasSimulationManifest, SIM_LOG_NAME } from '../simulator/names.js';
import type { SimConfig } from '../simulator/runGenerator.js';

export const DEMO_RUN_NAME = 'swegym-demo-simulated';

/**
 * A run paced for watching: a rollout of 8 prompts × 16 samples about every 45 s of wall time (3× faster than the
 * simulated clock), so that samples, rollouts, train steps and checkpoints all appear within a few minutes.
 */
export const DEMO_SIMULATION: Partial<SimConfig> = {
  runName: DEMO_RUN_NAME,
  numRollouts: 200,
  rolloutSeconds: 120,
  trainSeconds: 15,
  startupSeconds: 6,
  noiseLinesPerSecond: 10,
  saveInterval: 5,
};
export const DEMO_SIMULATION_SPEED = 3;

export interface DemoSimulation {
  /** The run directory (outputs/logs/<DEMO_RUN_NAME>): run.log, simulation.json, traj files. */
  dir: string;
  stop(): Promise<void>;
}

/** Whether `dir` holds nothing, or only an earlier simulated run (which may be replaced). */
async function replaceable(dir: string): Promise<boolean> {
  return !existsSync(path.join(dir, SIM_LOG_NAME)) || (await hasSimulationManifest(dir));
}

/** Starts the simulated run in `workspace`; it runs until stop() (or the signal). Never replaces a real run's log. */
export async function startDemoSimulation(workspace: string, opts: { signal?: AbortSignal; speed?: number } = {}): Promise<DemoSimulation> {
  const dir = recipePaths(workspace).runLogDir(DEMO_RUN_NAME);
  const simulator = new LiveSimulator({
    dir,
    force: await replaceable(dir),
    config: { ...DEMO_SIMULATION, workspace },
    speed: opts.speed ?? DEMO_SIMULATION_SPEED,
    signal: opts.signal,
  });
  await simulator.start();
  return { dir, stop: () => simulator.stop() };
}
