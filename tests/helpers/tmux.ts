// Drives the built binary in a real terminal (tmux, private socket), one key at a time.
import { execFileSync } from 'node:child_process';
import { readFileSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { DEFAULT_WAIT_MS, waitFor } from './wait.js';

export function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// Each look at the screen runs a tmux client (fork, exec, a round trip to the server: ~1 ms of this process's CPU and
// more of tmux's); every 10 ms, a wait of a few seconds cost hundreds of them. A human-paced screen is looked at
// every 30 ms.
const SCREEN_POLL_MS = 30;

export class TmuxSession {
  readonly socket: string;
  readonly exitFile: string;
  private readonly name = 'app';

  constructor(tag: string) {
    this.socket = path.join(tmpdir(), `swegym-tmux-${tag}-${process.pid}.sock`);
    this.exitFile = path.join(tmpdir(), `swegym-tmux-${tag}-${process.pid}.exit`);
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-S', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  /** Starts `argv` in a detached session of the given size; the exit code lands in a file. */
  start(argv: string[], opts: { cols: number; rows: number; env?: Record<string, string>; cwd?: string }): void {
    rmSync(this.exitFile, { force: true });
    const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const envArgs = Object.entries({ TERM: 'xterm-256color', ...(opts.env ?? {}) }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    // CI=true makes Ink non-interactive; a real user's terminal has no CI variable.
    const cmd = `cd '${opts.cwd ?? process.cwd()}' && env -u CI ${quoted}; echo $? > '${this.exitFile}'; sleep 30`;
    this.tmux('new-session', '-d', '-s', this.name, '-x', String(opts.cols), '-y', String(opts.rows), ...envArgs, cmd);
  }

  screen(): string {
    return this.tmux('capture-pane', '-t', this.name, '-p');
  }

  key(key: string): void {
    this.tmux('send-keys', '-t', this.name, key);
  }

  literal(text: string): void {
    this.tmux('send-keys', '-t', this.name, '-l', text);
  }

  /** Pastes `text` as a terminal paste: bracketed (ESC[200~ … ESC[201~) when the program asked for it. */
  paste(text: string): void {
    this.tmux('set-buffer', '-b', 'swegym-paste', '--', text);
    this.tmux('paste-buffer', '-p', '-d', '-b', 'swegym-paste', '-t', this.name);
  }

  /**
   * Writes `text` to the program in ONE write, never bracketed, line feeds kept: what a fast typist or an SSH link
   * delivers in one read (`abc\r`), or a paste in a terminal without bracketed paste.
   */
  writeOnce(text: string): void {
    this.tmux('set-buffer', '-b', 'swegym-chunk', '--', text);
    this.tmux('paste-buffer', '-r', '-d', '-b', 'swegym-chunk', '-t', this.name);
  }

  resize(cols: number, rows: number): void {
    this.tmux('resize-window', '-t', this.name, '-x', String(cols), '-y', String(rows));
  }

  async waitForText(text: string | RegExp, timeoutMs = DEFAULT_WAIT_MS): Promise<string> {
    let last = '';
    await waitFor(
      () => {
        last = this.screen();
        return typeof text === 'string' ? last.includes(text) : text.test(last);
      },
      { timeoutMs, intervalMs: SCREEN_POLL_MS, message: () => `expected ${String(text)} on screen:\n${last}` },
    );
    return last;
  }

  /** Waits until `text` has left the screen (e.g. an overlay closed, whose frame shares the tab bar). */
  async waitForTextGone(text: string, timeoutMs = DEFAULT_WAIT_MS): Promise<string> {
    let last = '';
    await waitFor(
      () => {
        last = this.screen();
        return !last.includes(text);
      },
      { timeoutMs, intervalMs: SCREEN_POLL_MS, message: () => `expected ${text} to leave the screen:\n${last}` },
    );
    return last;
  }

  async exitCode(timeoutMs = DEFAULT_WAIT_MS): Promise<number> {
    await waitFor(() => existsSync(this.exitFile) && readFileSync(this.exitFile, 'utf8').trim() !== '', { timeoutMs, message: () => this.screen() });
    return Number(readFileSync(this.exitFile, 'utf8').trim());
  }

  kill(): void {
    try {
      this.tmux('kill-server');
    } catch {}
    rmSync(this.socket, { force: true });
    rmSync(this.exitFile, { force: true });
  }
}
