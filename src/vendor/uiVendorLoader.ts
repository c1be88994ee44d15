// Runs the UI bundle (uiVendor.ts, built to dist/chunks/ui-vendor.cjs) with a V8 code cache. The cache is written
// once the console has drawn its first frames, so it holds the functions compiled for them too; the next start
// deserialises them instead of parsing and compiling ≈ 400 KB (≈ 30 ms on a 2-core machine). V8 checks each cache
// against the source, its version and flags and ignores one that does not match; a missing, stale or unwritable
// cache only costs that time.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

export type CodeCacheState = 'accepted' | 'rejected' | 'missing';

export interface LoadedUiVendor<T> {
  modules: T;
  cache: CodeCacheState;
  cacheFile: string;
}

/** One cache per Node version and architecture, beside the bundle. */
export function codeCacheFile(bundleFile: string): string {
  return `${bundleFile}.${process.version}-${process.arch}.v8cache`;
}

/** How long after the first frame to write the cache: by then the first screen has loaded its data and settled. */
const UI_CODE_CACHE_DELAY_MS = 1500;

let pendingSave: (() => boolean) | undefined;

export async function loadUiVendor<T>(bundleFile: string): Promise<LoadedUiVendor<T>> {
  const source = readFileSync(bundleFile, 'utf8');
  const cacheFile = codeCacheFile(bundleFile);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // First start after a build, or the cache could not be written before.
  }
  // The wrapper starts on the bundle's first line, so stack traces keep its line numbers.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundleFile,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} as { start?: () => Promise<T> } };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, createRequire(bundleFile), module, bundleFile, path.dirname(bundleFile));
  if (typeof module.exports.start !== 'function') {
    throw new Error(`${bundleFile} is not the console's UI bundle (it has no start()); run \`npm run build\``);
  }
  const modules = await module.exports.start();
  const cache: CodeCacheState = cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'accepted';
  pendingSave = cache === 'accepted' ? undefined : () => writeCodeCache(cacheFile, script.createCachedData());
  return { modules, cache, cacheFile };
}

function writeCodeCache(file: string, data: Buffer): boolean {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(temp, data);
    renameSync(temp, file);
    return true;
  } catch {
    // A read-only install: the console starts as before, just without the cache.
    rmSync(temp, { force: true });
    return false;
  }
}

/**
 * Writes the code cache if this start had none (or V8 rejected it). Call it once the UI has drawn and settled: the
 * cache then holds what drawing needed. Later calls, and calls without a loaded bundle (tests, tsx), do nothing.
 * Returns whether it wrote a cache.
 */
export function saveUiCodeCache(): boolean {
  const save = pendingSave;
  pendingSave = undefined;
  return save ? save() : false;
}

/**
 * Call after the first frame: writes the cache once the UI has settled. The returned function, called when the UI
 * exits, writes it at once if the timer has not fired yet (a quick quit still leaves a cache for the next start).
 */
export function scheduleUiCodeCacheSave(): () => void {
  const timer = setTimeout(saveUiCodeCache, UI_CODE_CACHE_DELAY_MS);
  timer.unref();
  return () => {
    clearTimeout(timer);
    saveUiCodeCache();
  };
}
