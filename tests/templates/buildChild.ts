// Child process for the kill -9 / Ctrl-C tests: the real headless command line (src/cli/run.ts, what main.ts runs)
// with a scripted provider, whose built templates persist in a file shared with the test, in the registry's deps.
// Usage: node --import tsx tests/templates/buildChild.ts <stateFile> <buildMs> <buildsLog> -- <swegym-console args…>
import { appendFileSync } from 'node:fs';
import { runCli } from '../../src/cli/run.js';
import { FakeProvider } from './fakeProvider.js';

const [stateFile, buildMs, buildsLog] = process.argv.slice(2, 5) as [string, string, string];
const sep = process.argv.indexOf('--');
const provider = new FakeProvider({ stateFile, buildMs: Number(buildMs) });
const build = provider.buildTemplate.bind(provider);
provider.buildTemplate = async (spec, opts) => {
  appendFileSync(buildsLog, `start ${spec.name}\n`);
  const r = await build(spec, opts);
  appendFileSync(buildsLog, `done ${spec.name}\n`);
  return r;
};
process.exitCode = await runCli(process.argv.slice(sep + 1), { providers: { open: async () => provider } });
