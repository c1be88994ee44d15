// File names of a simulated run, shared with the monitor (which labels such runs) without loading the simulator.
export const SIM_LOG_NAME = 'run.log';
/** Written beside run.log; `simulated: true` marks the run as not real training output. */
export const SIM_MANIFEST_NAME = 'simulation.json';
