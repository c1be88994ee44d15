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

const SECRET_NAME = /(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)($|_)/i;

/** True for environment variable names whose values must be masked. */
export function isSecretName(name: string): boolean {
  return (KNOWN_SECRET_ENV as readonly string[]).includes(name) || SECRET_NAME.test(name);
}

export const MASK = '****';

// Token shapes that are secret wherever they appear, even when not in the environment.
const TOKEN_PATTERNS: RegExp[] = [
  /\be2b_[A-Za-z0-9]{8,}\b/g,
  /\bhf_[A-Za-z0-9]{16,}\b/g,
  /\bsk-ant-[A-Za-z0-9_-]{8,}\b/g,
  /\bsk-[A-Za-z0-9]{20,}\b/g,
];

// NAME=value and --name value / --name=value forms for secret-looking names.
const ASSIGNMENT = /\b([A-Za-z_][A-Za-z0-9_]*(?:API_?KEY|TOKEN|SECRET|PASSWORD|_KEY))=("[^"]*"|'[^']*'|[^\s"']+)/gi;
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

/** Masks every secret in `text`: values of secret env vars, known token shapes, NAME=value pairs, auth headers. */
export function redact(text: string, env: NodeJS.ProcessEnv = process.env): string {
  let out = text;
  for (const value of secretValues(env)) {
    if (out.includes(value)) out = out.split(value).join(MASK);
  }
  for (const re of TOKEN_PATTERNS) out = out.replace(re, MASK);
  out = out.replace(ASSIGNMENT, (whole, name: string, value: string) => (isPlaceholder(value) ? whole : `${name}=${MASK}`));
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
