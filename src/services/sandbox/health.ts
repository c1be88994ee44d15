// The health check runs INSIDE the sandbox (its own network namespace): curl when present, else python3's stdlib.
// The probe prints the body, then one marker line with the HTTP status; parseHealthProbe turns that into a result.
import type { CommandResult, HealthResult } from './types.js';

export const HEALTH_STATUS_MARKER = '__SWEGYM_HEALTH_STATUS__=';

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'"'"'`)}'`;
}

export function healthUrl(port: number, path = '/health'): string {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`invalid port ${port}`);
  const p = path.startsWith('/') ? path : `/${path}`;
  return `http://127.0.0.1:${port}${p}`;
}

/** A shell command that GETs the URL from inside the sandbox and prints body + status marker. */
export function healthProbeCommand(port: number, path = '/health', timeoutSec = 5): string {
  const url = shQuote(healthUrl(port, path));
  const t = Math.max(1, Math.ceil(timeoutSec));
  const py = [
    'import sys, urllib.request, urllib.error',
    'code = 0',
    'body = b""',
    'try:',
    `    r = urllib.request.urlopen(sys.argv[1], timeout=${t})`,
    '    code = r.status',
    '    body = r.read()',
    'except urllib.error.HTTPError as e:',
    '    code = e.code',
    '    body = e.read()',
    'except Exception as e:',
    '    sys.stderr.write(str(e) + "\\n")',
    'sys.stdout.write(body.decode("utf-8", "replace"))',
    `sys.stdout.write("\\n${HEALTH_STATUS_MARKER}%03d\\n" % code)`,
    'sys.exit(0 if code else 7)',
  ].join('\n');
  return [
    'if command -v curl >/dev/null 2>&1; then',
    `  curl -sS -m ${t} -w '\\n${HEALTH_STATUS_MARKER}%{http_code}\\n' ${url}`,
    'elif command -v python3 >/dev/null 2>&1; then',
    `  python3 -c ${shQuote(py)} ${url}`,
    'else',
    "  echo 'neither curl nor python3 is available in the sandbox' >&2; exit 127",
    'fi',
  ].join('\n');
}

/** Interprets the probe's output. ok = a 2xx answer. */
export function parseHealthProbe(result: CommandResult): HealthResult {
  if (result.timedOut) return { ok: false, error: 'health probe timed out' };
  const idx = result.stdout.lastIndexOf(HEALTH_STATUS_MARKER);
  const stderr = result.stderr.trim();
  if (idx < 0) {
    return { ok: false, error: stderr || `health probe failed (exit ${result.exitCode})` };
  }
  const status = Number.parseInt(result.stdout.slice(idx + HEALTH_STATUS_MARKER.length).trim(), 10);
  let body = result.stdout.slice(0, idx);
  if (body.endsWith('\n')) body = body.slice(0, -1);
  if (!status) {
    return { ok: false, error: stderr || 'connection failed (nothing listening?)' };
  }
  return httpHealthResult(status, body);
}

/** An HTTP answer of a health endpoint: ok on 2xx, the body as JSON when it is JSON (else its text). */
export function httpHealthResult(status: number, body: string): HealthResult {
  const out: HealthResult = { ok: status >= 200 && status < 300, status, body };
  try {
    out.json = JSON.parse(body);
  } catch {
    // not JSON: keep the body text
  }
  if (!out.ok) out.error = `HTTP ${status}`;
  return out;
}
