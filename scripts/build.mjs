// Bundles the console into dist/ with esbuild: production React, and heavy libraries (e2b, apache-arrow,
// parquet-wasm) left in lazily loaded chunks so that nothing heavy is parsed before the first frame.
import { build } from 'esbuild';
import { mkdir, writeFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist');
const stub = path.join(outdir, '.devtools-stub.mjs');

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
// Ink guards a dynamic import of react-devtools-core; esbuild hoists it, so alias it to an inert stub.
await writeFile(stub, 'export default { connectToDevTools() {}, initialize() {} };\n');

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
  logLevel: 'warning',
});
await writeFile(path.join(outdir, 'meta.json'), JSON.stringify(result.metafile));
const bytes = Object.entries(result.metafile.outputs)
  .filter(([f]) => f.endsWith('swegym-console.mjs'))
  .map(([, o]) => o.bytes)[0];
process.stderr.write(`built dist/swegym-console.mjs (${Math.round((bytes ?? 0) / 1024)} KiB entry)\n`);
