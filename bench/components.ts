// Benchmark 4: the pieces behind the pipeline steps, each against its floor.
//   parquet  — reading the realistic 293-row split with the dataset service (validation included) vs the bare
//              parquet-wasm → Arrow decode of the same bytes; plus a cold read in a fresh process.
//   sandbox  — local (bubblewrap) sandbox create + run `echo` + kill vs a bare `bwrap … /bin/true`.
//   factory  — N template builds at concurrency C against a provider whose build takes a fixed time, vs the
//              ideal ceil(N/C) × build time.
// Code that has not landed yet is reported as "not available yet", never faked.
import { mkdtemp, rm, mkdir, writeFile, readFile, stat } from 'node:fs/promises';
import { watch } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NODE, REPO, fmt, median, result, timeCommand, timed, type BenchResult } from './lib.js';

/** Bounds a step: a benchmark never hangs the suite. */
async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms)))]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

type Loaded<T> = { ok: true; mod: T } | { ok: false; why: string };

async function load<T>(spec: string, need: string[]): Promise<Loaded<T>> {
  try {
    const mod = (await import(spec)) as Record<string, unknown>;
    const missing = need.filter((n) => !(n in mod));
    if (missing.length) return { ok: false, why: `${path.relative(REPO, new URL(spec, import.meta.url).pathname)} has no ${missing.join(', ')}` };
    return { ok: true, mod: mod as T };
  } catch (err) {
    return { ok: false, why: `${spec.replace(/^\.\.\//, '')}: ${(err as Error).message.split('\n')[0]}` };
  }
}

// ---- parquet ------------------------------------------------------------------------------------

export async function benchParquet(runs: number, bin?: string): Promise<BenchResult> {
  const res = result('parquet', 'read the 293-row train split (realistic text)');
  const fx = await load<typeof import('../tests/fixtures/parquetFixtures.js')>('../tests/fixtures/parquetFixtures.js', ['writeRealisticSplit']);
  const ds = await load<{ readSplit: (file: string, opts?: { split?: 'train' }) => Promise<{ tasks?: unknown[] } & Record<string, unknown>> }>('../src/services/dataset/index.js', ['readSplit']);
  if (!fx.ok || !ds.ok) {
    res.status = 'not available yet';
    res.notes.push(fx.ok ? '' : fx.why, ds.ok ? '' : ds.why);
    res.notes = res.notes.filter(Boolean);
    return res;
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'swegym-bench-pq-'));
  try {
    const file = path.join(dir, 'train.parquet');
    const { bytes } = await fx.mod.writeRealisticSplit(file, { rows: 293 });
    res.metrics.push({ label: 'file', value: fmt(bytes / 1e6, 2), unit: 'MB (snappy)' });
    const data = new Uint8Array(await readFile(file));
    const { readParquet } = await import('parquet-wasm');
    const { tableFromIPC } = await import('apache-arrow');
    const bare: number[] = [];
    const svc: number[] = [];
    let rows = 0;
    for (let i = 0; i < runs + 1; i++) {
      const t0 = performance.now();
      const table = tableFromIPC(readParquet(data).intoIPCStream());
      const t1 = performance.now();
      const split = await ds.mod.readSplit(file, { split: 'train' });
      const t2 = performance.now();
      if (i === 0) {
        rows = table.numRows;
        void split;
        continue; // warm-up (wasm instantiation, JIT)
      }
      bare.push(t1 - t0);
      svc.push(t2 - t1);
    }
    res.metrics.push({ label: 'rows', value: rows });
    res.metrics.push({ label: 'bare parquet-wasm → Arrow (median, warm)', value: fmt(median(bare)), unit: 'ms' });
    res.metrics.push({ label: 'dataset readSplit incl. validation (median, warm)', value: fmt(median(svc)), unit: 'ms' });
    // Cold, as a user meets it: the built CLI's `data show --input FILE --json` in a fresh process, vs bare node.
    if (bin) {
      const cold: number[] = [];
      const coldCpu: number[] = [];
      const idle: number[] = [];
      const idleCpu: number[] = [];
      for (let i = 0; i < 3; i++) {
        const n = await timed(NODE, ['-e', '']);
        idle.push(n.ms);
        idleCpu.push(n.cpuMs);
        const r = await timed(NODE, [bin, 'data', 'show', '--input', file, '--json']);
        if (r.code !== 0) {
          res.notes.push(`data show --json exited ${r.code}: ${r.stderr.trim().split('\n').slice(0, 2).join(' ').slice(0, 200)}`);
          break;
        }
        cold.push(r.ms);
        coldCpu.push(r.cpuMs);
      }
      if (cold.length) {
        res.metrics.push({ label: '`data show --input FILE --json`, fresh process: wall / CPU (medians)', value: `${fmt(median(cold), 0)} / ${fmt(median(coldCpu), 0)}`, unit: 'ms' });
        res.metrics.push({ label: "bare `node -e ''`: wall / CPU (medians)", value: `${fmt(median(idle), 0)} / ${fmt(median(idleCpu), 0)}`, unit: 'ms' });
      }
    }
    res.ratio = { value: median(svc) / median(bare), what: 'readSplit ÷ bare decode' };
    return res;
  } catch (err) {
    res.status = 'failed';
    res.notes.push((err as Error).message.split('\n')[0] ?? '');
    return res;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// ---- local sandbox --------------------------------------------------------------------------------

export async function benchLocalSandbox(runs: number): Promise<BenchResult> {
  const res = result('sandbox', 'local sandbox create + run + kill (bubblewrap)');
  const lp = await load<{ LocalProvider: new (s: { storeDir: string }) => import('../src/services/sandbox/types.js').SandboxProvider }>('../src/services/sandbox/local.js', ['LocalProvider']);
  if (!lp.ok) {
    res.status = 'not available yet';
    res.notes.push(lp.why);
    return res;
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'swegym-bench-sbx-'));
  try {
    const bareRuns: number[] = [];
    for (let i = 0; i < runs; i++) {
      const r = await timeCommand('bwrap', ['--die-with-parent', '--unshare-pid', '--unshare-net', '--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--proc', '/proc', '--dev', '/dev', '/bin/true']);
      if (r.code !== 0) {
        res.notes.push(`bare bwrap failed: ${r.stderr.trim().slice(0, 200)}`);
        break;
      }
      bareRuns.push(r.ms);
    }
    const base = path.join(dir, 'base');
    await mkdir(base, { recursive: true });
    await writeFile(path.join(base, 'README'), 'bench task tree\n');
    const provider = new lp.mod.LocalProvider({ storeDir: path.join(dir, 'store') });
    const t0 = performance.now();
    await within(60_000, 'template build', provider.buildTemplate({ name: 'bench-tpl', baseImage: base, cpuCount: 1, memoryMb: 512, copies: [], runCommands: [], aptPackages: [], startCommand: '', readyPort: 0, readyPath: '/', contextDir: dir }));
    res.metrics.push({ label: 'template build (tiny tree, no commands)', value: fmt(performance.now() - t0, 0), unit: 'ms' });
    const create: number[] = [];
    const run: number[] = [];
    const kill: number[] = [];
    for (let i = 0; i < runs; i++) {
      const a = performance.now();
      const sbx = await within(60_000, 'sandbox create', provider.create({ template: 'bench-tpl', timeoutMs: 60_000 }));
      const b = performance.now();
      const r = await within(40_000, 'sandbox run', sbx.run('echo ok', { timeoutMs: 30_000 }));
      const c = performance.now();
      await within(30_000, 'sandbox kill', sbx.kill());
      const d = performance.now();
      if (r.exitCode !== 0 || !r.stdout.includes('ok')) throw new Error(`echo in the sandbox gave exit ${r.exitCode}: ${r.stderr.slice(0, 200)}`);
      create.push(b - a);
      run.push(c - b);
      kill.push(d - c);
    }
    const total = create.map((x, i) => x + (run[i] as number) + (kill[i] as number));
    res.metrics.push({ label: 'create (median)', value: fmt(median(create), 0), unit: 'ms' });
    res.metrics.push({ label: 'run `echo ok` (median)', value: fmt(median(run), 0), unit: 'ms' });
    res.metrics.push({ label: 'kill (median)', value: fmt(median(kill), 0), unit: 'ms' });
    if (bareRuns.length) {
      res.metrics.push({ label: 'bare `bwrap … /bin/true` (median)', value: fmt(median(bareRuns), 0), unit: 'ms' });
      res.ratio = { value: median(total) / median(bareRuns), what: 'create+run+kill ÷ bare bwrap' };
    }
    return res;
  } catch (err) {
    res.status = 'failed';
    res.notes.push((err as Error).message.split('\n')[0] ?? '');
    return res;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// ---- template factory ---------------------------------------------------------------------------------

export async function benchFactory(n: number, concurrency: number, buildMs: number): Promise<BenchResult> {
  const res = result('factory', `template factory: ${n} builds at concurrency ${concurrency}, ${buildMs} ms each`);
  const fac = await load<typeof import('../src/services/templates/factory.js')>('../src/services/templates/factory.js', ['runTemplateFactory']);
  const mem = await load<typeof import('../src/services/sandbox/memory.js')>('../src/services/sandbox/memory.js', ['MemoryProvider']);
  const helpers = await load<typeof import('../tests/templates/helpers.js')>('../tests/templates/helpers.js', ['templateWorkspace', 'imageNames', 'VERSIONS']);
  if (!fac.ok || !mem.ok || !helpers.ok) {
    res.status = 'not available yet';
    for (const l of [fac, mem, helpers]) if (!l.ok) res.notes.push(l.why);
    return res;
  }
  const images = helpers.mod.imageNames(n);
  const { ws, paths } = await helpers.mod.templateWorkspace(images);
  try {
    const inner = new mem.mod.MemoryProvider();
    let inFlight = 0;
    let peak = 0;
    // The same provider with a fixed build time: the factory's own overhead is what is left.
    const provider = new Proxy(inner, {
      get(target, prop, receiver) {
        if (prop === 'buildTemplate') {
          return async (...args: Parameters<typeof inner.buildTemplate>) => {
            inFlight++;
            peak = Math.max(peak, inFlight);
            try {
              await new Promise((r) => setTimeout(r, buildMs));
              return await target.buildTemplate(...args);
            } finally {
              inFlight--;
            }
          };
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const jr = await load<typeof import('../src/services/templates/records.js')>('../src/services/templates/records.js', ['templatesJournal']);
    const journal = jr.ok ? await jr.mod.templatesJournal(paths).load() : undefined;
    // What rewriting the whole journal on every (coalesced) write, as before, would have written: each write's
    // journal size, from the records it held then.
    let rewriteRecords = 0;
    if (journal && 'putMany' in journal) {
      const putMany = journal.putMany.bind(journal);
      journal.putMany = async (records) => {
        await putMany(records);
        rewriteRecords += journal.entries().length;
      };
    }
    // The template map keeps upstream's format (one JSON object that prepare_swegym_data.py reads whole), so each
    // write rewrites it: count its atomic replacements (renames onto it, seen through inotify) and their sizes.
    let mapWrites = 0;
    let mapBytes = 0;
    const sizes: Promise<void>[] = [];
    const mapName = path.basename(paths.templateMap);
    const watcher = watch(path.dirname(paths.templateMap), (_event, name) => {
      if (name !== mapName) return;
      mapWrites++;
      sizes.push(stat(paths.templateMap).then((st) => void (mapBytes += st.size), () => {}));
    });
    const t0 = performance.now();
    const out = await within(300_000, 'template factory', fac.mod.runTemplateFactory({
      provider,
      paths,
      ...(journal ? { journal } : {}),
      artifacts: { artifactDir: paths.artifactDir, versions: helpers.mod.VERSIONS },
      concurrency,
      maxConcurrency: concurrency,
      retry: { attempts: 1, baseMs: 1, maxMs: 1 },
    }));
    const wall = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 200));
    watcher.close();
    await Promise.all(sizes);
    const ideal = Math.ceil(n / concurrency) * buildMs;
    res.metrics.push({ label: 'built / failed / skipped', value: `${out.built} / ${out.failed} / ${out.skipped}` });
    res.metrics.push({ label: 'peak builds in flight', value: peak });
    res.metrics.push({ label: 'wall time (incl. journal + map writes)', value: fmt(wall, 0), unit: 'ms' });
    res.metrics.push({ label: 'ideal ceil(N/C) × build time', value: ideal, unit: 'ms' });
    res.metrics.push({ label: 'overhead per build', value: fmt((wall - ideal) / n, 1), unit: 'ms' });
    if (journal && 'bytesWritten' in journal) {
      const finalBytes = Buffer.byteLength(JSON.stringify({ items: Object.fromEntries(journal.entries()) }, null, 2));
      const rewrites = (rewriteRecords * finalBytes) / Math.max(1, journal.entries().length);
      res.metrics.push({ label: 'journal bytes written (appends + compactions)', value: fmt(Number(journal.bytesWritten) / 1e6, 2), unit: `MB for a ${fmt(finalBytes / 1e6, 2)} MB journal` });
      res.metrics.push({ label: 'a whole rewrite per coalesced write (before) would have written', value: fmt(rewrites / 1e6, 0), unit: 'MB' });
      res.metrics.push({ label: 'journal write ratio append-only / whole rewrites', value: fmt(Number(journal.bytesWritten) / rewrites, 3), unit: '×' });
    }
    const finalMap = await stat(paths.templateMap).then((st) => st.size, () => 0);
    res.metrics.push({ label: 'template map rewrites (upstream format, whole file)', value: mapWrites, unit: `≈ ${fmt(mapBytes / 1e6, 1)} MB written for a ${fmt(finalMap / 1e3, 0)} KB map` });
    if (out.built !== n) res.notes.push(`expected ${n} built, got ${out.built}${out.fatal ? ` (${out.fatal})` : ''}`);
    res.ratio = { value: wall / ideal, what: 'factory wall ÷ ideal' };
    return res;
  } catch (err) {
    res.status = 'failed';
    res.notes.push((err as Error).message.split('\n')[0] ?? '');
    return res;
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
}

// ---- trajectory listing ----------------------------------------------------------------------------

/**
 * The dashboard's trajectory listing on a run of `sessions` sessions (64,000: a 500-rollout run) in /tmp: the first
 * listing, a refresh after one rollout's 128 new sessions, and `find` over the same tree as the floor.
 */
export async function benchTrajectories(sessions: number): Promise<BenchResult> {
  const res = result('trajectories', `trajectory listing at ${sessions.toLocaleString('en-US')} sessions`);
  const ix = await load<typeof import('../src/services/monitor/trajIndex.js')>('../src/services/monitor/trajIndex.js', ['TrajectoryIndex']);
  if (!ix.ok) {
    res.status = 'not available yet';
    res.notes.push(ix.why);
    return res;
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'swegym-bench-traj-'));
  try {
    const root = path.join(dir, 'traj_payload', 'run');
    const instances = 2344;
    const write = async (i: number) => {
      const d = path.join(root, `repo__task-${i % instances}`, `bbs-${i}`);
      await mkdir(d, { recursive: true });
      await writeFile(path.join(d, 'session.json'), '{}');
    };
    for (let i = 0; i < sessions; i += 256) await Promise.all(Array.from({ length: Math.min(256, sessions - i) }, (_, k) => write(i + k)));
    const find = await timed('find', [root, '-name', 'session.json']);
    const index = new ix.mod.TrajectoryIndex(dir, 'run');
    let t0 = performance.now();
    const first = await index.refresh(5000);
    const firstMs = performance.now() - t0;
    const firstStats = index.lastWork.stats;
    // Ageing the tree stands in for the 120 s between refreshes (a directory changed within 2 s is re-read).
    await new Promise((r) => setTimeout(r, 2100));
    for (let i = sessions; i < sessions + 128; i++) await write(i);
    await new Promise((r) => setTimeout(r, 2100));
    t0 = performance.now();
    const next = await index.refresh(5000);
    const refreshMs = performance.now() - t0;
    t0 = performance.now();
    await new ix.mod.TrajectoryIndex(dir, 'run').refresh(5000);
    const fullMs = performance.now() - t0;
    res.metrics.push({ label: 'find -name session.json (floor)', value: fmt(find.ms, 0), unit: 'ms' });
    res.metrics.push({ label: 'first listing', value: fmt(firstMs, 0), unit: `ms (${firstStats} stats, ${first.length} kept)` });
    res.metrics.push({ label: 'refresh after 128 new sessions', value: fmt(refreshMs, 0), unit: `ms (${index.lastWork.stats} stats; newest ${next[0]?.session})` });
    res.metrics.push({ label: 'a full listing of the same tree (what each refresh did before)', value: fmt(fullMs, 0), unit: 'ms' });
    res.ratio = { value: refreshMs / fullMs, what: 'refresh ÷ full listing' };
    return res;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
