// The template factory: one template per task image, built with bounded concurrency, resumable, observable.
//
// - Skips images whose template was built from the same recipe and still exists (unless `rebuild`).
// - Retries rate limits and transient errors with jittered exponential backoff (honouring Retry-After, and
//   pausing every worker during a 429 storm); a real build failure is recorded at once, never retried.
// - Journal `templates` holds per-image state; data/e2b-template-map.json is rewritten atomically after every
//   success, so both are valid at every instant and a kill -9 loses at most the builds that were running.
// - stop(): launch nothing new, let running builds finish. abandon(): also stop waiting for running builds
//   (E2B has no cancel API; an abandoned build may still finish server-side and is rebuilt on the next run).
import { availableParallelism } from 'node:os';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import type { SandboxProvider, TemplateSpec } from '../sandbox/types.js';
import { SandboxError } from '../sandbox/types.js';
import type { RecipePaths } from '../workspace/paths.js';
import { BuildLogs } from './buildLogs.js';
import { acquireLock, type WorkspaceLock } from '../workspace/lock.js';
import { sweepLitter } from '../workspace/litter.js';
import { sleep } from '../util/sleep.js';
import { TEMPLATE_BUILD_RETRY, retrying, type RetryPolicy } from '../util/retry.js';
import path from 'node:path';
import { CoalescingWriter } from './coalesce.js';
import type { Journal } from '../workspace/journal.js';
import { ConsoleError, ExitCode } from '../errors.js';
import { redact } from '../secrets.js';
import type { ArtifactVersions } from '../artifacts/versions.js';
import { templateSpec, specFingerprint, specArtifacts } from './recipe.js';
import { assignTemplateNames, DEFAULT_TEMPLATE_PREFIX, prefixProblem } from './naming.js';
import { loadMapForUpdate, writeTemplateMap, type TemplateMap } from './map.js';
import { diagnose, describeFailure } from './diagnose.js';
import { readImageList, templatesJournal, type TemplateRecord, type TemplateState } from './records.js';

/** E2B: concurrent template builds are capped at 20 on Hobby and Pro (e2b-sdk reference §7). */
export const E2B_BUILD_LIMIT = 20;
export const DEFAULT_E2B_CONCURRENCY = 8;
/** E2B ends a build after 1 h; past 70 min without an end the build is stuck, not slow. */
export const DEFAULT_BUILD_TIMEOUT_MS = 70 * 60_000;
export const LOG_RING_LINES = 400;
export const JOURNAL_LOG_TAIL = 30;

export interface FactoryArtifacts {
  artifactDir: string;
  versions: ArtifactVersions;
}

export interface FactoryConfig {
  provider: SandboxProvider;
  paths: RecipePaths;
  artifacts: FactoryArtifacts;
  /** Images to consider (default: data/swegym-images.txt). */
  images?: string[];
  /** Build only these images. */
  only?: string[];
  prefix?: string;
  concurrency?: number;
  /** Upper bound for concurrency (default: the E2B plan limit for e2b, else 64). */
  maxConcurrency?: number;
  rebuild?: boolean;
  skipCache?: boolean;
  cpuCount?: number;
  memoryMb?: number;
  retry?: Partial<RetryPolicy>;
  /** Deadline for one build attempt (default DEFAULT_BUILD_TIMEOUT_MS): a build that never ends is given up. */
  buildTimeoutMs?: number;
  /** Take the workspace lock (default true). */
  lock?: boolean;
  /** Check that the artifact files exist and digest them for the fingerprint (default true). */
  checkArtifacts?: boolean;
  /** Maps an image to the spec's base (the local provider's sample directory); default: the image itself. */
  baseFor?: (image: string) => string;
  onEvent?: (event: FactoryEvent) => void;
  /** Aborting it = stop(): launch nothing new, wait for running builds. */
  signal?: AbortSignal;
  journal?: Journal<TemplateRecord>;
}

export type FactoryEvent =
  | { type: 'state'; image: string; record: TemplateRecord; skipped?: boolean }
  | { type: 'retry'; image: string; attempt: number; delayMs: number; reason: string }
  | { type: 'log'; image: string; line: string }
  | { type: 'stopping'; running: number }
  | { type: 'abandoning'; running: number };

export interface FactoryResult {
  total: number;
  built: number;
  skipped: number;
  failed: number;
  /** Not built because of stop()/abandon() (queued again in the journal). */
  notStarted: number;
  abandoned: number;
  stopped: boolean;
  durationMs: number;
  /** A failure that stopped the whole run (bad API key). */
  fatal?: string;
  records: TemplateRecord[];
}

export interface FactorySnapshot {
  version: number;
  running: boolean;
  stopping: boolean;
  abandoning: boolean;
  startedAt?: number;
  concurrency: number;
  records: TemplateRecord[];
  /** Builds done in this run (not skipped), for the ETA. */
  doneThisRun: number;
  buildMsThisRun: number;
  /** Images still to build in this run (queued + building). */
  remaining: number;
  active: number;
  etaMs?: number;
}

class Interrupted extends Error {}

function nowIso(): string {
  return new Date().toISOString();
}

async function fileDigest(file: string): Promise<string> {
  const hash = createHash('sha256');
  await new Promise<void>((resolve, reject) => {
    const s = createReadStream(file);
    s.on('data', (chunk) => hash.update(chunk));
    s.on('error', reject);
    s.on('end', () => resolve());
  });
  return hash.digest('hex');
}

/** The build concurrency when none is asked for: E2B's, or up to 4 local builds as the machine's CPUs allow. */
export function defaultConcurrency(provider: SandboxProvider, cpus = availableParallelism()): number {
  if (provider.name === 'e2b') return DEFAULT_E2B_CONCURRENCY;
  if (provider.name === 'local') return Math.max(1, Math.min(4, cpus));
  return DEFAULT_E2B_CONCURRENCY;
}

export class TemplateFactory {
  readonly config: FactoryConfig;
  private readonly retry: RetryPolicy;
  private readonly records = new Map<string, TemplateRecord>();
  private readonly logs = new Map<string, string[]>();
  /** Every build's whole log, on disk (the ring above and the journal's tail are for the screen). */
  private readonly buildLogs: BuildLogs;
  private readonly order: string[] = [];
  /** The journal's records (all images, not only this run's), written through a coalescing writer. */
  private journalItems = new Map<string, TemplateRecord>();
  /** Images whose record changed since the last journal write (each write appends only those). */
  private journalDirty = new Set<string>();
  private readonly journalWriter = new CoalescingWriter(() => this.writeJournal());
  private readonly mapWriter = new CoalescingWriter(() => writeTemplateMap(this.config.paths.templateMap, { ...this.map }, this.order));
  private map: TemplateMap = {};
  private journal?: Journal<TemplateRecord>;
  private versionCounter = 0;
  private stopping = false;
  private abandoning = false;
  private runningFlag = false;
  private startedAt?: number;
  private active = new Map<string, AbortController>();
  private readonly wake = new AbortController();
  private readonly abandonCtl = new AbortController();
  private gateUntil = 0;
  private doneThisRun = 0;
  private buildMsThisRun = 0;
  private toBuild = new Set<string>();
  private fatal?: string;
  private concurrencyUsed = 0;

  constructor(config: FactoryConfig) {
    this.config = config;
    this.buildLogs = new BuildLogs(config.paths.consoleDir);
    this.retry = { ...TEMPLATE_BUILD_RETRY, ...config.retry };
    if (config.signal) {
      if (config.signal.aborted) this.stop();
      else config.signal.addEventListener('abort', () => this.stop(), { once: true });
    }
  }

  get version(): number {
    return this.versionCounter;
  }

  /** Stop launching new builds; running builds finish. Idempotent. */
  stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.wake.abort();
    this.bump();
    this.config.onEvent?.({ type: 'stopping', running: this.active.size });
  }

  /** Stop launching and stop waiting for running builds. */
  abandon(): void {
    this.stop();
    if (this.abandoning) return;
    this.abandoning = true;
    this.config.onEvent?.({ type: 'abandoning', running: this.active.size });
    this.abandonCtl.abort();
    for (const ctl of this.active.values()) ctl.abort();
    this.bump();
  }

  /** Build log lines kept in memory for one image (the last LOG_RING_LINES). */
  logFor(image: string): string[] {
    return [...(this.logs.get(image) ?? this.records.get(image)?.logTail ?? [])];
  }

  snapshot(): FactorySnapshot {
    const records = this.order.map((i) => this.records.get(i)).filter((r): r is TemplateRecord => Boolean(r));
    let remaining = 0;
    for (const r of records) if (r.state === 'queued' || r.state === 'building') remaining++;
    const avg = this.doneThisRun > 0 ? this.buildMsThisRun / this.doneThisRun : undefined;
    const c = Math.max(1, this.concurrencyUsed);
    return {
      version: this.versionCounter,
      running: this.runningFlag,
      stopping: this.stopping,
      abandoning: this.abandoning,
      startedAt: this.startedAt,
      concurrency: this.concurrencyUsed,
      records,
      doneThisRun: this.doneThisRun,
      buildMsThisRun: this.buildMsThisRun,
      remaining,
      active: this.active.size,
      etaMs: avg !== undefined && remaining > 0 ? Math.ceil(remaining / c) * avg : undefined,
    };
  }

  private bump(): void {
    this.versionCounter++;
  }

  private pushLog(image: string, line: string): void {
    let ring = this.logs.get(image);
    if (!ring) this.logs.set(image, (ring = []));
    const clean = redact(line);
    ring.push(clean);
    this.buildLogs.append(image, clean);
    if (ring.length > LOG_RING_LINES) ring.splice(0, ring.length - LOG_RING_LINES);
    this.bump();
  }

  private async setRecord(image: string, patch: Partial<TemplateRecord> & { state: TemplateState }, persist = true, skipped = false, emit = true): Promise<TemplateRecord> {
    const prev = this.records.get(image);
    const record: TemplateRecord = { ...(prev ?? { image, template: '' }), ...patch, image, updatedAt: nowIso() } as TemplateRecord;
    for (const k of Object.keys(record) as (keyof TemplateRecord)[]) if (record[k] === undefined) delete record[k];
    this.records.set(image, record);
    this.bump();
    if (persist && this.journal) {
      this.journalItems.set(image, record);
      this.journalDirty.add(image);
      await this.journalWriter.request();
    }
    if (emit) this.config.onEvent?.({ type: 'state', image, record, skipped });
    return record;
  }

  private async sleep(ms: number): Promise<void> {
    if (ms <= 0) return;
    try {
      await sleep(ms, this.wake.signal);
    } catch {
      throw new Interrupted('stopped');
    }
  }

  /** Runs `op` with retries on retryable SandboxErrors; a 429 pauses every worker until its Retry-After. */
  private withRetry<T>(image: string, what: string, op: () => Promise<T>, attemptsOut?: { n: number }): Promise<T> {
    return retrying(op, {
      policy: this.retry,
      before: async (attempt) => {
        const wait = this.gateUntil - Date.now();
        if (wait > 0) await this.sleep(wait);
        if (attemptsOut) attemptsOut.n = attempt;
      },
      retryable: (err) => (!this.abandoning && err instanceof SandboxError && err.retryable ? { retryAfterSec: err.retryAfterSec } : undefined),
      onRetry: ({ attempt, attempts, delayMs, error }) => {
        if ((error as SandboxError).kind === 'rate_limited') this.gateUntil = Math.max(this.gateUntil, Date.now() + delayMs);
        const reason = redact(`${what}: ${(error as Error).message}`);
        this.config.onEvent?.({ type: 'retry', image, attempt, delayMs, reason });
        this.pushLog(image, `retry ${attempt}/${attempts - 1} in ${(delayMs / 1000).toFixed(1)}s after: ${reason}`);
      },
      // A stop() during the wait puts the image back in the queue.
      wait: (ms) => this.sleep(ms),
    });
  }

  async run(): Promise<FactoryResult> {
    const cfg = this.config;
    const started = Date.now();
    this.startedAt = started;
    const prefix = cfg.prefix ?? DEFAULT_TEMPLATE_PREFIX;
    const pp = prefixProblem(prefix);
    if (pp) throw new ConsoleError({ what: `invalid --prefix "${prefix}"`, cause: pp, fix: 'pick a prefix like "swegym" or "team-a"', exitCode: ExitCode.usage });
    const max = cfg.maxConcurrency ?? (cfg.provider.name === 'e2b' ? E2B_BUILD_LIMIT : 64);
    const concurrency = cfg.concurrency ?? Math.min(max, defaultConcurrency(cfg.provider));
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > max) {
      throw new ConsoleError({
        what: `--concurrency ${concurrency} is out of range (1–${max})`,
        cause: cfg.provider.name === 'e2b' ? `E2B caps concurrent template builds at ${E2B_BUILD_LIMIT} on Hobby and Pro; more only produces 429s` : undefined,
        fix: `use --concurrency between 1 and ${max}`,
        exitCode: ExitCode.usage,
      });
    }
    this.concurrencyUsed = concurrency;

    const listed = cfg.images ?? (await readImageList(cfg.paths.imageList));
    const only = cfg.only?.length ? [...new Set(cfg.only)] : undefined;
    const images = only ? [...only.filter((i) => listed.includes(i)), ...only.filter((i) => !listed.includes(i))] : listed;

    let lock: WorkspaceLock | undefined;
    if (cfg.lock !== false) lock = await acquireLock(cfg.paths.lockFile, 'templates build');
    // Temp files of journal and map writes from a run that was killed mid-write.
    await sweepLitter([cfg.paths.journalsDir, path.dirname(cfg.paths.templateMap), path.dirname(cfg.paths.lockFile)]);
    this.runningFlag = true;
    this.bump();
    try {
      this.journal = cfg.journal ?? (await templatesJournal(cfg.paths).load());
      this.journalItems = new Map(this.journal.entries());
      this.map = await loadMapForUpdate(cfg.paths.templateMap);

      // Names: the journal's earlier names win (stable across runs), then the computed ones.
      const previous = new Map<string, string>();
      for (const [image, rec] of this.journal.entries()) if (rec.template) previous.set(image, rec.template);
      const names = assignTemplateNames(images, prefix, previous);

      // Artifacts: present, and digested for the fingerprint (a new artifact means a different template).
      const digests: Record<string, string> = {};
      const probe = this.spec(images[0] ?? 'probe', 'probe', false);
      if (cfg.checkArtifacts !== false) {
        const missing: string[] = [];
        for (const file of specArtifacts(probe)) {
          try {
            await access(file);
            digests[file] = await fileDigest(file);
          } catch {
            missing.push(file);
          }
        }
        if (missing.length) {
          throw new ConsoleError({
            what: `missing sandbox artifact: ${missing.join(', ')}`,
            cause: 'the Claude Code binary and the BBS runtime tarball must exist with the versions the templates use (CLAUDE_CODE_VERSION, CLAUDE_CODE_PORTABLE_PYTHON_VERSION, CLAUDE_CODE_BBS_VERSION)',
            fix: 'run `swegym-console artifacts build` (with the same environment) first',
            exitCode: ExitCode.precondition,
          });
        }
      }

      for (const image of images) {
        this.order.push(image);
        const rec = this.journal.get(image);
        const name = names.get(image) as string;
        if (!rec) {
          this.freshImages.add(image);
          this.records.set(image, { image, state: 'queued', template: name, updatedAt: nowIso() });
        } else if (rec.state === 'building') {
          // The previous run ended (Ctrl-C twice, kill -9, crash) while this was building.
          this.records.set(image, { ...rec, state: 'queued', reason: 'interrupted while building in an earlier run; rebuilt now' });
        } else {
          this.records.set(image, { ...rec });
        }
      }
      this.bump();

      const queue = [...images];
      const worker = async () => {
        for (;;) {
          if (this.stopping) return;
          const image = queue.shift();
          if (image === undefined) return;
          try {
            await this.processImage(image, names.get(image) as string, digests);
          } catch (err) {
            // Only a failed journal/map write gets here (build errors are recorded per image): keep the other
            // workers' builds accounted for, stop launching, and report it at the end.
            this.writeError ??= err;
            this.stop();
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, images.length)) }, () => worker()));
      await this.mapWriter.request();
      if (this.journal) {
        await this.journalWriter.request();
        // One snapshot at the end of a run (the records were appended while it ran).
        await this.journal.flush();
      }
    } finally {
      this.runningFlag = false;
      this.bump();
      await this.buildLogs.endAll();
      await lock?.release();
    }

    if (this.writeError) {
      throw new ConsoleError({
        what: `could not write ${this.journal?.file ?? 'the templates journal'}`,
        cause: (this.writeError as Error).message,
        fix: 'free disk space or fix permissions under .swegym-console/, then rerun (finished templates are found again)',
      });
    }
    const records = this.order.map((i) => this.records.get(i) as TemplateRecord);
    const count = (s: TemplateState) => records.filter((r) => r.state === s).length;
    const result: FactoryResult = {
      total: records.length,
      built: this.doneThisRun,
      skipped: this.skippedCount,
      failed: count('failed'),
      notStarted: records.filter((r) => r.state === 'queued' && !this.abandonedSet.has(r.image)).length,
      abandoned: this.abandonedSet.size,
      stopped: this.stopping,
      durationMs: Date.now() - started,
      fatal: this.fatal,
      records,
    };
    return result;
  }

  private skippedCount = 0;
  private writeError?: unknown;
  /** Images without a journal record at the start of this run. */
  private readonly freshImages = new Set<string>();
  private readonly abandonedSet = new Set<string>();

  private spec(image: string, name: string, skipCache = Boolean(this.config.skipCache)): TemplateSpec {
    const cfg = this.config;
    return templateSpec({
      image: cfg.baseFor ? cfg.baseFor(image) : image,
      name,
      artifactDir: cfg.artifacts.artifactDir,
      versions: cfg.artifacts.versions,
      cpuCount: cfg.cpuCount,
      memoryMb: cfg.memoryMb,
      skipCache,
    });
  }

  private async processImage(image: string, name: string, digests: Record<string, string>): Promise<void> {
    const cfg = this.config;
    const spec = this.spec(image, name);
    const fingerprint = specFingerprint(spec, digests);
    const rec = this.records.get(image);
    try {
      // Skip what exists and matches.
      if (!cfg.rebuild) {
        if (rec?.state === 'built') {
          if (rec.template === name && (rec.fingerprint === fingerprint || rec.fingerprint === undefined)) {
            const exists = await this.withRetry(image, 'check template', () => cfg.provider.templateExists(name));
            if (exists) {
              this.skippedCount++;
              await this.ensureMapped(image, name);
              await this.setRecord(image, { state: 'built' }, false, true);
              return;
            }
            this.pushLog(image, `template ${name} is recorded as built but no longer exists; rebuilding`);
          } else if (rec.template !== name) {
            this.pushLog(image, `the template name changed (${rec.template} → ${name}); building the new name`);
          } else {
            this.pushLog(image, 'the recipe or the artifacts changed since this template was built; rebuilding');
          }
        } else if (this.freshImages.has(image) && this.map[image]) {
          // Built outside the console (a manual Dressage build recorded in the map) or before the journal was lost.
          // Only a name the map records is adopted: E2B also says "exists" for an alias another team owns (403).
          const candidate = this.map[image];
          if (await this.withRetry(image, 'check template', () => cfg.provider.templateExists(candidate))) {
            this.skippedCount++;
            await this.ensureMapped(image, candidate);
            await this.setRecord(image, { state: 'built', template: candidate, reason: 'adopted: this template already exists (built outside this journal); --rebuild rebuilds it' }, true, true);
            return;
          }
        }
      }
      if (this.stopping) return;
      this.toBuild.add(image);
      await this.build(image, name, spec, fingerprint);
    } catch (err) {
      if (err instanceof Interrupted) {
        await this.setRecord(image, { state: 'queued', template: name, reason: 'stopped before it was built' }, !this.freshImages.has(image) || this.toBuild.has(image));
        return;
      }
      const d = diagnose(err);
      await this.setRecord(image, { state: 'failed', template: name, reason: describeFailure(err), code: d.code, logTail: this.logFor(image).slice(-JOURNAL_LOG_TAIL) });
      if (d.code === 'unauthorized') {
        this.fatal = describeFailure(err);
        this.stop();
      }
    }
  }

  private async build(image: string, name: string, spec: TemplateSpec, fingerprint: string): Promise<void> {
    const cfg = this.config;
    this.logs.set(image, []);
    this.buildLogs.start(image);
    const attempts = { n: 0 };
    const ctl = new AbortController();
    const t0 = Date.now();
    // Not awaited: "building" only informs (after a crash, queued and building both mean "build again"); the
    // "built" record below is awaited before the map names the template. A failed write surfaces at the end.
    void this.setRecord(image, { state: 'building', template: name, fingerprint, reason: undefined, code: undefined, logTail: undefined, durationMs: undefined, smoke: undefined, smokeError: undefined, smokeAt: undefined }).catch((err) => (this.writeError ??= err));
    this.active.set(image, ctl);
    this.bump();
    try {
      const result = await this.withRetry(
        image,
        'build',
        async () => {
          if (attempts.n > 1) {
            await this.setRecord(image, { state: 'building', attempts: attempts.n }, false);
          }
          return cfg.provider.buildTemplate(spec, { signal: ctl.signal, deadlineMs: cfg.buildTimeoutMs ?? DEFAULT_BUILD_TIMEOUT_MS, onLog: (line) => this.pushLog(image, line) });
        },
        attempts,
      );
      const durationMs = Date.now() - t0;
      this.doneThisRun++;
      this.buildMsThisRun += durationMs;
      // Journal first, then the map: after a crash between the two, the next run finds the record "built",
      // checks that the template exists and writes the missing map entry (the map never names an unfinished build).
      const record = await this.setRecord(
        image,
        {
        state: 'built',
        template: result.name || name,
        templateId: result.templateId,
        buildId: result.buildId,
        durationMs,
        attempts: attempts.n,
        builtAt: nowIso(),
        fingerprint,
        },
        true,
        false,
        false,
      );
      await this.ensureMapped(image, record.template);
      this.config.onEvent?.({ type: 'state', image, record });
    } catch (err) {
      if (this.abandoning && !(err instanceof Interrupted)) {
        this.abandonedSet.add(image);
        await this.setRecord(image, { state: 'queued', reason: 'abandoned while building (E2B may still finish it); rebuilt on the next run', attempts: attempts.n });
        return;
      }
      if (!(err instanceof Interrupted)) {
        (err as { attempts?: number }).attempts = attempts.n;
      }
      throw err;
    } finally {
      this.buildLogs.end(image);
      this.active.delete(image);
      this.bump();
    }
  }

  private async ensureMapped(image: string, name: string): Promise<void> {
    if (this.map[image] === name) return;
    this.map[image] = name;
    await this.mapWriter.request();
  }

  /** Appends the records changed since the last write to the journal (append-only with compaction). */
  private async writeJournal(): Promise<void> {
    if (!this.journal) return;
    const dirty = [...this.journalDirty];
    this.journalDirty.clear();
    try {
      await this.journal.putMany(dirty.map((image) => [image, this.journalItems.get(image) as TemplateRecord] as const));
    } catch (err) {
      for (const image of dirty) this.journalDirty.add(image); // written by the next request
      throw err;
    }
  }
}

/** Builds the templates and returns the result (the headless command and the bench use this). */
export async function runTemplateFactory(config: FactoryConfig): Promise<FactoryResult> {
  return new TemplateFactory(config).run();
}
