// Secrets (E2B, HF, W&B, Anthropic keys) never reach the screen, logs, journals or the command log.
// Everything the console prints or persists that could contain process text goes through `redact`.

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

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
const HEADER = /\b(X-API-Key|Authorization|X-Access-Token)(:\s*)(Bearer\s+)?[^\s,"']+/gi;

// Fragments: any run of FRAGMENT_MIN or more characters of a known secret value is masked, whatever surrounds it
// (except a run of eight lower-case letters, a word, see buildMatcher),
// in any case, URL-encoded (%xx), JSON- or Python-escaped (\uXXXX, \xXX, escaped backslashes too) or wrapped over
// lines. Every window of FRAGMENT_MIN characters of every secret is hashed once per set of secrets; the text is
// decoded on the fly and scanned with a rolling hash, so a line costs a few operations per character.
export const FRAGMENT_MIN = 8;
const GRAM = FRAGMENT_MIN;
const BASE = 0x01000193;
let BASE_POW = 1; // BASE^(GRAM-1) mod 2^32
for (let i = 1; i < GRAM; i++) BASE_POW = Math.imul(BASE_POW, BASE);

interface FragmentMatcher {
  /** One bit per low 16 bits of a gram's hash: most windows are ruled out by one table read. */
  filter: Uint8Array;
  hashes: Set<number>;
  grams: Set<string>;
  /** Secrets too short to have fragments (6–7 characters): matched whole. */
  shortPatterns: RegExp[];
}

const PATH_SHAPE = /^~?\/[^\s:]*$/;
/** A value shaped like a path whose folder exists here: a path, not key material (a key with a '/' names no folder). */
function isExistingPath(value: string): boolean {
  if (!PATH_SHAPE.test(value)) return false;
  const expanded = value.startsWith('~/') ? path.join(homedir(), value.slice(2)) : value;
  const dir = path.dirname(path.resolve(expanded));
  return dir !== path.parse(dir).root && existsSync(dir);
}
const lower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);

function gramHash(codes: ArrayLike<number>, from: number): number {
  let h = 0;
  for (let i = 0; i < GRAM; i++) h = (Math.imul(h, BASE) + codes[from + i]!) | 0;
  return h;
}

function buildMatcher(values: string[]): FragmentMatcher {
  const filter = new Uint8Array(1 << 13);
  const hashes = new Set<number>();
  const grams = new Set<string>();
  const shortPatterns: RegExp[] = [];
  for (const value of values) {
    // A file path in a secret-named variable (GOOGLE_APPLICATION_CREDENTIALS=/home/…) is masked whole only: its
    // fragments are every other path of the same home.
    if (value.length < GRAM || isExistingPath(value)) {
      shortPatterns.push(valuePattern(value));
      continue;
    }
    const codes = Array.from(value, (ch) => lower(ch.charCodeAt(0)));
    // A secret made of words only (a pass phrase) is masked whole; its words alone would mask ordinary text.
    if (/^[a-z]+$/.test(value)) shortPatterns.push(valuePattern(value));
    for (let i = 0; i + GRAM <= codes.length; i++) {
      // Eight lower-case letters in a row are a word ("training", "template"), not key material: such a window alone
      // is not masked (its neighbours with a digit, capital or sign are). Random keys hold almost none: hex keys
      // (6/16)^8, mixed-case ones (26/62)^8 of their windows.
      if (/^[a-z]{8}$/.test(value.slice(i, i + GRAM))) continue;
      const h = gramHash(codes, i);
      hashes.add(h);
      filter[(h & 0xffff) >>> 3]! |= 1 << (h & 7);
      grams.add(String.fromCharCode(...codes.slice(i, i + GRAM)));
    }
  }
  return { filter, hashes, grams, shortPatterns };
}

const hexValue = (c: number) => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1);

function hexAt(text: string, at: number, n: number): number {
  if (at + n > text.length) return -1;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const d = hexValue(text.charCodeAt(at + i));
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// decodeAt's second result: how many source characters the character it returned took (a module variable, not a
// tuple: this runs once per character of every log line).
let decodedLength = 1;

/**
 * The character that starts at `i` (decoded when `decode`), its source length in `decodedLength`. -1 is a line
 * break with its indent, which a fragment may span (a wrapped key) but which is no character of it.
 */
function decodeAt(text: string, i: number, c: number, decode: boolean): number {
  if (decode && c === 37 /* % */) {
    const v = hexAt(text, i + 1, 2);
    if (v >= 0) {
      decodedLength = 3;
      return v;
    }
  } else if (decode && c === 92 /* \ */) {
    let j = i;
    while (text.charCodeAt(j) === 92) j++;
    const kind = text.charCodeAt(j);
    if (kind === 117 /* u */) {
      const v = hexAt(text, j + 1, 4);
      if (v >= 0) {
        decodedLength = j + 5 - i;
        return v;
      }
    } else if (kind === 120 /* x */) {
      const v = hexAt(text, j + 1, 2);
      if (v >= 0) {
        decodedLength = j + 3 - i;
        return v;
      }
    }
  } else if (c === 10 || c === 13) {
    let j = i + 1;
    if (c === 13 && text.charCodeAt(j) === 10) j++;
    while (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9) j++;
    decodedLength = j - i;
    return -1;
  }
  decodedLength = 1;
  return c;
}

/**
 * Source ranges [start, end) that hold a fragment of a secret, in order. Read twice when the text has escapes: as
 * written and decoded, since an escape can swallow a fragment's first characters ("%" + "ab12…" reads as "«12…").
 */
function fragmentRanges(text: string, m: FragmentMatcher): [number, number][] {
  if (m.hashes.size === 0 || text.length < GRAM) return [];
  const raw = scanFragments(text, m, false);
  if (text.indexOf('%') < 0 && text.indexOf('\\') < 0) return raw;
  return mergeRanges([...raw, ...scanFragments(text, m, true)]);
}

function mergeRanges(ranges: [number, number][]): [number, number][] {
  ranges.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

function scanFragments(text: string, m: FragmentMatcher, decode: boolean): [number, number][] {
  const ranges: [number, number][] = [];
  const filter = m.filter;
  // A ring of the last GRAM decoded characters and where each began in the source.
  const codes = new Int32Array(GRAM);
  const starts = new Int32Array(GRAM);
  let count = 0;
  let h = 0;
  for (let i = 0; i < text.length; ) {
    const raw = text.charCodeAt(i);
    // Plain characters (the bulk of any log) skip the decoder.
    let code = raw;
    let len = 1;
    if (raw === 37 || raw === 92 || raw === 10 || raw === 13) {
      code = decodeAt(text, i, raw, decode);
      len = decodedLength;
      if (code < 0) {
        i += len;
        continue;
      }
    }
    const slot = count % GRAM;
    const c = code >= 65 && code <= 90 ? code + 32 : code;
    if (count >= GRAM) h = (h - Math.imul(codes[slot]!, BASE_POW)) | 0;
    h = (Math.imul(h, BASE) + c) | 0;
    codes[slot] = c;
    starts[slot] = i;
    count++;
    i += len;
    if (count >= GRAM && (filter[(h & 0xffff) >>> 3]! & (1 << (h & 7))) !== 0 && m.hashes.has(h)) {
      let gram = '';
      for (let k = 0; k < GRAM; k++) gram += String.fromCharCode(codes[(count + k) % GRAM]!);
      if (m.grams.has(gram)) {
        const from = starts[count % GRAM]!;
        const last = ranges[ranges.length - 1];
        if (last && from <= last[1]) last[1] = i;
        else ranges.push([from, i]);
      }
    }
  }
  return ranges;
}

function maskRanges(text: string, ranges: [number, number][]): string {
  if (ranges.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [from, to] of ranges) {
    out += text.slice(at, from) + MASK;
    at = to;
  }
  return out + text.slice(at);
}

// process.env is a live view of the environment, slow to enumerate (tens of µs): its secret names are re-read at most
// once a second; the values of the names found, and of the known names, are read on every call.
const ENV_RESCAN_MS = 1000;
let envNames: { at: number; names: string[] } | undefined;

function secretNamesOf(env: NodeJS.ProcessEnv): string[] {
  if (env !== process.env) return Object.keys(env).filter(isSecretName);
  const now = Date.now();
  if (!envNames || now - envNames.at > ENV_RESCAN_MS) envNames = { at: now, names: [...new Set([...KNOWN_SECRET_ENV, ...Object.keys(env).filter(isSecretName)])] };
  return envNames.names;
}

// Secrets the console holds outside the environment (saved train secrets, --set / --env-file values): masked by
// every redact call, whatever env it is given.
const knownSecrets = new Set<string>();

/** Adds values to the secrets every later redact() masks (whole and in fragments). Placeholders and short values are ignored. */
export function rememberSecrets(values: Iterable<string | undefined>): void {
  for (const value of values) if (value && value.length >= 6 && !isPlaceholder(value)) knownSecrets.add(value);
}

function secretValues(env: NodeJS.ProcessEnv): string[] {
  const values: string[] = [...knownSecrets];
  for (const name of secretNamesOf(env)) {
    const value = env[name];
    if (value && value.length >= 6 && !isPlaceholder(value) && !knownSecrets.has(value)) values.push(value);
  }
  // Longest first so that a value containing another is masked whole.
  return values.sort((a, b) => b.length - a.length);
}

const matchers = new Map<string, FragmentMatcher>();
function matcherFor(values: string[]): FragmentMatcher {
  const key = values.join('\0');
  let m = matchers.get(key);
  if (!m) {
    if (matchers.size >= 16) matchers.delete(matchers.keys().next().value!);
    m = buildMatcher(values);
    matchers.set(key, m);
  }
  return m;
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

/** Masks every secret in `text`: values of secret env vars (whole or any fragment of 8+ characters, in any encoding), token shapes, NAME=value, auth headers. */
export function redact(text: string, env: NodeJS.ProcessEnv = process.env): string {
  let out = text;
  const values = secretValues(env);
  if (values.length > 0) {
    const m = matcherFor(values);
    out = maskRanges(out, fragmentRanges(out, m));
    for (const re of m.shortPatterns) out = out.replace(re, MASK);
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
