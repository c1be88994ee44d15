// The local provider (`--provider local`): sandboxes on this machine with bubblewrap, like Dressage's local_bwrap.
//
// Template: a directory tree plus a start command, kept in a local template store
// (`<workspace>/.swegym-console/local-sandboxes/templates/<name>/{template.json,root/}`).
// - "host" mode (the usual case, e.g. a /testbed tree): the host's /usr, /etc, /bin, /lib* are bound read-only
//   and the template's tree is laid on top; a template directory that collides with a host directory
//   (e.g. usr/local/bin/claude) is merged entry by entry with bind mounts, so host files stay read-only and the
//   template's files win. /root, /home, /var are private; /etc/shadow and /etc/gshadow are masked.
// - "rootfs" mode (the tree has usr/ and etc/): the tree is the whole root filesystem.
//
// Sandbox: a fresh copy of the template tree (overlayfs is not available to bwrap 0.8 unprivileged, so each
// sandbox gets its own `cp -a --reflink=auto` copy: copy-on-write where the filesystem supports reflinks, a plain
// copy otherwise), its own /tmp (tmpfs), its own pid/ipc/uts namespaces, no network (`--unshare-net`, only a
// loopback) unless `allowInternet`, an empty environment plus what the caller passes (host secrets never leak in).
// One long-lived bwrap per sandbox runs a keeper (`sleep infinity`) and the template's start command; every command
// enters the sandbox's namespaces with nsenter, in its own process group. Killing the sandbox SIGKILLs the sandbox's
// pid 1, which makes the kernel kill every process in its pid namespace; `--die-with-parent` does the same when the
// console dies. Timeouts and aborts kill the command's process group and every descendant.
// Health checks run inside the sandbox's network namespace (curl or python3), like on E2B.
// Build steps run in a build sandbox over the template tree; what they write under the template's own top-level
// directories (the tree's testbed/, opt/, tmp/, root/, home/, srv/, mnt/) is kept; the host's /usr is read-only, so
// `aptPackages` are only logged (the host's tools are used).
// Limits: every command runs as root inside the sandbox (RunCommandOptions.user is not mapped to other users);
// with `allowInternet` the sandbox shares the host's network namespace, so two such sandboxes cannot both serve 31000.
import { buildDirName, sweepLitter } from '../workspace/litter.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, lstatSync, readlinkSync, statSync } from 'node:fs';
import { mkdir, rename, rm, chmod } from 'node:fs/promises';
import path from 'node:path';
import { StreamCollector } from './lines.js';
import { cancelledError } from './withRetry.js';
import { sleep } from '../util/sleep.js';
import { healthProbeCommand, parseHealthProbe } from './health.js';
import { readJsonFile, writeJsonAtomic } from '../workspace/atomic.js';
import { commandLog as globalCommandLog, type CommandLog } from '../process/commandLog.js';
import { redact } from '../secrets.js';
import {
  CONSOLE_TAG_KEY,
  CONSOLE_TAG_VALUE,
  SandboxError,
  type CommandResult,
  type CreateSandboxOptions,
  type HealthResult,
  type RunCommandOptions,
  type Sandbox,
  type SandboxInfo,
  type SandboxProvider,
  type TemplateBuildOptions,
  type TemplateBuildResult,
  type TemplateSpec,
} from './types.js';
import { listDir } from '../util/fs.js';
import { descendants, hasChild, isAlive, isListening, killQuietly, procStartTime } from './localProcs.js';


export const LOCAL_STORE_DIR_NAME = 'local-sandboxes';

export interface LocalSettings {
  /** Template store and per-sandbox state (default `<workspace>/.swegym-console/local-sandboxes`). */
  storeDir: string;
  bwrapPath?: string;
  nsenterPath?: string;
  /** How long `create` waits for the template's ready port to listen. Default 30 s. */
  readyTimeoutMs?: number;
  /** Per build command timeout. Default 10 min. */
  buildCommandTimeoutMs?: number;
  log?: CommandLog;
}

export interface LocalTemplateMeta {
  name: string;
  mode: 'host' | 'rootfs';
  startCommand: string;
  readyPort: number;
  readyPath: string;
  baseImage: string;
  builtAt: string;
}

interface SandboxRecord {
  id: string;
  template: string;
  metadata: Record<string, string>;
  envs: Record<string, string>;
  /** pid of the sandbox's pid 1 (host pid namespace). */
  initPid: number;
  /** /proc/<pid>/stat start time of initPid, so a reused pid is never mistaken for the sandbox. */
  initStart: string;
  ownerPid: number;
  /** The outer bwrap process (host side) and its start time. */
  outerPid?: number;
  outerStart?: string;
  startedAt: string;
  endAt: string;
  allowInternet: boolean;
}

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const HOST_SYSTEM = ['usr', 'etc', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];
const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const START_LOG = '/tmp/swegym-start.log';
/** Top-level directories every host-mode template gets in its own (writable, per-sandbox) layer. */
const LAYER_DIRS = ['opt', 'tmp', 'root', 'home', 'srv', 'mnt'];

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'"'"'`)}'`;
}

/** bwrap mount arguments that lay `tree` over the host's read-only system directories. */
function hostModeMounts(tree: string): string[] {
  const args: string[] = [];
  const templateTop = new Set(existsSync(tree) ? readdirSync(tree) : []);
  const merge = (hostDir: string, templDir: string, target: string) => {
    args.push('--dir', target);
    const templEntries = new Set(readdirSync(templDir));
    let hostEntries: string[] = [];
    try {
      hostEntries = readdirSync(hostDir);
    } catch {
      hostEntries = [];
    }
    for (const e of hostEntries) {
      if (templEntries.has(e)) continue;
      const hp = path.join(hostDir, e);
      const st = lstatSync(hp, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(hp), path.posix.join(target, e));
      else args.push('--ro-bind', hp, path.posix.join(target, e));
    }
    for (const e of templEntries) {
      const tp = path.join(templDir, e);
      const hp = path.join(hostDir, e);
      const tst = lstatSync(tp);
      const hst = lstatSync(hp, { throwIfNoEntry: false });
      if (tst.isDirectory() && hst?.isDirectory() && !hst.isSymbolicLink()) merge(hp, tp, path.posix.join(target, e));
      else if (tst.isSymbolicLink()) args.push('--symlink', readlinkSync(tp), path.posix.join(target, e));
      else args.push('--bind', tp, path.posix.join(target, e));
    }
  };
  for (const e of HOST_SYSTEM) {
    if (templateTop.has(e)) continue;
    const hp = `/${e}`;
    const st = lstatSync(hp, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(hp), hp);
    else args.push('--ro-bind', hp, hp);
  }
  for (const e of templateTop) {
    const tp = path.join(tree, e);
    const tst = lstatSync(tp);
    const hp = `/${e}`;
    const hst = lstatSync(hp, { throwIfNoEntry: false });
    if (HOST_SYSTEM.includes(e) && tst.isDirectory() && hst?.isDirectory() && !hst.isSymbolicLink()) merge(hp, tp, hp);
    else if (tst.isSymbolicLink()) args.push('--symlink', readlinkSync(tp), hp);
    else args.push('--bind', tp, hp);
  }
  if (!templateTop.has('root')) args.push('--dir', '/root');
  if (!templateTop.has('home')) args.push('--dir', '/home');
  if (!templateTop.has('var')) args.push('--dir', '/var', '--tmpfs', '/var/tmp');
  for (const secret of ['/etc/shadow', '/etc/gshadow']) {
    if (!templateTop.has('etc') && existsSync(secret)) args.push('--ro-bind', '/dev/null', secret);
  }
  return args;
}

function detectMode(tree: string): 'host' | 'rootfs' {
  return existsSync(path.join(tree, 'usr', 'bin')) && existsSync(path.join(tree, 'etc')) ? 'rootfs' : 'host';
}

/** Copies a tree preserving modes and links; reflinks (copy-on-write) where the filesystem supports them. */
async function copyTree(src: string, dest: string, signal?: AbortSignal): Promise<void> {
  await mkdir(path.dirname(dest), { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const child = spawn('cp', ['-a', '--reflink=auto', '--', src, dest], { stdio: ['ignore', 'ignore', 'pipe'], signal });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`cp -a ${src} ${dest} failed: ${err.trim() || `exit ${code}`}`))));
  });
}

export class LocalProvider implements SandboxProvider {
  readonly name = 'local' as const;
  readonly bwrap: string;
  readonly nsenter: string;
  private readonly owned = new Map<string, LocalSandbox>();
  private readonly log: CommandLog;

  constructor(readonly settings: LocalSettings) {
    this.bwrap = settings.bwrapPath ?? 'bwrap';
    this.nsenter = settings.nsenterPath ?? 'nsenter';
    this.log = settings.log ?? globalCommandLog;
  }

  private litterSwept: Promise<void> | undefined;

  get templatesDir(): string {
    return path.join(this.settings.storeDir, 'templates');
  }
  get sandboxesDir(): string {
    return path.join(this.settings.storeDir, 'sandboxes');
  }

  templateDir(name: string): string {
    if (!NAME_RE.test(name)) {
      throw new SandboxError('not_found', `invalid template name '${name}': use letters, digits, '.', '_' and '-' (at most 128)`);
    }
    return path.join(this.templatesDir, name);
  }

  async readTemplate(name: string): Promise<LocalTemplateMeta | undefined> {
    return readJsonFile<LocalTemplateMeta>(path.join(this.templateDir(name), 'template.json'));
  }

  async templateExists(name: string): Promise<boolean> {
    return (await this.readTemplate(name)) !== undefined && existsSync(path.join(this.templateDir(name), 'root'));
  }

  /** Starts bwrap over `tree`; resolves once the sandbox's pid 1 is known. */
  private async launch(opts: { tree: string; mode: 'host' | 'rootfs'; startCommand?: string; allowInternet: boolean; binds?: CreateSandboxOptions['binds']; note: string }): Promise<{ child: ChildProcess; initPid: number; initStart: string }> {
    const args = ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
    if (!opts.allowInternet) args.push('--unshare-net');
    args.push('--hostname', 'sandbox');
    if (opts.mode === 'rootfs') args.push('--bind', opts.tree, '/');
    else args.push(...hostModeMounts(opts.tree));
    args.push('--proc', '/proc', '--dev', '/dev');
    // /tmp: the template's own /tmp when it has one (the sandbox's private copy, so files a build put there are
    // kept, as in an E2B snapshot), else an empty tmpfs. Either way no two sandboxes share it.
    if (opts.mode === 'host' && !existsSync(path.join(opts.tree, 'tmp'))) args.push('--tmpfs', '/tmp');
    // Last, so that they lie over the tree and /tmp.
    for (const b of opts.binds ?? []) args.push(b.writable ? '--bind' : '--ro-bind', b.src, b.dest);
    args.push('--chdir', '/');
    args.push('--clearenv', '--setenv', 'PATH', SANDBOX_PATH, '--setenv', 'HOME', '/root', '--setenv', 'LANG', 'C.UTF-8');
    args.push('--info-fd', '3', '--');
    const keeper = `if [ -n "$1" ]; then ( exec /bin/bash -l -c "$1" ) >${START_LOG} 2>&1 </dev/null & fi; exec sleep infinity`;
    args.push('/bin/bash', '-c', keeper, 'keeper', opts.startCommand ?? '');
    const entry = this.log.start([this.bwrap, '…', '/bin/bash', '-c', 'keeper', opts.startCommand ?? ''], opts.tree, opts.note);
    const child = spawn(this.bwrap, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], detached: true, env: { PATH: process.env.PATH ?? SANDBOX_PATH } });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
    child.on('exit', (code, signal) =>
      this.log.finish(entry, { exitCode: code ?? undefined, signal: signal ?? undefined, status: signal ? (this.stopping.has(child) ? 'stopped' : 'killed') : code === 0 ? 'ok' : 'failed' }),
    );
    const info = child.stdio[3] as NodeJS.ReadableStream;
    const initPid = await new Promise<number>((resolve, reject) => {
      let text = '';
      const fail = (why: string) => reject(new SandboxError('unknown', `bubblewrap did not start the sandbox: ${redact(why)}`));
      child.on('error', (e) => fail((e as NodeJS.ErrnoException).code === 'ENOENT' ? `${this.bwrap} not found (install bubblewrap: apt-get install -y bubblewrap)` : e.message));
      child.on('exit', () => fail(stderr.trim() || 'bwrap exited'));
      info.on('data', (c: Buffer) => {
        text += c.toString();
        const m = /"child-pid":\s*(\d+)/.exec(text);
        if (m) resolve(Number(m[1]));
      });
    });
    // Keep draining the info fd: bwrap writes the rest of its JSON after the pid, and closing our end early would
    // kill it with SIGPIPE half-way through the sandbox setup.
    info.resume();
    (info as unknown as { unref?: () => void }).unref?.();
    child.stderr?.removeAllListeners('data');
    child.stderr?.resume();
    (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
    // bwrap reports the pid before its pid 1 has finished the mounts; pid 1 forks the keeper only afterwards, so the
    // sandbox is ready for nsenter once pid 1 has a child.
    const initStart = procStartTime(initPid);
    let ready = false;
    const deadline = Date.now() + 15_000;
    for (let delay = 1; initStart && !ready && child.exitCode === null && child.signalCode === null && procStartTime(initPid) === initStart && Date.now() < deadline; delay = Math.min(20, delay * 2)) {
      ready = hasChild(initPid);
      if (!ready) await sleep(delay);
    }
    if (!initStart || !ready) {
      killQuietly(initPid);
      if (child.pid) killQuietly(-child.pid);
      throw new SandboxError('unknown', `bubblewrap did not finish setting up the sandbox${stderr.trim() ? `: ${redact(stderr.trim())}` : ''}`);
    }
    child.unref();
    return { child, initPid, initStart };
  }

  private async waitReady(initPid: number, initStart: string, port: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (let delay = 5; ; delay = Math.min(100, delay * 2)) {
      if (signal?.aborted) throw cancelledError(signal, 'sandbox start');
      if (procStartTime(initPid) !== initStart) return false;
      if (isListening(initPid, port)) return true;
      if (Date.now() > deadline) return false;
      await sleep(delay);
    }
  }

  async create(opts: CreateSandboxOptions): Promise<Sandbox> {
    if (!(opts.timeoutMs > 0)) throw new SandboxError('unknown', `invalid sandbox timeout ${opts.timeoutMs} ms: pass a positive lifetime`);
    if (opts.signal?.aborted) throw cancelledError(opts.signal, 'create sandbox');
    const meta = await this.readTemplate(opts.template);
    if (!meta) {
      throw new SandboxError('not_found', `local template '${opts.template}' not found in ${this.templatesDir} (build it first: swegym-console templates build --provider local)`, { status: 404 });
    }
    const id = `local-${randomBytes(6).toString('hex')}`;
    const dir = path.join(this.sandboxesDir, id);
    const tree = path.join(dir, 'root');
    let launched: { child: ChildProcess; initPid: number; initStart: string } | undefined;
    try {
      await mkdir(dir, { recursive: true });
      await copyTree(path.join(this.templateDir(opts.template), 'root'), tree, opts.signal);
      launched = await this.launch({ tree, mode: meta.mode, startCommand: meta.startCommand, allowInternet: opts.allowInternet ?? false, binds: opts.binds, note: `sandbox ${id}` });
      const now = Date.now();
      const rec: SandboxRecord = {
        id,
        template: opts.template,
        metadata: { ...opts.metadata, [CONSOLE_TAG_KEY]: CONSOLE_TAG_VALUE },
        envs: { ...opts.envs },
        initPid: launched.initPid,
        initStart: launched.initStart,
        ownerPid: process.pid,
        outerPid: launched.child.pid,
        outerStart: launched.child.pid ? procStartTime(launched.child.pid) : undefined,
        startedAt: new Date(now).toISOString(),
        endAt: new Date(now + opts.timeoutMs).toISOString(),
        allowInternet: opts.allowInternet ?? false,
      };
      await writeJsonAtomic(path.join(dir, 'sandbox.json'), rec);
      const sbx = new LocalSandbox(this, rec, dir, launched.child);
      this.owned.set(id, sbx);
      sbx.arm();
      if (meta.readyPort) {
        const ready = await this.waitReady(rec.initPid, rec.initStart, meta.readyPort, this.settings.readyTimeoutMs ?? 30_000, opts.signal);
        // Past its end of life the sandbox is gone, even when its port opened just before the expiry timer ran.
        if (Date.now() >= Date.parse(rec.endAt)) {
          await sbx.kill();
          throw new SandboxError('timeout', `the sandbox lifetime (${opts.timeoutMs} ms) ended before the start command of '${opts.template}' opened port ${meta.readyPort}; pass a longer timeoutMs`);
        }
        if (!ready) {
          const startLog = await sbx.run(`tail -c 2000 ${START_LOG} 2>/dev/null`, { timeoutMs: 5000 }).catch(() => undefined);
          await sbx.kill();
          throw new SandboxError(
            'timeout',
            `the start command of template '${opts.template}' did not open port ${meta.readyPort}: ${meta.startCommand}${startLog?.stdout ? `\n${redact(startLog.stdout.trim())}` : ''}`,
          );
        }
      }
      return sbx;
    } catch (err) {
      if (launched) {
        killQuietly(launched.initPid);
        if (launched.child.pid) killQuietly(-launched.child.pid);
      }
      this.owned.delete(id);
      await rm(dir, { recursive: true, force: true }).catch(() => {});
      if (err instanceof SandboxError) throw err;
      if (opts.signal?.aborted) throw cancelledError(opts.signal, 'create sandbox');
      throw new SandboxError('unknown', `could not create a local sandbox: ${redact((err as Error).message)}`, { cause: err });
    }
  }

  private async readRecord(id: string): Promise<SandboxRecord | undefined> {
    if (!/^local-[0-9a-f]+$/.test(id)) return undefined;
    return readJsonFile<SandboxRecord>(path.join(this.sandboxesDir, id, 'sandbox.json')).catch(() => undefined);
  }

  async connect(id: string): Promise<Sandbox> {
    const own = this.owned.get(id);
    if (own && own.alive()) return own;
    const rec = await this.readRecord(id);
    if (!rec || !isAlive(rec)) throw new SandboxError('not_found', `local sandbox ${id} not found (killed or expired)`, { status: 404 });
    return new LocalSandbox(this, rec, path.join(this.sandboxesDir, id), undefined);
  }

  async list(filter: { metadata?: Record<string, string> }): Promise<SandboxInfo[]> {
    const ids = await listDir(this.sandboxesDir);
    const out: SandboxInfo[] = [];
    for (const id of ids) {
      const rec = await this.readRecord(id);
      if (!rec) continue;
      if (!isAlive(rec)) {
        // Stale state of a sandbox that is gone (its console died): clean it up, including a bwrap left waiting.
        if (procStartTime(rec.ownerPid) === undefined || rec.ownerPid === process.pid) {
          if (rec.outerPid && rec.outerStart && procStartTime(rec.outerPid) === rec.outerStart) killQuietly(rec.outerPid);
          await rm(path.join(this.sandboxesDir, id), { recursive: true, force: true }).catch(() => {});
        }
        continue;
      }
      if (!Object.entries(filter.metadata ?? {}).every(([k, v]) => rec.metadata[k] === v)) continue;
      out.push({ id, template: rec.template, metadata: rec.metadata, startedAt: rec.startedAt, endAt: rec.endAt, state: 'running', provider: 'local' });
    }
    return out;
  }

  async killById(id: string): Promise<boolean> {
    const own = this.owned.get(id);
    if (own) return own.kill();
    const rec = await this.readRecord(id);
    if (!rec) return false;
    return new LocalSandbox(this, rec, path.join(this.sandboxesDir, id), undefined).kill();
  }

  /** Sandbox processes the console is tearing down: their SIGKILL is the expected end, not a failure. */
  private readonly stopping = new WeakSet<ChildProcess>();

  /** @internal */
  expectStop(child: ChildProcess): void {
    this.stopping.add(child);
  }

  /** @internal */
  forget(id: string): void {
    this.owned.delete(id);
  }

  /** Kills every sandbox this provider instance started (for shutdown and Ctrl-C). */
  async killAll(): Promise<number> {
    const all = [...this.owned.values()];
    const res = await Promise.all(all.map((s) => s.kill()));
    return res.filter(Boolean).length;
  }

  async buildTemplate(spec: TemplateSpec, opts: TemplateBuildOptions = {}): Promise<TemplateBuildResult> {
    const log = (line: string) => opts.onLog?.(redact(line));
    // Trees of builds whose process died (kill -9) are image-sized: the first build of a run removes them.
    this.litterSwept ??= sweepLitter([this.templatesDir]).then(() => undefined);
    await this.litterSwept;
    const final = this.templateDir(spec.name);
    const contextDir = spec.contextDir ?? process.cwd();
    const base = path.resolve(contextDir, spec.baseImage);
    const baseStat = statSync(base, { throwIfNoEntry: false });
    if (!baseStat?.isDirectory()) {
      throw new SandboxError('build_failed', `template '${spec.name}': base '${spec.baseImage}' is not a directory (${base}); the local provider builds templates from a directory tree (a /testbed tree or a root filesystem), not from a Docker image`);
    }
    const work = path.join(this.templatesDir, buildDirName(spec.name, randomBytes(4).toString('hex')));
    const tree = path.join(work, 'root');
    try {
      const asRoot = existsSync(path.join(base, 'testbed')) || detectMode(base) === 'rootfs';
      log(`local build of '${spec.name}' from ${base} (${asRoot ? 'as the root layer' : 'as /testbed'})`);
      await mkdir(work, { recursive: true });
      await copyTree(base, asRoot ? tree : path.join(tree, 'testbed'), opts.signal);
      for (const c of spec.copies) {
        if (!path.posix.isAbsolute(c.dest)) throw new SandboxError('build_failed', `copy destination must be absolute: ${c.dest}`);
        const src = path.resolve(contextDir, c.src);
        if (!existsSync(src)) throw new SandboxError('build_failed', `copy source not found: ${src}`);
        const dest = path.join(tree, c.dest);
        await rm(dest, { recursive: true, force: true });
        await copyTree(src, dest, opts.signal);
        if (c.mode !== undefined) await chmod(dest, c.mode);
        log(`copied ${c.src} -> ${c.dest}`);
      }
      if (spec.aptPackages.length > 0) log(`apt packages are not installed by the local provider (the host's /usr is used): ${spec.aptPackages.join(' ')}`);
      const mode = detectMode(tree);
      if (mode === 'host') {
        // Writable top-level directories that build steps commonly use (/opt/cc-runtime, /tmp/x.tar.gz, ~/.config):
        // they live in the template tree, so what a step writes there is kept in the template.
        for (const d of LAYER_DIRS) await mkdir(path.join(tree, d), { recursive: true });
        await chmod(path.join(tree, 'tmp'), 0o1777);
      }
      if (spec.runCommands.length > 0) {
        const builder = await this.launch({ tree, mode, allowInternet: false, note: `build ${spec.name}` });
        const sbx = new LocalSandbox(this, { id: `build-${spec.name}`, template: spec.name, metadata: {}, envs: {}, initPid: builder.initPid, initStart: builder.initStart, ownerPid: process.pid, startedAt: '', endAt: '', allowInternet: false }, work, builder.child);
        try {
          for (const cmd of spec.runCommands) {
            log(`RUN ${cmd}`);
            const r = await sbx.run(cmd, { timeoutMs: this.settings.buildCommandTimeoutMs ?? 600_000, signal: opts.signal, cwd: '/', onStdout: log, onStderr: log });
            if (r.timedOut || r.exitCode !== 0) {
              throw new SandboxError('build_failed', `template '${spec.name}': build step failed (${r.timedOut ? 'timed out' : `exit ${r.exitCode}`}): ${cmd}\n${redact(r.stderr.slice(-1500))}`);
            }
          }
        } finally {
          await sbx.kill({ keepFiles: true });
        }
      }
      const meta: LocalTemplateMeta = { name: spec.name, mode, startCommand: spec.startCommand, readyPort: spec.readyPort, readyPath: spec.readyPath, baseImage: base, builtAt: new Date().toISOString() };
      if (spec.startCommand && spec.readyPort) {
        // Like E2B: a start command that never becomes ready fails the build, not the first smoke test.
        log(`checking the start command: ${spec.startCommand} (port ${spec.readyPort}, ${spec.readyPath})`);
        const probe = await this.launch({ tree, mode, startCommand: spec.startCommand, allowInternet: false, note: `ready check ${spec.name}` });
        const sbx = new LocalSandbox(this, { id: `ready-${spec.name}`, template: spec.name, metadata: {}, envs: {}, initPid: probe.initPid, initStart: probe.initStart, ownerPid: process.pid, startedAt: '', endAt: '', allowInternet: false }, work, probe.child);
        try {
          const ready = await this.waitReady(probe.initPid, probe.initStart, spec.readyPort, this.settings.readyTimeoutMs ?? 30_000, opts.signal);
          const health = ready ? await sbx.health(spec.readyPort, spec.readyPath, { timeoutMs: 5000, signal: opts.signal }) : undefined;
          if (!health?.ok) {
            const startLog = await sbx.run(`tail -c 1500 ${START_LOG} 2>/dev/null`, { timeoutMs: 5000 }).catch(() => undefined);
            throw new SandboxError(
              'build_failed',
              `template '${spec.name}': the start command did not become ready on port ${spec.readyPort}${spec.readyPath} (${health?.error ?? 'port never opened'})${startLog?.stdout ? `\n${redact(startLog.stdout.trim())}` : ''}`,
            );
          }
          log(`ready: GET ${spec.readyPath} -> ${health.status} ${health.body?.slice(0, 200) ?? ''}`);
        } finally {
          await sbx.kill({ keepFiles: true });
        }
      }
      await writeJsonAtomic(path.join(work, 'template.json'), meta);
      // Swap the finished build into place; a running sandbox keeps its own copy.
      const old = `${final}.old-${randomBytes(4).toString('hex')}`;
      const hadOld = existsSync(final);
      if (hadOld) await rename(final, old);
      await rename(work, final);
      if (hadOld) await rm(old, { recursive: true, force: true });
      log(`template '${spec.name}' ready (${mode} mode)`);
      return { name: spec.name, templateId: `local:${spec.name}` };
    } catch (err) {
      await rm(work, { recursive: true, force: true }).catch(() => {});
      if (err instanceof SandboxError) throw err;
      if (opts.signal?.aborted) throw cancelledError(opts.signal, `build of '${spec.name}'`);
      throw new SandboxError('build_failed', `template '${spec.name}': ${redact((err as Error).message)}`, { cause: err });
    }
  }
}

export class LocalSandbox implements Sandbox {
  readonly provider = 'local' as const;
  readonly id: string;
  readonly template: string;
  private timer: NodeJS.Timeout | undefined;
  private killed = false;
  private readonly running = new Set<ChildProcess>();

  constructor(
    private readonly owner: LocalProvider,
    private readonly rec: SandboxRecord,
    private readonly dir: string,
    private readonly child: ChildProcess | undefined,
  ) {
    this.id = rec.id;
    this.template = rec.template;
  }

  /** The sandbox's pid 1 in the host pid namespace (for benchmarks and diagnostics). */
  get initPid(): number {
    return this.rec.initPid;
  }

  alive(): boolean {
    return !this.killed && isAlive(this.rec);
  }

  /** @internal Arms the lifetime timer; on expiry it re-reads the record in case another process extended it. */
  arm(): void {
    if (this.timer) clearTimeout(this.timer);
    const ms = Math.max(0, Date.parse(this.rec.endAt) - Date.now());
    this.timer = setTimeout(() => void this.expire(), Math.min(ms, 2 ** 31 - 1));
    this.timer.unref();
  }

  private async expire(): Promise<void> {
    const fresh = await readJsonFile<SandboxRecord>(path.join(this.dir, 'sandbox.json')).catch(() => undefined);
    if (fresh && Date.parse(fresh.endAt) > Date.now() + 50) {
      this.rec.endAt = fresh.endAt;
      this.arm();
      return;
    }
    await this.kill();
  }

  private requireAlive(): void {
    if (!this.alive()) throw new SandboxError('not_found', `local sandbox ${this.id} is not running (killed or expired)`, { status: 404 });
  }

  /** Spawns a process inside the sandbox's namespaces, in its own process group. */
  private enter(argv: string[], env: Record<string, string>, stdin: 'ignore' | 'pipe'): ChildProcess {
    const args = ['--target', String(this.rec.initPid), '--mount', '--uts', '--ipc', '--pid', '--root', '--wd'];
    if (!this.rec.allowInternet) args.push('--net');
    args.push('--', ...argv);
    const child = spawn(this.owner.nsenter, args, { stdio: [stdin, 'pipe', 'pipe'], detached: true, env: { PATH: SANDBOX_PATH, HOME: '/root', LANG: 'C.UTF-8', ...env } });
    return child;
  }

  private killTree(child: ChildProcess): void {
    if (!child.pid) return;
    const pids = descendants(child.pid);
    killQuietly(-child.pid);
    for (const p of pids) killQuietly(p);
    killQuietly(child.pid);
  }

  async run(command: string, opts: RunCommandOptions): Promise<CommandResult> {
    if (!(opts.timeoutMs > 0)) throw new SandboxError('unknown', `a command needs a positive timeout, got ${opts.timeoutMs} ms`);
    if (opts.signal?.aborted) throw cancelledError(opts.signal, 'command');
    this.requireAlive();
    const cwd = opts.cwd ?? '/root';
    const script = `cd -- ${shQuote(cwd)} || exit 1\n${command}`;
    const child = this.enter(['/bin/bash', '-l', '-c', script], { ...this.rec.envs, ...opts.envs }, 'ignore');
    this.running.add(child);
    const out = new StreamCollector(opts.maxOutputBytes, opts.onStdout);
    const err = new StreamCollector(opts.maxOutputBytes, opts.onStderr);
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (c: string) => out.push(c));
    child.stderr?.on('data', (c: string) => err.push(c));
    let ended: 'timeout' | 'abort' | 'gone' | undefined;
    const stop = (why: 'timeout' | 'abort' | 'gone') => {
      ended ??= why;
      this.killTree(child);
    };
    const timer = setTimeout(() => stop('timeout'), opts.timeoutMs);
    const onAbort = () => stop('abort');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    // Aborted before the listener was in place: the event has already fired.
    if (opts.signal?.aborted) onAbort();
    try {
      const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', (code, signal) => {
          // A background process may keep the pipes open (`cmd &` without redirects): drain briefly, then stop.
          const drain = setTimeout(() => {
            child.stdout?.destroy();
            child.stderr?.destroy();
            resolve({ code, signal });
          }, 200);
          child.on('close', () => {
            clearTimeout(drain);
            resolve({ code, signal });
          });
        });
      });
      if (ended === 'abort') throw cancelledError(opts.signal, 'command');
      if (ended === 'timeout') return { exitCode: 124, stdout: out.finish(), stderr: err.finish(), timedOut: true };
      if (!this.alive()) throw new SandboxError('not_found', `local sandbox ${this.id} stopped while the command ran`, { status: 404 });
      return { exitCode: exit.code ?? 128 + 9, stdout: out.finish(), stderr: err.finish(), timedOut: false };
    } catch (e) {
      out.finish();
      err.finish();
      if (e instanceof SandboxError) throw e;
      throw new SandboxError('unknown', `could not run a command in ${this.id}: ${(e as Error).message}`, { cause: e });
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      this.running.delete(child);
    }
  }

  private async io(argv: string[], input: Uint8Array | undefined, signal?: AbortSignal): Promise<{ code: number; stdout: Buffer; stderr: string }> {
    this.requireAlive();
    if (signal?.aborted) throw cancelledError(signal, 'file operation');
    const child = this.enter(argv, {}, input ? 'pipe' : 'ignore');
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => chunks.push(c));
    child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
    const onAbort = () => this.killTree(child);
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => this.killTree(child), 60_000);
    try {
      if (input && child.stdin) {
        child.stdin.on('error', () => {});
        child.stdin.end(Buffer.from(input));
      }
      const code = await new Promise<number>((resolve, reject) => {
        child.on('error', reject);
        child.on('close', (c) => resolve(c ?? 137));
      });
      if (signal?.aborted) throw cancelledError(signal, 'file operation');
      return { code, stdout: Buffer.concat(chunks), stderr };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async readFile(file: string, opts: { signal?: AbortSignal } = {}): Promise<string> {
    const r = await this.io(['/bin/sh', '-c', 'if [ ! -e "$1" ]; then exit 44; fi; exec cat -- "$1"', 'sh', file], undefined, opts.signal);
    if (r.code === 44) throw new SandboxError('not_found', `file ${file} not found in sandbox ${this.id}`, { status: 404 });
    if (r.code !== 0) throw new SandboxError('unknown', `could not read ${file}: ${r.stderr.trim() || `exit ${r.code}`}`);
    return r.stdout.toString('utf8');
  }

  async writeFile(file: string, data: string | Uint8Array, opts: { signal?: AbortSignal } = {}): Promise<void> {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    const r = await this.io(['/bin/sh', '-c', 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"', 'sh', file], bytes, opts.signal);
    if (r.code !== 0) throw new SandboxError('unknown', `could not write ${file}: ${r.stderr.trim() || `exit ${r.code}`}`);
  }

  async health(port: number, p = '/health', opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<HealthResult> {
    const timeoutMs = opts.timeoutMs ?? 5000;
    const r = await this.run(healthProbeCommand(port, p, timeoutMs / 1000), { timeoutMs: timeoutMs + 5000, signal: opts.signal, maxOutputBytes: 256 * 1024 });
    return parseHealthProbe(r);
  }

  async setTimeout(ms: number): Promise<void> {
    this.requireAlive();
    this.rec.endAt = new Date(Date.now() + ms).toISOString();
    await writeJsonAtomic(path.join(this.dir, 'sandbox.json'), this.rec);
    this.arm();
  }

  async kill(opts: { keepFiles?: boolean } = {}): Promise<boolean> {
    const wasAlive = !this.killed && isAlive(this.rec);
    this.killed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const c of this.running) this.killTree(c);
    if (this.child) this.owner.expectStop(this.child);
    if (wasAlive) killQuietly(this.rec.initPid);
    if (this.child?.pid) killQuietly(-this.child.pid);
    else if (this.rec.outerPid && this.rec.outerStart && procStartTime(this.rec.outerPid) === this.rec.outerStart) killQuietly(this.rec.outerPid);
    // Wait (bounded) until the kernel has torn the pid namespace down; a loaded machine can take seconds.
    const deadline = Date.now() + 10_000;
    for (let delay = 5; Date.now() < deadline && procStartTime(this.rec.initPid) === this.rec.initStart; delay = Math.min(100, delay * 2)) await sleep(delay);
    this.owner.forget(this.id);
    if (!opts.keepFiles) await rm(this.dir, { recursive: true, force: true }).catch(() => {});
    return wasAlive;
  }

  /** For diagnostics: the sandbox's private copy of the template tree on the host. */
  get hostRoot(): string {
    return path.join(this.dir, 'root');
  }
}
