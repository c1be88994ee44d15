// `swegym-console keys`, the built binary: the keys in use with the user's keys.json applied (and what it got
// wrong, on stderr, the command still exiting 0), --json for scripts, and --defaults --markdown is docs/KEYS.md's table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { builtMissing, runConsole } from '../helpers/builtCli.js';
import { removeDir, tempDir } from '../helpers/workspace.js';

test('keys: the overrides applied, problems named, --json and --markdown from the one table', { skip: builtMissing() }, async () => {
  const config = await tempDir();
  try {
    await mkdir(path.join(config, 'swegym-console'));
    await writeFile(path.join(config, 'swegym-console', 'keys.json'), JSON.stringify({ 'train.launch': 'Z', 'train.checks': 'x' }));
    const env = { XDG_CONFIG_HOME: config };
    const text = await runConsole(['keys'], env);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /^ {2}train\.launch +Z +launch \(checks, then asks\) +\(keys\.json\)$/m);
    assert.match(text.out, /^ {2}train\.checks +C +run checks$/m, 'the clashing override kept the default');
    assert.match(text.err, /x for train\.checks is also stop's key; train\.checks keeps C/);
    const json = await runConsole(['keys', '--json'], env);
    const doc = JSON.parse(json.out) as { ok: boolean; problems: string[]; keys: { intent: string; keys: string[]; overridden: boolean }[] };
    assert.equal(doc.ok, true);
    assert.deepEqual(doc.keys.find((k) => k.intent === 'train.launch'), { intent: 'train.launch', keys: ['Z'], description: 'launch (checks, then asks)', where: 'train', overridden: true });
    assert.equal(doc.problems.length, 1);
    const md = await runConsole(['keys', '--defaults', '--markdown'], env);
    const block = /<!-- keys: [^\n]*-->\n([^]*?)<!-- \/keys -->/.exec(await readFile('docs/KEYS.md', 'utf8'))?.[1];
    assert.equal(md.out, block);
  } finally {
    await removeDir(config);
  }
});
