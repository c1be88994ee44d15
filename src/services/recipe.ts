// The recipe's fixed facts, in one place (from Dressage's SWE-Gym recipe and its E2B blackbox templates): every
// service that needs one imports it from here, so a new pin changes one line.

/** The Hugging Face dataset the recipe trains on. */
export const SWEGYM_DATASET = 'NovaSky-AI/SkyRL-v0-293-data';

/** The SWE-Bench-Package commit whose harness and log parsers grade the tasks. */
export const SWEGYM_HARNESS_COMMIT = '16dd480cce9b27bf111a362d280881c6def5d2a7';

/** The fixed port of the Blackbox Server inside an E2B blackbox template. */
export const BLACKBOX_PORT = 31000;

/** The Ray dashboard's (and job API's) default port on the head node (`ray start --head --dashboard-port`). */
export const RAY_DASHBOARD_PORT = 8265;

/** Where a SWE-Gym task's repository is checked out inside its sandbox (the rows' default metadata.workdir). */
export const TASK_WORKDIR = '/testbed';

/**
 * The Dressage commit the console's launch preview and checks were verified against, side by side with its launcher
 * and its Python (the `.upstream` tests, against ../shared/upstream or SWEGYM_UPSTREAM=DIR). `doctor` compares the
 * workspace's checkout with it.
 */
export const VERIFIED_DRESSAGE_COMMIT = 'de8e8694fd116c963aa169a1873ad922880026c0';
