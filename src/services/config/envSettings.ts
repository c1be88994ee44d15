// Every environment variable the console reads for itself, declared once: name, default, how its text is read,
// what it sets, and whether it is a secret. Code reads a setting through `setting(env, NAME)` (the environment is
// handed in: process.env, or a test's), never as `env.NAME`; `--help`, the README's "Environment" table and the
// completion scripts are generated from this list. tests/architecture/settings.test.ts fails on a declared name
// read anywhere else, on an undeclared SWEGYM_ name, and when the README drifts from the list.
//
// The launcher's own variables (DRESSAGE_*, MODEL_ROOT, …) are the Train form's (services/train/settings.ts), which
// also shows the console-only estimate settings below; their defaults come from here.

export interface SettingSpec<T> {
  readonly name: string;
  /** What it sets, for --help and the README (the default included where there is one). */
  readonly description: string;
  /** The default as people write it, when the variable is unset or unusable ('' when there is none). */
  readonly defaultText: string;
  /** Its text → its value (the default when unset or unusable). */
  readonly parse: (raw: string | undefined) => T;
  /** Never printed, logged or stored (the secrets scanner knows these names too). */
  readonly secret: boolean;
  /** Read by the console (its own) or a variable of another tool that the console reads first-hand. */
  readonly owner: 'console' | 'upstream';
}

function spec<T>(name: string, description: string, parse: (raw: string | undefined) => T, o: { defaultText?: string; secret?: boolean; owner?: 'console' | 'upstream' } = {}): SettingSpec<T> {
  return { name, description, parse, defaultText: o.defaultText ?? '', secret: o.secret ?? false, owner: o.owner ?? 'console' };
}

// How a variable's text is read. Each keeps the rule its setting had before it moved here.
const text = (raw: string | undefined): string | undefined => raw;
const trimmed = (raw: string | undefined): string | undefined => raw?.trim() || undefined;
/** A number > 0 (any spelling Number() takes), else the fallback. */
const positive = (fallback: number) => (raw: string | undefined): number => {
  const n = Number(raw);
  return raw !== undefined && Number.isFinite(n) && n > 0 ? n : fallback;
};
/** A number > 0, else undefined (the caller's default applies: it depends on another setting). */
const positiveOrUnset = (raw: string | undefined): number | undefined => {
  const n = Number(raw);
  return raw !== undefined && Number.isFinite(n) && n > 0 ? n : undefined;
};
/** Digits only (a count of milliseconds, 0 allowed), else undefined. */
const digitsMs = (raw: string | undefined): number | undefined => (raw !== undefined && /^\s*\d+\s*$/.test(raw) ? Number(raw) : undefined);
/** Digits only and > 0, else undefined. */
const positiveDigitsMs = (raw: string | undefined): number | undefined => (raw && /^\d+$/.test(raw.trim()) && Number(raw) > 0 ? Number(raw) : undefined);
/** Any non-zero number, else the fallback (Number(raw) || fallback). */
const nonZero = (fallback: number) => (raw: string | undefined): number => Number(raw) || fallback;

export const ENV_SETTINGS = {
  SWEGYM_CONSOLE_WORKSPACE: spec('SWEGYM_CONSOLE_WORKSPACE', 'the Dressage checkout when --workspace is not given (default: the current directory)', text),
  SWEGYM_CONSOLE_PROVIDER: spec('SWEGYM_CONSOLE_PROVIDER', 'e2b or local when --provider is not given (default: e2b)', text, { defaultText: 'e2b' }),
  SWEGYM_CONSOLE_PROGRESS_EVERY_MS: spec('SWEGYM_CONSOLE_PROGRESS_EVERY_MS', 'without a terminal, how often a long job prints its `N/M · ETA` line (default 10000)', (raw) => Number(raw) || undefined, { defaultText: '10000' }),
  SWEGYM_DOCTOR_TIMEOUT_MS: spec('SWEGYM_DOCTOR_TIMEOUT_MS', "each doctor check's bound (default 3000); raise it on a slow machine", nonZero(3000), { defaultText: '3000' }),
  SWEGYM_EXIT_GRACE_MS: spec('SWEGYM_EXIT_GRACE_MS', 'after the first Ctrl-C or SIGTERM, how long a command may wind down before it is ended (default 10000)', positive(10_000), { defaultText: '10000' }),
  SWEGYM_E2B_REQUEST_TIMEOUT_MS: spec('SWEGYM_E2B_REQUEST_TIMEOUT_MS', 'timeout of one E2B API request (default 30000)', positiveDigitsMs, { defaultText: '30000' }),
  SWEGYM_SANDBOX_PORT_URL: spec('SWEGYM_SANDBOX_PORT_URL', 'reach a sandbox port through a tunnel or proxy: a URL with {port} (and {id}), e.g. http://127.0.0.1:{port}', trimmed),
  SWEGYM_DASHBOARD_REFRESH_MS: spec(
    'SWEGYM_DASHBOARD_REFRESH_MS',
    "the dashboard's data refresh, 250–60000 (default 2000)",
    (raw) => {
      const v = Number(raw);
      return Number.isFinite(v) && v >= 250 && v <= 60_000 ? v : undefined;
    },
    { defaultText: '2000' },
  ),
  SWEGYM_MONITOR_WORKERS: spec('SWEGYM_MONITOR_WORKERS', 'monitor --once: threads that scan a large log (the main thread included; 1 = the main thread alone)', (raw) => {
    const n = Number(raw);
    return Number.isInteger(n) && n >= 1 ? n : undefined;
  }),
  SWEGYM_MONITOR_MAIN_SCANS: spec('SWEGYM_MONITOR_MAIN_SCANS', 'monitor --once: 0 leaves the scanning to the worker threads', (raw) => raw !== '0', { defaultText: '1' }),
  SWEGYM_MONITOR_MARKER_SEARCH: spec('SWEGYM_MONITOR_MARKER_SEARCH', 'monitor --once: js searches the log markers without WebAssembly', (raw): 'js' | 'wasm' => (raw === 'js' ? 'js' : 'wasm'), { defaultText: 'wasm' }),
  SWEGYM_RAY_BIN: spec('SWEGYM_RAY_BIN', 'the ray executable that follows a Ray job (default: ray on PATH)', text),
  SWEGYM_RAY_DASHBOARD: spec('SWEGYM_RAY_DASHBOARD', "the Ray dashboard's URL (default: an http(s) RAY_ADDRESS, else :8265 on this node)", trimmed),
  SWEGYM_RAY_METRICS: spec('SWEGYM_RAY_METRICS', "Ray's Prometheus endpoints, comma-separated host:port or URLs (e.g. through a tunnel)", (raw) =>
    (raw ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ),
  SWEGYM_RETRY_BASE_MS: spec('SWEGYM_RETRY_BASE_MS', 'the first delay of every retry layer (sandboxes, template builds), and the step of the BBS health waits of a smoke', digitsMs),
  SWEGYM_RETRY_MAX_MS: spec('SWEGYM_RETRY_MAX_MS', 'the longest one retry waits, Retry-After included', digitsMs),
  SWEGYM_LATE_CREATE_WAIT_MS: spec(
    'SWEGYM_LATE_CREATE_WAIT_MS',
    'at exit, how long to wait for sandbox creates E2B has not answered yet (default 30000)',
    (raw) => {
      const n = Number(raw);
      return raw !== undefined && Number.isFinite(n) && n >= 0 ? n : 30_000;
    },
    { defaultText: '30000' },
  ),
  SWEGYM_HEARTBEAT_MS: spec('SWEGYM_HEARTBEAT_MS', "how often the workspace owner's heartbeat is written", positiveOrUnset, { defaultText: '30000' }),
  SWEGYM_HEARTBEAT_STALE_MS: spec('SWEGYM_HEARTBEAT_STALE_MS', "when another console's lock counts as abandoned (default 3 min, at least 3 beats)", positiveOrUnset, { defaultText: '180000' }),
  SWEGYM_PYTHON: spec('SWEGYM_PYTHON', 'the python that runs the artifacts script (default: python3)', (raw) => raw ?? 'python3', { defaultText: 'python3' }),
  SWEGYM_DEBUG_SCAN: spec('SWEGYM_DEBUG_SCAN', 'set: a failed parallel log scan prints its stack trace', (raw) => Boolean(raw)),
  SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT: spec(
    'SWEGYM_CONSOLE_E2B_CONCURRENCY_LIMIT',
    "concurrent sandboxes your E2B plan allows, for the launch checks and the dashboard's gauge (default 100; Hobby 20)",
    (raw) => {
      const v = Number(raw);
      return Number.isInteger(v) && v > 0 ? v : 100;
    },
    { defaultText: '100' },
  ),
  SWEGYM_CONSOLE_E2B_PRICE_PER_SANDBOX_HOUR: spec('SWEGYM_CONSOLE_E2B_PRICE_PER_SANDBOX_HOUR', 'Train: USD per sandbox-hour, for the cost estimate (default 0.10)', text, { defaultText: '0.10' }),
  SWEGYM_CONSOLE_AGENT_MINUTES: spec('SWEGYM_CONSOLE_AGENT_MINUTES', 'Train: assumed Claude Code minutes per sample, for the estimate (default 20)', text, { defaultText: '20' }),
  SWEGYM_CONSOLE_EVAL_MINUTES: spec('SWEGYM_CONSOLE_EVAL_MINUTES', 'Train: assumed evaluation minutes per sample, for the estimate (default 6)', text, { defaultText: '6' }),
  E2B_API_KEY: spec('E2B_API_KEY', 'builds and smoke-tests templates, validates tasks (training reads DRESSAGE_E2B_API_KEY)', text, { secret: true, owner: 'upstream' }),
  NO_COLOR: spec('NO_COLOR', 'set and not empty: no colours (as --no-color)', (raw) => raw !== undefined && raw !== '', { owner: 'upstream' }),
} as const;

export type SettingName = keyof typeof ENV_SETTINGS;
export type SettingValue<N extends SettingName> = ReturnType<(typeof ENV_SETTINGS)[N]['parse']>;

/** A setting's value in this environment (its default when unset or unusable). */
export function setting<N extends SettingName>(env: NodeJS.ProcessEnv, name: N): SettingValue<N> {
  return ENV_SETTINGS[name].parse(env[name]) as SettingValue<N>;
}

/** Whether the variable is set at all (some settings mean something only when given). */
export function settingGiven(env: NodeJS.ProcessEnv, name: SettingName): boolean {
  return env[name] !== undefined;
}

/** A setting's default as written (the Train form shows and compares it as text). */
export function settingDefault(name: SettingName): string {
  return ENV_SETTINGS[name].defaultText;
}

/** The reference `--help` and the README print: every setting, in the order declared. */
export function environmentReference(): { name: string; help: string; secret: boolean }[] {
  return Object.values(ENV_SETTINGS).map((s) => ({ name: s.name, help: s.description, secret: s.secret }));
}
