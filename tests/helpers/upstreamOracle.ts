// The upstream oracle for differential tests: the real Dressage source under ../shared/upstream, run by python3
// (stdlib only) through tests/helpers/upstreamOracle.py. Tests skip, saying why, when the checkout or python3 is absent.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

import { PYTHON_MISSING, REPO, UPSTREAM_DRESSAGE_DIR, UPSTREAM_ROOT, upstreamMissing } from './upstreamDir.js';

/** SWEGYM_UPSTREAM=DIR, else ../shared/upstream (upstreamDir.ts). */
export const UPSTREAM = UPSTREAM_ROOT;
export const DRESSAGE = UPSTREAM_DRESSAGE_DIR;

function findPython(): string | undefined {
  for (const p of ['/usr/bin/python3', 'python3']) {
    const r = spawnSync(p, ['-c', 'import sys; print(sys.version_info[0])'], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim() === '3') return p;
  }
  return undefined;
}

export const PYTHON = findPython();

/** Why the differential tests cannot run here, or undefined when they can. */
export function upstreamSkipReason(): string | undefined {
  const missing = upstreamMissing([path.join(DRESSAGE, 'dressage', 'recipes', 'swegym', 'evaluator.py')]);
  if (missing) return missing;
  if (!PYTHON) return PYTHON_MISSING;
  return undefined;
}

export interface OracleCall {
  fn: string;
  args: unknown[];
  env?: Record<string, string | null>;
}

export type OracleReply = { ok: unknown } | { error: string };

/** Decodes the oracle's {"$float": …} encoding back to numbers. */
function decode(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decode);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1 && keys[0] === '$float') return o.$float === 'nan' ? NaN : o.$float === 'inf' ? Infinity : -Infinity;
    return Object.fromEntries(keys.map((k) => [k, decode(o[k])]));
  }
  return v;
}

/** Runs a batch of calls in one python3 process; one reply per call, in order. */
export async function oracle(calls: OracleCall[]): Promise<OracleReply[]> {
  if (!PYTHON) throw new Error('python3 not found');
  const child = spawn(PYTHON, [path.join(REPO, 'tests', 'helpers', 'upstreamOracle.py'), DRESSAGE], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8' } });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.end(calls.map((c) => JSON.stringify(c)).join('\n') + '\n');
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const lines = out.split('\n').filter(Boolean);
  if (code !== 0 || lines.length !== calls.length) throw new Error(`upstreamOracle.py exited ${code} with ${lines.length}/${calls.length} replies: ${err.slice(-2000)}`);
  return lines.map((l) => {
    const r = JSON.parse(l) as { ok?: unknown; error?: string };
    return r.error !== undefined ? { error: r.error } : { ok: decode(r.ok) };
  });
}

export async function oracleOne(fn: string, args: unknown[], env?: Record<string, string | null>): Promise<OracleReply> {
  return (await oracle([{ fn, args, env }]))[0] as OracleReply;
}

/** A small seeded PRNG for generated cases (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)] as T;
}
