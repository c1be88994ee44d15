import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readTemplateMap, inspectTemplateMap, loadMapForUpdate, writeTemplateMap } from '../../src/services/templates/map.js';
import { ConsoleError } from '../../src/services/errors.js';
import { tempDir, removeDir } from '../helpers/workspace.js';

async function withFile(content: string | undefined, fn: (file: string) => Promise<void>) {
  const dir = await tempDir();
  const file = path.join(dir, 'e2b-template-map.json');
  if (content !== undefined) await writeFile(file, content);
  try {
    await fn(file);
  } finally {
    await removeDir(dir);
  }
}

async function rejectsWith(p: Promise<unknown>, message: string) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ConsoleError);
    assert.equal(err.what, message);
    assert.ok(err.fix);
    return true;
  });
}

test("the reader applies the converter's rules with its messages", async () => {
  await withFile('{"a": "t1",', async (f) => {
    await assert.rejects(readTemplateMap(f), (e: unknown) => e instanceof ConsoleError && e.what.startsWith(`invalid sandbox image map ${f}: `));
  });
  await withFile('["a"]', (f) => rejectsWith(readTemplateMap(f), `sandbox image map must be a JSON object: ${f}`));
  await withFile('"text"', (f) => rejectsWith(readTemplateMap(f), `sandbox image map must be a JSON object: ${f}`));
  await withFile('{"a": ""}', (f) => rejectsWith(readTemplateMap(f), `sandbox image map contains an empty key or value: ${f}`));
  await withFile('{"": "t"}', (f) => rejectsWith(readTemplateMap(f), `sandbox image map contains an empty key or value: ${f}`));
  await withFile('{}', (f) => rejectsWith(readTemplateMap(f), `sandbox image map is empty: ${f}`));
  await withFile('{"a": "t1"}', (f) => rejectsWith(readTemplateMap(f, ['a', 'b']), "sandbox image map has no entry for 'b'"));
  await withFile('{"a": "t1", "b": "t2"}', async (f) => {
    assert.deepEqual(await readTemplateMap(f, ['a', 'b']), { a: 't1', b: 't2' });
  });
  await withFile(undefined, async (f) => {
    const check = await inspectTemplateMap(f, ['a']);
    assert.equal(check.problems[0]?.kind, 'missing_file');
    assert.deepEqual(check.missing, ['a']);
  });
});

test('the writer keeps image-list order and drops empty values; updating refuses a damaged map', async () => {
  await withFile(undefined, async (f) => {
    await writeTemplateMap(f, { z: 'tz', b: 'tb', a: 'ta', e: '' }, ['b', 'a']);
    const text = (await import('node:fs/promises')).readFile(f, 'utf8');
    assert.deepEqual(Object.keys(JSON.parse(await text)), ['b', 'a', 'z']);
    assert.deepEqual(await loadMapForUpdate(f), { b: 'tb', a: 'ta', z: 'tz' });
  });
  await withFile('{broken', (f) => assert.rejects(loadMapForUpdate(f), /invalid sandbox image map/));
  await withFile(undefined, async (f) => assert.deepEqual(await loadMapForUpdate(f), {}));
});
