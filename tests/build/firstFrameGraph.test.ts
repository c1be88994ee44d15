// What the built console loads before its first frame: the interactive chunk and everything it imports statically
// (the rest comes by dynamic import, after the frame). Issue #29 found the dataset reader there (the Data controller,
// created with the app's services, imported DataValidationError from read.ts): 9 KB of modules and a few ms of CPU
// before the first frame. The domain code stays out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Metafile } from 'esbuild';

const KEPT_OUT = ['src/services/dataset/read.ts', 'src/services/dataset/split.ts', 'src/services/doctor/doctor.ts', 'src/services/monitor/lines.ts', 'src/services/pipeline/pipeline.ts'];

/** The built console's metafile (dist/meta.json), its main part. */
async function mainMeta(): Promise<Metafile> {
  return (JSON.parse(await readFile(path.resolve('dist/meta.json'), 'utf8')) as { main: Metafile }).main;
}

/** The output files loaded from `starts` through static imports (what Node loads before they run). */
function staticallyLoaded(outs: Metafile['outputs'], ...starts: string[]): Set<string> {
  const seen = new Set<string>();
  const walk = (k: string) => {
    if (seen.has(k)) return;
    seen.add(k);
    for (const i of outs[k]?.imports ?? []) if (i.kind === 'import-statement' && outs[i.path]) walk(i.path);
  };
  for (const k of starts) walk(k);
  return seen;
}

test('the modules before the first frame hold none of the domain code', async () => {
  const meta = await mainMeta();
  const outs = meta.outputs;
  const start = Object.keys(outs).find((k) => 'src/cli/interactive.tsx' in (outs[k]?.inputs ?? {}));
  assert.ok(start, 'the build has an interactive chunk');
  const seen = staticallyLoaded(outs, start);
  const inputs = new Set([...seen].flatMap((k) => Object.keys(outs[k]?.inputs ?? {})));
  assert.ok(inputs.has('src/screens/HomeScreen.tsx'), 'the home screen is in the first frame');
  for (const m of KEPT_OUT) assert.ok(!inputs.has(m), `${m} loads before the first frame`);
});

test('no command loads node:crypto when it starts (its OpenSSL start-up is ≈ 10 ms of CPU; randomHex loads it on first use)', async () => {
  const meta = await mainMeta();
  const outs = meta.outputs;
  const entry = Object.keys(outs).find((k) => 'src/cli/main.ts' in (outs[k]?.inputs ?? {}));
  const interactive = Object.keys(outs).find((k) => 'src/cli/interactive.tsx' in (outs[k]?.inputs ?? {}));
  assert.ok(entry && interactive);
  const seen = staticallyLoaded(outs, entry, interactive);
  const crypto = [...seen].flatMap((k) => Object.keys(outs[k]?.inputs ?? {})).filter((i) => /crypto/.test(i));
  assert.deepEqual(crypto, [], 'node:crypto is imported before the first frame');
});

test('the first frame loads a handful of ES modules, not one per shared module (scripts/first-frame-prelude.mjs)', async () => {
  const meta = await mainMeta();
  const outs = meta.outputs;
  const entry = Object.keys(outs).find((k) => outs[k]?.entryPoint === 'src/cli/main.ts');
  const interactive = Object.keys(outs).find((k) => outs[k]?.entryPoint === 'src/cli/interactive.tsx');
  assert.ok(entry && interactive);
  const seen = staticallyLoaded(outs, entry, interactive);
  // The entry, the chunk of what every command loads, the interactive console, the chunk of its screens' shared code,
  // and the injected grapheme segmenter (which the scan worker shares). 45 before the preludes; each one ≈ 0.3 ms.
  assert.ok(seen.size <= 5, `${seen.size} ES modules before the first frame: ${[...seen].join(', ')}. A module that the entry imports statically and another imports dynamically splits the chunk: import it statically there too`);
});
