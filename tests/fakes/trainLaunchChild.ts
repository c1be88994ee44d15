// Stands in for a console process (the TUI) that launches a training run and then stays alive: tests kill it with
// SIGKILL or hang up its process group and check that the detached launcher lives on.
// Usage: node --import tsx trainLaunchChild.ts <workspace>   (launcher settings come from the environment)
import { buildLaunchPlan, launchDetached } from '../../src/services/train/launch.js';
import { runLaunchChecks } from '../../src/services/train/checks.js';
import { recipePaths } from '../../src/services/workspace/paths.js';

const paths = recipePaths(process.argv[2] ?? '.');
const plan = buildLaunchPlan({ paths, env: process.env });
const checks = await runLaunchChecks(plan, { skipRay: true });
const run = await launchDetached(plan, { checks });
process.stdout.write(JSON.stringify({ name: run.name, pid: run.pid, pgid: run.pgid }) + '\n');
setInterval(() => {}, 1000);
