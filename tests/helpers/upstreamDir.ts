// Which upstream checkout the differential tests hold the console against: SWEGYM_UPSTREAM=DIR (a folder holding
// dressage/ and swegym-harness/, as ../shared/upstream does, or a Dressage checkout itself), else ../shared/upstream
// beside the project. Upstream moves, and a user's checkout is the one that counts.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function resolveUpstream(): { root: string; dressage: string; harness: string } {
  const chosen = process.env.SWEGYM_UPSTREAM;
  const root = chosen ? path.resolve(chosen) : path.resolve(REPO, '..', 'shared', 'upstream');
  // A Dressage checkout: its own examples/scripts and dressage/ package at the top.
  if (existsSync(path.join(root, 'examples', 'scripts')) && existsSync(path.join(root, 'dressage', 'paddock'))) {
    return { root, dressage: root, harness: path.join(path.dirname(root), 'swegym-harness') };
  }
  return { root, dressage: path.join(root, 'dressage'), harness: path.join(root, 'swegym-harness') };
}

const resolved = resolveUpstream();
export const UPSTREAM_ROOT = resolved.root;
export const UPSTREAM_DRESSAGE_DIR = resolved.dressage;
export const UPSTREAM_HARNESS_DIR = resolved.harness;
/** How the tests name where the checkout came from, in skip messages. */
export const UPSTREAM_ORIGIN = process.env.SWEGYM_UPSTREAM ? `SWEGYM_UPSTREAM=${process.env.SWEGYM_UPSTREAM}` : '../shared/upstream';

/**
 * The one skip reason of a differential test whose upstream files are absent, so the summary counts them under one
 * line: the whole checkout missing (a clone without ../shared beside it) reads the same in every file; a checkout
 * that lacks one needed file names it.
 */
export function upstreamMissing(files: readonly string[]): string | false {
  const missing = files.find((f) => !existsSync(f));
  if (!missing) return false;
  if (!existsSync(UPSTREAM_ROOT)) return `${UPSTREAM_ORIGIN} not found${process.env.SWEGYM_UPSTREAM ? '' : ' — set SWEGYM_UPSTREAM=DIR to a Dressage checkout'} (differential tests)`;
  return `${UPSTREAM_ORIGIN} has no ${path.relative(UPSTREAM_ROOT, missing) || missing} (differential tests)`;
}

/** python3 runs upstream's stdlib parts; one wording for its absence too. */
export const PYTHON_MISSING = 'python3 not found (differential tests against upstream)';
