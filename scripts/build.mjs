// Bundles the console into dist/ with esbuild: production React, and heavy libraries (e2b, apache-arrow,
// parquet-wasm) left in lazily loaded chunks so that nothing heavy is parsed before the first frame.
import { build } from 'esbuild';
import { mkdir, writeFile, rm, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist');
const stub = path.join(outdir, '.devtools-stub.mjs');

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
// Ink guards a dynamic import of react-devtools-core; esbuild hoists it, so alias it to an inert stub.
await writeFile(stub, 'export default { connectToDevTools() {}, initialize() {} };\n');

// yoga-layout (Ink's layout engine) instantiates its inline wasm with `fetch(<data: URI>)` whenever a global
// `fetch` exists, and touching Node's `fetch` loads its whole HTTP stack (undici) before the first frame. Make its
// loader take the ArrayBuffer path, which decodes the same base64 in place. Fails loudly if yoga's loader changes.
const YOGA_FETCH_TEST = '"function"!=typeof fetch?';
let yogaPatched = false;
const yogaWithoutFetch = {
  name: 'yoga-without-fetch',
  setup(b) {
    b.onLoad({ filter: /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const hits = source.split(YOGA_FETCH_TEST).length - 1;
      const contents = source.replaceAll(YOGA_FETCH_TEST, 'true?');
      // Both of its loaders (binary promise and instantiation) test `fetch` this way; any other test is new code.
      if (hits < 1 || contents.includes('typeof fetch')) {
        throw new Error(
          `yoga-without-fetch: found ${hits} \`${YOGA_FETCH_TEST}\` in ${args.path}` +
            (contents.includes('typeof fetch') ? ' and another `typeof fetch` test' : '') +
            "; yoga-layout's wasm loader changed, update scripts/build.mjs so it does not load undici at start-up",
        );
      }
      yogaPatched = true;
      return { contents, loader: 'js' };
    });
  },
};

// signal-exit 3 (used by Ink and restore-cursor) requires all of `node:assert` (≈ 17 ms to load) for one
// `assert.equal(typeof cb, 'function', …)`; give it that one function.
const signalExitAssert = {
  name: 'signal-exit-assert',
  setup(b) {
    b.onResolve({ filter: /^(node:)?assert$/ }, (args) =>
      /[\\/]signal-exit[\\/]/.test(args.importer) ? { path: 'signal-exit-assert', namespace: 'signal-exit-assert' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'signal-exit-assert' }, () => ({
      loader: 'js',
      contents:
        'exports.equal = function equal(actual, expected, message) {\n' +
        '  if (actual != expected) { var e = new Error(message || actual + " == " + expected); e.name = "AssertionError"; e.code = "ERR_ASSERTION"; throw e; }\n' +
        '};\n',
    }));
  },
};

// terminal-size (Ink) imports child_process (≈ 8 ms to load) for a fallback that runs `tput`/`resize` only when
// the terminal does not report its size; load it when that fallback runs. Fails loudly if the import changes.
const TERMINAL_SIZE_IMPORT = "import {execFileSync} from 'node:child_process';";
const terminalSizeLazyChildProcess = {
  name: 'terminal-size-lazy-child-process',
  setup(b) {
    b.onLoad({ filter: /[\\/]terminal-size[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (source.split(TERMINAL_SIZE_IMPORT).length !== 2) {
        throw new Error(`terminal-size-lazy-child-process: \`${TERMINAL_SIZE_IMPORT}\` not found once in ${args.path}; update scripts/build.mjs`);
      }
      const lazy = "const execFileSync = (...args) => require('node:child_process').execFileSync(...args);";
      return { contents: source.replace(TERMINAL_SIZE_IMPORT, lazy), loader: 'js' };
    });
  },
};

const result = await build({
  entryPoints: { 'swegym-console': path.join(root, 'src/cli/main.ts') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  define: { 'process.env.NODE_ENV': '"production"' },
  alias: { 'react-devtools-core': stub },
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  legalComments: 'none',
  minify: true,
  sourcemap: false,
  metafile: true,
  plugins: [yogaWithoutFetch, signalExitAssert, terminalSizeLazyChildProcess],
  logLevel: 'warning',
});
if (!yogaPatched) {
  throw new Error('yoga-without-fetch: yoga-layout/dist/binaries/yoga-wasm-base64-esm.js was not bundled; update scripts/build.mjs');
}
await writeFile(path.join(outdir, 'meta.json'), JSON.stringify(result.metafile));
const bytes = Object.entries(result.metafile.outputs)
  .filter(([f]) => f.endsWith('swegym-console.mjs'))
  .map(([, o]) => o.bytes)[0];
process.stderr.write(`built dist/swegym-console.mjs (${Math.round((bytes ?? 0) / 1024)} KiB entry)\n`);
