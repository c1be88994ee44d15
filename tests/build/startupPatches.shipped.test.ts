// The build patches dependencies to keep slow work out of start-up (scripts/startup-patches.mjs). Each patched
// module must behave exactly like the original, and each patch must refuse, loudly, a file that has changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import {
  patchInkReconcilerWithoutTopLevelAwait,
  patchInkLineUpdate,
  patchInkRenderThrottle,
  patchStringWidth,
  patchTerminalSize,
  patchYogaIndexFromGlobal,
  patchYogaBase64,
  patchYogaWithoutFetch,
  YOGA_BASE64_DECODE,
} from '../../scripts/startup-patches.mjs';

const require = createRequire(import.meta.url);
/** A file of an installed package (found from its entry point: not every package exports package.json). */
function packageFile(pkg: string, rel: string): string {
  let dir = path.dirname(require.resolve(pkg));
  while (path.basename(dir) !== pkg.split('/').pop()) dir = path.dirname(dir);
  return path.join(dir, rel);
}

type StringWidth = (text: string, options?: { ambiguousIsNarrow?: boolean; countAnsiEscapeCodes?: boolean }) => number;

/** string-width with the patch applied, loaded from a temp file whose bare imports point at the installed packages. */
async function patchedStringWidth(): Promise<{ width: StringWidth; cleanup: () => Promise<void> }> {
  const file = packageFile('string-width', 'index.js');
  const fromStringWidth = createRequire(file);
  let source = patchStringWidth(await readFile(file, 'utf8'), file);
  for (const dep of ['strip-ansi', 'get-east-asian-width']) {
    const resolved = pathToFileURL(fromStringWidth.resolve(dep)).href;
    source = source.replace(`from '${dep}'`, `from '${resolved}'`);
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'swegym-string-width-'));
  const patchedFile = path.join(dir, 'index.mjs');
  await writeFile(patchedFile, source);
  const width = ((await import(pathToFileURL(patchedFile).href)) as { default: StringWidth }).default;
  return { width, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

test('patched string-width measures text as the original does: every code point of the BMP and plane 1, emoji, Hangul and mark sequences', async () => {
  const original = ((await import('string-width')) as { default: StringWidth }).default;
  const { width, cleanup } = await patchedStringWidth();
  try {
    // Every code point of the BMP and of plane 1 (emoji, symbols), tags and variation selectors; a sample of the
    // other planes (CJK extensions, private use). The regex claim behind the patch is checked over all of them below.
    const codePoints: number[] = [];
    for (let c = 0; c <= 0x1ffff; c++) codePoints.push(c);
    for (let c = 0x20000; c <= 0x10ffff; c += 97) codePoints.push(c);
    for (let c = 0xe0000; c <= 0xe01ef; c++) codePoints.push(c);
    for (const c of codePoints) {
      const ch = c >= 0xd800 && c <= 0xdfff ? String.fromCharCode(c) : String.fromCodePoint(c);
      const expected = original(ch);
      if (width(ch) !== expected) assert.fail(`U+${c.toString(16)}: patched ${width(ch)}, original ${expected}`);
    }
    const sequences = [
      '👨‍👩‍👧', '👍🏽', '🇩🇪', '🇩🇪🇫', '1️⃣', '1\u20E3', '#\uFE0F\u20E3', '☺\uFE0F', '☺', '❤️‍🔥', '🏳️‍🌈', 'e\u0301', '\u1100\u1161\u11A8',
      '\u1100\u1100\u1161', '한국어', 'ｶﾞ', '\u0915\u094D\u0937', 'a\u200Db', '\u001b[31m漢字\u001b[39m', '● ✓ ─ ⣿', '🧑‍💻 ok', '\t\r\n',
    ];
    for (const text of sequences) {
      for (const options of [{}, { ambiguousIsNarrow: false }, { countAnsiEscapeCodes: true }]) {
        assert.equal(width(text, options), original(text, options), `${JSON.stringify(text)} ${JSON.stringify(options)}`);
      }
    }
  } finally {
    await cleanup();
  }
});

test('as one code point, RGI_Emoji is exactly Emoji_Presentation less the regional indicators (every code point)', () => {
  const rgi = new RegExp('^\\p{RGI_Emoji}$', 'v');
  const single = /^(?!\p{Regional_Indicator})\p{Emoji_Presentation}$/u;
  const differ: string[] = [];
  for (let c = 0; c <= 0x10ffff; c++) {
    const ch = c >= 0xd800 && c <= 0xdfff ? String.fromCharCode(c) : String.fromCodePoint(c);
    if (rgi.test(ch) !== single.test(ch)) differ.push(`U+${c.toString(16)}`);
  }
  assert.deepEqual(differ, []);
});

test('each patch refuses a file in which its target text has changed, naming the file', () => {
  const cases: Array<[(source: string, file?: string) => string, string]> = [
    [patchStringWidth, 'string-width'],
    [patchYogaWithoutFetch, 'yoga-without-fetch'],
    [patchYogaBase64, 'yoga-base64'],
    [patchYogaIndexFromGlobal, 'yoga-from-global'],
    [patchInkReconcilerWithoutTopLevelAwait, 'ink-without-top-level-await'],
    [patchTerminalSize, 'terminal-size'],
    [(source: string, file?: string) => patchInkRenderThrottle(source, '/x/throttle.ts', file), 'ink-render-throttle'],
  ];
  for (const [patch, name] of cases) {
    assert.throws(() => patch('export default 1;\n', '/x/changed.js'), (err: Error) => err.message.includes(name) && err.message.includes('/x/changed.js'));
  }
});

test('yoga and Ink, patched, hold no top-level await, so a classic script can bundle them; unpatched they cannot', async () => {
  const files: Array<[string, (source: string) => string]> = [
    [packageFile('yoga-layout', 'dist/src/index.js'), patchYogaIndexFromGlobal],
    [packageFile('ink', 'build/reconciler.js'), patchInkReconcilerWithoutTopLevelAwait],
  ];
  for (const [file, patch] of files) {
    const source = await readFile(file, 'utf8');
    await assert.rejects(transform(source, { format: 'cjs', loader: 'js', logLevel: 'silent' }), /[Tt]op-level await/, `${file} unpatched`);
    const patched = patch(source);
    await transform(patched, { format: 'cjs', loader: 'js', logLevel: 'silent' });
    assert.doesNotMatch(patched, /await import\('\.\/devtools\.js'\)/);
  }
});

test('yoga without fetch takes the ArrayBuffer path for its inline wasm', async () => {
  const file = packageFile('yoga-layout', 'dist/binaries/yoga-wasm-base64-esm.js');
  const patched = patchYogaWithoutFetch(await readFile(file, 'utf8'), file);
  assert.doesNotMatch(patched, /typeof fetch/);
  assert.match(patched, /data:application\/octet-stream;base64,/);
});

test('yoga\'s inline wasm: the patched statement decodes the same bytes as the loader\'s own atob loop', async () => {
  const file = packageFile('yoga-layout', 'dist/binaries/yoga-wasm-base64-esm.js');
  const source = await readFile(file, 'utf8');
  const uri = /"(data:application\/octet-stream;base64,[A-Za-z0-9+/=]+)"/.exec(source)?.[1];
  assert.ok(uri, 'the wasm is inline');
  const patched = patchYogaBase64(source, file);
  const statement = patched.slice(patched.indexOf('var b=Buffer.from'), patched.indexOf(')', patched.indexOf('new Uint8Array(b.buffer')) + 1);
  // Each statement run on its own, as in the loader: `a` the data URI, `xa` the loader's atob; `d` the bytes.
  const run = (code: string) => new Function('a', 'xa', `${code};return d;`)(uri, atob) as Uint8Array;
  const before = run(YOGA_BASE64_DECODE);
  const after = run(statement);
  // A wasm module: its magic number and version 1.
  assert.ok(before.length > 50_000);
  assert.deepEqual([...before.subarray(0, 8)], [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
  assert.deepEqual(Buffer.from(after), Buffer.from(before));
});

test('Ink, patched, draws through the console\'s throttle: its one es-toolkit import replaced, both throttle() calls kept; the built UI bundle holds no es-toolkit', async () => {
  const file = packageFile('ink', 'build/ink.js');
  const source = await readFile(file, 'utf8');
  const patched = patchInkRenderThrottle(source, '/src/vendor/renderThrottle.ts', file);
  assert.doesNotMatch(patched, /es-toolkit/);
  assert.match(patched, /import \{ throttle \} from "\/src\/vendor\/renderThrottle\.ts";/);
  assert.equal(patched.split('throttle(').length, source.split('throttle(').length);
  // An Ink that throttles a third way (or with other edges) is refused: the replacement only does leading + trailing.
  assert.throws(() => patchInkRenderThrottle(source.replace('trailing: true,', 'trailing: false,'), '/t.ts', file), /ink-render-throttle/);
  const bundle = await readFile(path.resolve('dist/chunks/ui-vendor.cjs'), 'utf8');
  assert.doesNotMatch(bundle, /es-toolkit|maxWait/, 'the built UI bundle still carries es-toolkit\'s throttle');
});

test('Ink, patched, repaints a changed line through the changed-cells update; an Ink that calls it otherwise is refused; the built UI bundle holds it', async () => {
  const file = packageFile('ink', 'build/log-update.js');
  const source = await readFile(file, 'utf8');
  const patched = patchInkLineUpdate(source, '/src/vendor/lineUpdate.ts', file);
  assert.match(patched, /import \{ keepingUnchangedCells \} from "\/src\/vendor\/lineUpdate\.ts";\nconst lineUpdate = keepingUnchangedCells\(inkLineUpdate\);/);
  assert.equal(patched.split('lineUpdate(previousLines[i]').length, 2);
  assert.throws(() => patchInkLineUpdate(source.replace("import lineUpdate from './line-update.js';", "import lineUpdate from './line-update2.js';"), '/t.ts', file), /ink-line-update/);
  const bundle = await readFile(path.resolve('dist/chunks/ui-vendor.cjs'), 'utf8');
  assert.match(bundle, /\/\\u001B\\\[\[\\d;\]\*m\/gy/, 'the built UI bundle lacks the changed-cells update');
});
