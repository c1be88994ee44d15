// Source patches that keep slow work out of the console's start-up (and one that draws a burst's last frame sooner),
// applied by scripts/build.mjs to bundled dependencies. Each one checks that the text it replaces is still there and throws if a dependency update changed
// it, so that a patch never silently stops applying. Kept apart from the build so that tests can check each patched
// module against the original (tests/build/startupPatches.shipped.test.ts).

const STRING_WIDTH_RGI_REGEX = 'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;';
const STRING_WIDTH_RGI_TEST = 'rgiEmojiRegex.test(segment)';

// Building the RGI_Emoji set costs about 25 ms, and string-width builds it when its module loads. Build it on first
// need, and check one code point without it: as a single code point, RGI_Emoji is exactly Emoji_Presentation less
// the regional indicators (tests compare the two over every code point of the running Node).
const STRING_WIDTH_LAZY_RGI = `let rgiEmojiRegexBuilt;
const singleCodePointRgiEmojiRegex = /^(?!\\p{Regional_Indicator})\\p{Emoji_Presentation}$/u;
function isRgiEmoji(segment) {
	if (segment.length === 1 || (segment.length === 2 && segment.codePointAt(0) > 0xFFFF)) {
		return singleCodePointRgiEmojiRegex.test(segment);
	}
	rgiEmojiRegexBuilt ??= new RegExp('^\\\\p{RGI_Emoji}$', 'v');
	return rgiEmojiRegexBuilt.test(segment);
}`;

/** string-width: build the RGI_Emoji regex lazily; single code points skip it. */
export function patchStringWidth(source, file = 'string-width/index.js') {
  const regexHits = source.split(STRING_WIDTH_RGI_REGEX).length - 1;
  const testHits = source.split(STRING_WIDTH_RGI_TEST).length - 1;
  const otherUses = source.split('rgiEmojiRegex').length - 1 - regexHits - testHits;
  if (regexHits !== 1 || testHits !== 1 || otherUses !== 0) {
    throw new Error(
      `string-width-lazy-rgi: expected \`${STRING_WIDTH_RGI_REGEX}\` and \`${STRING_WIDTH_RGI_TEST}\` once each and no other ` +
        `use of rgiEmojiRegex in ${file} (found ${regexHits}, ${testHits}, ${otherUses}); string-width changed, update scripts/startup-patches.mjs`,
    );
  }
  // Replacer functions: the new text holds `$'`, which a replacement string would expand.
  return source.replace(STRING_WIDTH_RGI_REGEX, () => STRING_WIDTH_LAZY_RGI).replace(STRING_WIDTH_RGI_TEST, () => 'isRgiEmoji(segment)');
}

export const YOGA_FETCH_TEST = '"function"!=typeof fetch?';

/**
 * yoga-layout (Ink's layout engine) instantiates its inline wasm with `fetch(<data: URI>)` whenever a global `fetch`
 * exists, and touching Node's `fetch` loads its whole HTTP stack (undici) before the first frame. Make its loader
 * take the ArrayBuffer path, which decodes the same base64 in place.
 */
export function patchYogaWithoutFetch(source, file = 'yoga-wasm-base64-esm.js') {
  const hits = source.split(YOGA_FETCH_TEST).length - 1;
  const contents = source.replaceAll(YOGA_FETCH_TEST, 'true?');
  // Both of its loaders (binary promise and instantiation) test `fetch` this way; any other test is new code.
  if (hits < 1 || contents.includes('typeof fetch')) {
    throw new Error(
      `yoga-without-fetch: found ${hits} \`${YOGA_FETCH_TEST}\` in ${file}` +
        (contents.includes('typeof fetch') ? ' and another `typeof fetch` test' : '') +
        "; yoga-layout's wasm loader changed, update scripts/startup-patches.mjs so it does not load undici at start-up",
    );
  }
  return contents;
}

// yoga's ArrayBuffer path decodes its 96 KB of base64 with atob and a charCodeAt loop, ≈ 1 ms of cold interpreted
// JavaScript (3 ms in a profile) before the first frame; Node's Buffer decodes the same bytes in native code.
export const YOGA_BASE64_DECODE = 'var b=xa(a.slice(37)),c=new Uint8Array(b.length);for(a=0;a<b.length;++a)c[a]=b.charCodeAt(a);var d=c';

/** yoga-layout: its inline wasm decoded by Buffer rather than atob and a loop (same bytes). */
export function patchYogaBase64(source, file = 'yoga-wasm-base64-esm.js') {
  if (source.split(YOGA_BASE64_DECODE).length !== 2) {
    throw new Error(`yoga-base64: \`${YOGA_BASE64_DECODE}\` not found once in ${file}; yoga-layout's wasm loader changed, update scripts/startup-patches.mjs`);
  }
  // The data URI's prefix is 37 characters long, as the loader's own slice says.
  const native = 'var b=Buffer.from(a.slice(37),"base64");var d=new Uint8Array(b.buffer,b.byteOffset,b.length)';
  return source.replace(YOGA_BASE64_DECODE, () => native);
}

const TERMINAL_SIZE_IMPORT = "import {execFileSync} from 'node:child_process';";

/**
 * terminal-size (Ink) imports child_process (≈ 8 ms to load) for a fallback that runs `tput`/`resize` only when the
 * terminal does not report its size; load it when that fallback runs.
 */
export function patchTerminalSize(source, file = 'terminal-size/index.js') {
  if (source.split(TERMINAL_SIZE_IMPORT).length !== 2) {
    throw new Error(`terminal-size-lazy-child-process: \`${TERMINAL_SIZE_IMPORT}\` not found once in ${file}; update scripts/startup-patches.mjs`);
  }
  const lazy = "const execFileSync = (...args) => require('node:child_process').execFileSync(...args);";
  return source.replace(TERMINAL_SIZE_IMPORT, () => lazy);
}

const YOGA_INDEX_LOAD = 'const Yoga = wrapAssembly(await loadYoga());';

/**
 * yoga-layout's entry instantiates its wasm with a top-level await, which a classic script (the UI bundle, see
 * src/vendor/uiVendor.ts) cannot hold. In that bundle the entry takes the instance that start() created first.
 */
export function patchYogaIndexFromGlobal(source, file = 'yoga-layout/dist/src/index.js') {
  if (source.split(YOGA_INDEX_LOAD).length !== 2) {
    throw new Error(`yoga-from-global: \`${YOGA_INDEX_LOAD}\` not found once in ${file}; yoga-layout changed, update scripts/startup-patches.mjs`);
  }
  const fromGlobal =
    "const Yoga = globalThis[Symbol.for('swegym-console.yoga')];\n" +
    "if (!Yoga) throw new Error('yoga-layout was loaded before the UI bundle started it (src/vendor/uiVendor.ts)');";
  return source.replace(YOGA_INDEX_LOAD, () => fromGlobal);
}

// Ink loads React DevTools, and reads its package.json for them, with top-level awaits when DEV=true. The console
// never ships DevTools (scripts/build.mjs aliases them to an inert stub), and a classic script cannot hold a
// top-level await, so in the UI bundle both are skipped.
const INK_DEVTOOLS_PATCHES = [
  ["import.meta.resolve('react-devtools-core');", "throw new Error('React DevTools are not bundled');"],
  ["await import('./devtools.js');", '/* React DevTools are not bundled */'],
  ['const loaded = await loadPackageJson();', 'const loaded = { name: undefined, version: undefined };'],
];

/** ink/build/reconciler.js without its DEV-only top-level awaits. */
export function patchInkReconcilerWithoutTopLevelAwait(source, file = 'ink/build/reconciler.js') {
  let patched = source;
  for (const [from, to] of INK_DEVTOOLS_PATCHES) {
    if (patched.split(from).length !== 2) {
      throw new Error(`ink-without-top-level-await: \`${from}\` not found once in ${file}; Ink changed, update scripts/startup-patches.mjs`);
    }
    patched = patched.replace(from, () => to);
  }
  return patched;
}

const INK_THROTTLE_IMPORT = "import { throttle } from 'es-toolkit/compat';";
const INK_THROTTLE_CALL = /throttle\(/g;
const INK_THROTTLE_OPTIONS = /leading: true,\s*trailing: true,/g;

/**
 * ink/build/ink.js draws through the throttle in src/vendor/renderThrottle.ts instead of es-toolkit/compat's, whose
 * trailing call comes a full period after the last update of a burst rather than at most a period after the last
 * frame. Ink calls it twice (frames at maxFps, the log writes unthrottled), both leading and trailing, the only
 * options the replacement implements.
 */
export function patchInkRenderThrottle(source, throttleModule, file = 'ink/build/ink.js') {
  const imports = source.split(INK_THROTTLE_IMPORT).length - 1;
  const calls = (source.match(INK_THROTTLE_CALL) ?? []).length;
  const options = (source.match(INK_THROTTLE_OPTIONS) ?? []).length;
  if (imports !== 1 || calls !== 2 || options !== 2 || source.includes('es-toolkit', source.indexOf(INK_THROTTLE_IMPORT) + INK_THROTTLE_IMPORT.length)) {
    throw new Error(
      `ink-render-throttle: expected \`${INK_THROTTLE_IMPORT}\` once and two leading+trailing throttle() calls in ${file} ` +
        `(found ${imports}, ${calls} calls, ${options} with both edges); Ink changed, update scripts/startup-patches.mjs`,
    );
  }
  return source.replace(INK_THROTTLE_IMPORT, () => `import { throttle } from ${JSON.stringify(throttleModule)};`);
}

const INK_LINE_UPDATE_IMPORT = "import lineUpdate from './line-update.js';";

/**
 * ink/build/log-update.js repaints a changed line through src/vendor/lineUpdate.ts's wrapper of Ink's own line update:
 * where both lines are printable ASCII of one width it writes only the cells that changed, not the line's whole tail.
 */
export function patchInkLineUpdate(source, lineUpdateModule, file = 'ink/build/log-update.js') {
  const imports = source.split(INK_LINE_UPDATE_IMPORT).length - 1;
  const calls = (source.match(/lineUpdate\(/g) ?? []).length;
  if (imports !== 1 || calls !== 1) {
    throw new Error(
      `ink-line-update: expected \`${INK_LINE_UPDATE_IMPORT}\` once and one lineUpdate() call in ${file} ` +
        `(found ${imports}, ${calls} calls); Ink changed, update scripts/startup-patches.mjs`,
    );
  }
  return source.replace(
    INK_LINE_UPDATE_IMPORT,
    () => `import inkLineUpdate from './line-update.js';\nimport { keepingUnchangedCells } from ${JSON.stringify(lineUpdateModule)};\nconst lineUpdate = keepingUnchangedCells(inkLineUpdate);`,
  );
}
