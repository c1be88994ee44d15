// Re-records the real Claude Code CLI's transcripts (tests/fixtures/claude-code/*.jsonl) against the scripted
// Anthropic server and says which changed. Run after upgrading @anthropic-ai/claude-code: `npm run record:claude-code`.
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURE_DIR, SCENARIOS, claudeCodeCli, normaliseTranscript, runScenario } from '../tests/helpers/claudeCode.js';

const cli = claudeCodeCli();
if (!cli) {
  console.error('Claude Code CLI not installed (node_modules/.bin/claude); run npm install first.');
  process.exit(3);
}
const only = process.argv.slice(2);
fs.mkdirSync(FIXTURE_DIR, { recursive: true });
let changed = 0;
for (const name of Object.keys(SCENARIOS)) {
  if (only.length > 0 && !only.includes(name)) continue;
  const run = await runScenario(name);
  const text = normaliseTranscript(run.raw, run);
  const file = path.join(FIXTURE_DIR, `${name}.jsonl`);
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  fs.writeFileSync(file, text);
  const state = before === text ? 'unchanged' : before ? 'CHANGED' : 'new';
  if (state !== 'unchanged') changed++;
  console.log(`${name}: exit ${run.code}, ${text.split('\n').length - 1} events, ${state}${run.stderr.trim() ? ` (stderr: ${run.stderr.trim().split('\n').at(-1)})` : ''}`);
}
console.log(`Claude Code ${cli.version}: ${changed} transcript(s) new or changed (git diff tests/fixtures/claude-code shows what).`);
