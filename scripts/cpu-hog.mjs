// Keeps every core busy (or --cores N) for --seconds S (default: until killed), to run the test suite under load:
//   node scripts/cpu-hog.mjs --seconds 900 & npm test; kill %1
// Each core gets a worker thread spinning on arithmetic at normal priority, as a competing build or a second test
// run would. It stops by itself when the time is up, or on INT/TERM/HUP.
import { Worker, isMainThread, workerData } from 'node:worker_threads';
import { availableParallelism } from 'node:os';

if (isMainThread) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const cores = arg('--cores', availableParallelism());
  const seconds = arg('--seconds', Infinity);
  const until = Number.isFinite(seconds) ? Date.now() + seconds * 1000 : Infinity;
  const workers = Array.from({ length: cores }, () => new Worker(new URL(import.meta.url), { workerData: { until } }));
  process.stderr.write(`cpu-hog: ${cores} busy thread(s)${Number.isFinite(seconds) ? ` for ${seconds}s` : ''}\n`);
  const stop = () => {
    for (const w of workers) w.terminate();
    process.exit(0);
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, stop);
  if (Number.isFinite(seconds)) setTimeout(stop, seconds * 1000).unref();
  for (const w of workers) w.on('exit', () => workers.every((x) => x.threadId === -1) && process.exit(0));
} else {
  let x = 0;
  while (Date.now() < workerData.until) {
    for (let i = 0; i < 1e6; i++) x = (x * 1103515245 + 12345) % 2147483648;
  }
  process.exitCode = x === -1 ? 1 : 0;
}
