// Child process for the kill -9 / Ctrl-C tests: the real headless entry (src/cli/main.ts) with the template
// commands pointed at a scripted provider whose built templates persist in a file shared with the test.
// Usage: node --import tsx tests/templates/buildChild.ts <stateFile> <buildMs> <buildsLog> -- <swegym-console args…>
import { appendFileSync } from 'node:fs';
import { setTemplatesProviderForTests } from '../../src/cli/commands/templates.js';
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
setTemplatesProviderForTests(async () => provider);
process.argv = [process.argv[0]!, 'swegym-console', ...process.argv.slice(sep + 1)];
await import('../../src/cli/main.js');
