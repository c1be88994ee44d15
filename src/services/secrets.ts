// Secrets (E2B, HF, W&B, Anthropic keys) never reach the screen, logs, journals or the command log.
// Everything the console prints or persists that could contain process text goes through `redact`.

export const KNOWN_SECRET_ENV = [
  'E2B_API_KEY',
  'DRESSAGE_E2B_API_KEY',
  'E2B_ACCESS_TOKEN',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'WANDB_API_KEY',
  'WANDB_KEY',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'OPENAI_API_KEY',
] as const;

// The secret word ends the name (HF_TOKEN, MY_API_KEY); TOKEN_BUILD_MODE or KEY_FILE name settings, not secrets.
const SECRET_NAME = /(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/i;

/** True for environment variable names whose values must be masked. */
export function isSecretName(name: string): boolean {
  return (KNOWN_SECRET_ENV as readonly string[]).includes(name) || SECRET_NAME.test(name);
}

export const MASK = '****';

// Token shapes that are secret wherever they appear, even when not in the environment.
const TOKEN_PATTERNS: RegExp[] = [
  /\be2b_[A-Za-z0-9]{6,}/gi,
  /\bhf_[A-Za-z0-9]{16,}\b/g,
  /\bsk-ant-[A-Za-z0-9_-]{8,}\b/g,
  /\bsk-[A-Za-z0-9]{20,}\b/g,
];

// NAME=value and --name value / --name=value forms for secret-looking names.
const ASSIGNMENT = /\b([A-Za-z_][A-Za-z0-9_]*(?:API_?KEY|TOKEN|SECRET|PASSWORD|_KEY))(=|%3D)("[^"]*"|'[^']*'|[^\s"'&]+)/gi;
// "api_key": "value" (JSON, Python reprs), any case.
const JSON_PAIR = /(["']([A-Za-z0-9_-]*(?:api_?key|token|secret|password|_key))["']\s*:\s*)(["'])([^"'\\]*)\3/gi;
// Runs of key-like characters: a run that is part of a secret value (its first or last 20 characters, say) is
// masked too, so a truncated or wrapped key is never shown in part.
// Only runs that look like key material (12+ characters with a digit, or 16+) count, so that words a secret
// happens to contain ("training" in a pass phrase) stay readable.
const TOKEN_RUN = /[A-Za-z0-9_+/=.-]{12,}/g;
const PARTIAL_MIN = 12;
const looksLikeKeyMaterial = (run: string) => run.length >= 16 || /\d/.test(run);
const HEADER = /\b(X-API-Key|Authorization|X-Access-Token)(:\s*)(Bearer\s+)?[^\s,"']+/gi;

function secretValues(env: NodeJS.ProcessEnv): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= 6 && isSecretName(name)) values.push(value);
  }
  // Longest first so that a value containing another is masked whole.
  return values.sort((a, b) => b.length - a.length);
}

// Placeholders in help text ("E2B_API_KEY=<your key>", "=$E2B_API_KEY", "=e2b_…") are not secrets.
function isPlaceholder(value: string): boolean {
  return /^(<[^>]*>?|\$\{?[A-Za-z_]\w*\}?|…|e2b_…|hf_…|\*+)$/.test(value);
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A value matched whole, in any case, URL-encoded, or wrapped over lines (a newline between any two characters). */
function valuePattern(value: string): RegExp {
  const char = (c: string) => (/[A-Za-z0-9]/.test(c) ? c : `(?:${escapeRe(c)}|%${c.charCodeAt(0).toString(16).padStart(2, '0')})`);
  return new RegExp([...value].map(char).join('(?:\\r?\\n[ \\t]*)?'), 'gi');
}

/** Masks every secret in `text`: values of secret env vars (whole or in part), token shapes, NAME=value, auth headers. */
export function redact(text: string, env: NodeJS.ProcessEnv = process.env): string {
  let out = text;
  const values = secretValues(env);
  for (const value of values) out = out.replace(valuePattern(value), MASK);
  const lowered = values.filter((v) => v.length >= 16).map((v) => v.toLowerCase());
  if (lowered.length > 0) {
    out = out.replace(TOKEN_RUN, (run) => {
      const r = run.toLowerCase();
      return r.length >= PARTIAL_MIN && looksLikeKeyMaterial(r) && lowered.some((v) => v.includes(r)) ? MASK : run;
    });
  }
  for (const re of TOKEN_PATTERNS) out = out.replace(re, MASK);
  out = out.replace(ASSIGNMENT, (whole, name: string, sep: string, value: string) => (isPlaceholder(value) ? whole : `${name}${sep}${MASK}`));
  out = out.replace(JSON_PAIR, (whole, head: string, _name: string, quote: string, value: string) => (value === '' || isPlaceholder(value) ? whole : `${head}${quote}${MASK}${quote}`));
  out = out.replace(HEADER, (_m, name: string, sep: string, bearer: string | undefined) => `${name}${sep}${bearer ?? ''}${MASK}`);
  return out;
}

/** Redacts an argv for display: `--api-key X` style pairs and inline secrets. */
export function redactArgv(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const prev = argv[i - 1];
    if (prev && /^--?[\w-]*(key|token|secret|password)$/i.test(prev)) {
      out.push(MASK);
      continue;
    }
    const flagValue = /^(--?[\w-]*(?:key|token|secret|password))=(.*)$/i.exec(arg);
    if (flagValue) {
      out.push(`${flagValue[1]}=${MASK}`);
      continue;
    }
    out.push(redact(arg, env));
  }
  return out;
}

/** Returns a copy of an env map with secret values masked, for display (dry runs, registries). */
export function redactEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    out[name] = isSecretName(name) && value !== '' ? MASK : value;
  }
  return out;
}

/** Shows that a secret is set without revealing it: "set (40 chars)". */
export function describeSecret(value: string | undefined): string {
  if (!value) return 'not set';
  return `set (${value.length} chars)`;
}
