// The environment reference is generated from the command table and complete: every SWEGYM_ variable the source
// reads is in it, `--help` (the built binary) lists each one, and the README's table is exactly the generated one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { ENVIRONMENT } from '../../src/cli/commandTable.js';
import { environmentMarkdown } from '../../src/cli/completion.js';
import { SETTINGS } from '../../src/services/train/settings.js';
import { builtMissing, runConsole } from '../helpers/builtCli.js';

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sources(p)));
    else if (/\.tsx?$/.test(e.name)) out.push(p);
  }
  return out;
}

test('every SWEGYM_ variable the source reads from the environment is in the reference', async () => {
  const read = new Set<string>();
  for (const file of await sources('src')) {
    const text = await readFile(file, 'utf8');
    for (const m of text.matchAll(/env(?:\?)?\.(SWEGYM_[A-Z0-9_]+)|env\[['"](SWEGYM_[A-Z0-9_]+)['"]\]/g)) read.add((m[1] ?? m[2]) as string);
  }
  // Train's console-only settings are read from the environment too (and shown on the Train screen).
  for (const s of SETTINGS) if (s.key.startsWith('SWEGYM_')) read.add(s.key);
  assert.ok(read.size >= 15, [...read].join(' '));
  const listed = new Set(ENVIRONMENT.map((v) => v.name));
  assert.deepEqual([...read].filter((v) => !listed.has(v)).sort(), []);
});

test('the README holds the generated reference, and --help lists every variable', { skip: builtMissing() }, async () => {
  const readme = await readFile('README.md', 'utf8');
  const block = /<!-- environment: [^\n]*-->\n([^]*?)<!-- \/environment -->/.exec(readme)?.[1];
  assert.equal(block, environmentMarkdown(ENVIRONMENT), 'README.md: regenerate the table between the environment markers from ENVIRONMENT');
  const help = await runConsole(['--help']);
  for (const v of ENVIRONMENT) assert.match(help.out, new RegExp(`^ {2}${v.name} +\\S`, 'm'), v.name);
});
