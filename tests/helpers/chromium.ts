// Headless Chromium for tests that need a real browser (the run report): Debian's `chromium` package (.ci/run
// installs it), or SWEGYM_CHROMIUM. Each call gets its own profile directory, so parallel test files never share one.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser's path, or undefined when none is installed. */
export function findChromium(): string | undefined {
  const forced = process.env.SWEGYM_CHROMIUM;
  if (forced) return existsSync(forced) ? forced : undefined;
  return CANDIDATES.find((c) => existsSync(c));
}

/** Why a browser test is skipped (test's `skip` option), or false when a browser is there. */
export function chromiumMissing(): string | false {
  return findChromium() ? false : 'no headless Chromium (apt-get install chromium, or set SWEGYM_CHROMIUM)';
}

/** The artifacts folder CI keeps (SWEGYM_TEST_ARTIFACTS, default test-artifacts/ in the checkout). */
export function artifactsDir(...sub: string[]): string {
  return path.resolve(process.env.SWEGYM_TEST_ARTIFACTS ?? 'test-artifacts', ...sub);
}

async function headless(args: string[], timeoutMs: number): Promise<string> {
  const bin = findChromium();
  if (!bin) throw new Error('no Chromium');
  const profile = await mkdtemp(path.join(tmpdir(), 'swegym-chromium-'));
  try {
    return await new Promise<string>((resolve, reject) => {
      execFile(
        bin,
        ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions', `--user-data-dir=${profile}`, ...args],
        { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, HOME: profile } },
        (err, stdout, stderr) => (err ? reject(new Error(`chromium ${args.join(' ')}: ${err.message}\n${stderr.slice(-2000)}`)) : resolve(stdout)),
      );
    });
  } finally {
    await rm(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}

/**
 * The page's DOM after its scripts ran (virtual time lets timers and the first frames run without waiting in real
 * time). The network is refused, so a page that fetched anything would show it broken.
 */
export async function dumpDom(file: string, timeoutMs = 60_000): Promise<string> {
  return headless(['--virtual-time-budget=5000', '--proxy-server=127.0.0.1:9', '--dump-dom', pathToFileURL(file).href], timeoutMs);
}

export async function screenshot(file: string, png: string, opts: { width?: number; height?: number; timeoutMs?: number } = {}): Promise<void> {
  await headless(['--virtual-time-budget=5000', '--hide-scrollbars', `--window-size=${opts.width ?? 1400},${opts.height ?? 2400}`, `--screenshot=${png}`, pathToFileURL(file).href], opts.timeoutMs ?? 60_000);
}
