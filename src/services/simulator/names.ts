// The simulated run's file names live with the monitor, which recognises them (monitor/simulatedRun.ts).
export { SIM_LOG_NAME, SIM_MANIFEST_NAME, SIM_LIVE_NAME, hasSimulationManifest } from '../monitor/simulatedRun.js';
