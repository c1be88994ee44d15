// Loads parquet-wasm in a way that survives bundling: the package's Node entry reads its .wasm through __dirname,
// which does not exist in the ESM bundle, so we take the web (ESM) build and hand it the .wasm bytes resolved from
// node_modules. Loaded once, lazily (start-up stays light).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { ConsoleError } from '../errors.js';

type ParquetWasm = typeof import('parquet-wasm/esm');

let loading: Promise<ParquetWasm> | undefined;

export function loadParquetWasm(): Promise<ParquetWasm> {
  loading ??= (async () => {
    const mod = await import('parquet-wasm/esm');
    let wasmPath: string;
    try {
      wasmPath = createRequire(import.meta.url).resolve('parquet-wasm/esm/parquet_wasm_bg.wasm');
    } catch (err) {
      throw new ConsoleError({
        what: 'the parquet reader (parquet-wasm) is not installed',
        cause: (err as Error).message,
        fix: 'Run npm install in the swegym-console checkout.',
        inner: err,
      });
    }
    mod.initSync({ module: await readFile(wasmPath) });
    return mod;
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}
