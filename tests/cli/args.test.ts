import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommandLine, helpText } from '../../src/cli/args.js';
import { COMMANDS } from '../../src/cli/commandTable.js';

const env = {} as NodeJS.ProcessEnv;

test('no arguments starts the interactive console with defaults', () => {
  const r = parseCommandLine([], env, '/x');
  assert.equal(r.kind, 'interactive');
  if (r.kind === 'interactive') {
    assert.equal(r.global.workspace, '/x');
    assert.equal(r.global.provider, 'e2b');
    assert.equal(r.global.color, true);
  }
});

test('global options before and after the command', () => {
  const r = parseCommandLine(['--workspace', 'ws', 'templates', 'build', '--concurrency', '4', '--only', 'a', '--only', 'b', '--provider', 'local', '--json'], env, '/x');
  assert.equal(r.kind, 'command');
  if (r.kind !== 'command') return;
  assert.deepEqual(r.spec.words, ['templates', 'build']);
  assert.equal(r.global.workspace, '/x/ws');
  assert.equal(r.global.provider, 'local');
  assert.equal(r.global.json, true);
  assert.equal(r.options.concurrency, '4');
  assert.deepEqual(r.options.only, ['a', 'b']);
});

test('NO_COLOR and --no-color turn colour off', () => {
  const a = parseCommandLine(['doctor'], { NO_COLOR: '1' }, '/');
  const b = parseCommandLine(['doctor', '--no-color'], env, '/');
  assert.ok(a.kind === 'command' && !a.global.color);
  assert.ok(b.kind === 'command' && !b.global.color);
});

test('usage errors are errors, with a hint', () => {
  for (const argv of [['nope'], ['data'], ['data', 'nope'], ['doctor', '--bogus'], ['doctor', 'extra'], ['--provider', 'docker', 'doctor'], ['templates', 'build', '--concurrency']]) {
    const r = parseCommandLine(argv, env, '/');
    assert.equal(r.kind, 'error', `expected error for ${argv.join(' ')}`);
  }
  const r = parseCommandLine(['data'], env, '/');
  assert.ok(r.kind === 'error' && r.hint?.includes('download'));
});

test('--json is refused by commands without JSON output', () => {
  const spec = COMMANDS.find((c) => !c.json);
  if (!spec) return; // every command supports --json
  const r = parseCommandLine([...spec.words, '--json'], env, '/');
  assert.equal(r.kind, 'error');
});

test('help covers every command, and per-command help lists its options', () => {
  const text = helpText('0.0.0');
  for (const c of COMMANDS.filter((c) => !c.hidden)) assert.ok(text.includes(c.words.join(' ')), c.words.join(' '));
  const r = parseCommandLine(['templates', 'build', '--help'], env, '/');
  assert.equal(r.kind, 'help');
  if (r.kind === 'help') assert.match(helpText('0.0.0', r.topic), /--concurrency N/);
});

test('the whole command surface of the design is in the table', () => {
  const expected = ['doctor', 'data download', 'data images', 'data show', 'artifacts build', 'templates build', 'templates smoke', 'templates status', 'convert', 'validate harness', 'validate agent', 'train launch', 'train list', 'train status', 'train stop', 'monitor', 'report', 'agent-log', 'sandboxes list', 'sandboxes kill', 'demo', 'keys', 'completion'];
  assert.deepEqual(COMMANDS.filter((c) => !c.hidden).map((c) => c.words.join(' ')).sort(), expected.sort());
});
