// Files the launch runs or sources, resolved: the launcher script (which `bash` runs), DEFAULT_ENV_FILE and
// MODEL_CONFIG_PATH (which the launcher sources, i.e. runs as shell). A symlink or a setting can send any of them
// outside the Dressage checkout; the checks say where each really points, and a launcher outside is refused unless
// the operator asks for it (--allow-outside-launcher).
import { realpath } from 'node:fs/promises';
import path from 'node:path';

export interface ResolvedFile {
  /** The path as configured. */
  given: string;
  /** Where it really is (symlinks followed); the given path when it does not exist. */
  real: string;
  /** A symlink (somewhere along the path) made `real` differ from `given`. */
  viaLink: boolean;
  /** `real` lies inside the checkout's real path. */
  inside: boolean;
}

async function realOrSelf(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch {
    return path.resolve(p);
  }
}

export function isInside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Resolves `file` (relative ones against the checkout) and says whether it stays inside `checkoutRoot`. */
export async function resolveAgainstCheckout(file: string, checkoutRoot: string): Promise<ResolvedFile> {
  const given = path.resolve(checkoutRoot, file);
  const [real, root] = await Promise.all([realOrSelf(given), realOrSelf(checkoutRoot)]);
  // A checkout reached through a link of its own (/work/x → /data/x) moves nothing; a link below it does.
  const expected = isInside(path.resolve(checkoutRoot), given) ? path.join(root, path.relative(path.resolve(checkoutRoot), given)) : given;
  return { given, real, viaLink: real !== expected, inside: isInside(root, real) };
}

/** "examples/…/run.sh → /elsewhere/x.sh" when a link moved it, else the path. */
export function describeResolved(f: ResolvedFile, checkoutRoot: string): string {
  const shown = isInside(checkoutRoot, f.given) ? path.relative(checkoutRoot, f.given) || f.given : f.given;
  return f.viaLink ? `${shown} → ${f.real}` : shown;
}
