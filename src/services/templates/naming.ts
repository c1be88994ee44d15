// Template names: one deterministic, valid, unique and stable E2B template name per task image.
//
// E2B does not document its alias grammar; the API answers `400: Invalid alias: <name>` for names it refuses
// (E2B#1039, e.g. a `:` is the tag separator and `/` the namespace separator). We therefore keep to a
// conservative subset every E2B deployment accepts: lower-case letters, digits, `-` and `_`, starting and
// ending with a letter or digit, at most 63 characters.
//
// A name is `<prefix>-<slug>` where the slug is the image with its well-known owner, the `sweb.eval.x86_64.`
// prefix and the `:latest` tag removed (xingyaoww/sweb.eval.x86_64.getmoto_s_moto-6920:latest →
// swegym-getmoto_s_moto-6920). Whenever that loses information (another owner or tag, characters that had to
// be replaced or lower-cased, truncation to the length limit) a short hash of the full image is appended, so
// two images never share a name. Names depend only on (image, prefix), never on the other images, so they
// are stable across runs; the factory also prefers the name it recorded for an image earlier.
import { createHash } from 'node:crypto';

export const DEFAULT_TEMPLATE_PREFIX = 'swegym';
export const MAX_TEMPLATE_NAME_LENGTH = 63;
export const MAX_PREFIX_LENGTH = 24;
export const TEMPLATE_NAME_PATTERN = /^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/;
const PREFIX_PATTERN = /^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/;
const HASH_LEN = 8;

/** Owners whose images are the SWE-Gym/SWE-bench task images (recipe §2.2). */
const CANONICAL_OWNERS = ['xingyaoww', 'swebench'];
const IMAGE_PREFIX = 'sweb.eval.x86_64.';

/** Returns why a template name is not acceptable, or undefined when it is. */
export function templateNameProblem(name: string): string | undefined {
  if (!name) return 'the name is empty';
  if (name.length > MAX_TEMPLATE_NAME_LENGTH) return `the name is ${name.length} characters long (at most ${MAX_TEMPLATE_NAME_LENGTH})`;
  if (!TEMPLATE_NAME_PATTERN.test(name)) return 'use only lower-case letters, digits, "-" and "_", starting and ending with a letter or digit';
  return undefined;
}

/** Returns why a prefix is not acceptable, or undefined when it is. */
export function prefixProblem(prefix: string): string | undefined {
  if (!prefix) return 'the prefix is empty';
  if (prefix.length > MAX_PREFIX_LENGTH) return `the prefix is ${prefix.length} characters long (at most ${MAX_PREFIX_LENGTH})`;
  if (!PREFIX_PATTERN.test(prefix)) return 'use only lower-case letters, digits, "-" and "_", starting and ending with a letter or digit';
  return undefined;
}

export function imageHash(image: string, length = HASH_LEN): string {
  return createHash('sha256').update(image).digest('hex').slice(0, length);
}

function sanitize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
}

/** The readable part of a name and whether it identifies the image without loss. */
export function imageSlug(image: string): { slug: string; lossless: boolean } {
  let rest = image.trim();
  let lossless = rest === image;
  const slash = rest.indexOf('/');
  const owner = slash >= 0 ? rest.slice(0, slash) : '';
  if (slash >= 0 && CANONICAL_OWNERS.includes(owner) && rest.indexOf('/', slash + 1) < 0) rest = rest.slice(slash + 1);
  else lossless = false;
  // Only the xingyaoww owner is implied; the legacy swebench images carry `_1776_` and are told apart by a hash.
  if (owner !== 'xingyaoww') lossless = false;
  if (rest.startsWith(IMAGE_PREFIX)) rest = rest.slice(IMAGE_PREFIX.length);
  else lossless = false;
  if (rest.endsWith(':latest')) rest = rest.slice(0, -':latest'.length);
  else lossless = false;
  const slug = sanitize(rest);
  if (slug !== rest || slug === '') lossless = false;
  return { slug: slug || 'image', lossless };
}

/** The name for one image; `hashLength` > 0 forces a hash suffix of that length. */
export function templateNameForImage(image: string, prefix = DEFAULT_TEMPLATE_PREFIX, hashLength = 0): string {
  const problem = prefixProblem(prefix);
  if (problem) throw new Error(`invalid template prefix "${prefix}": ${problem}`);
  const { slug, lossless } = imageSlug(image);
  const plain = `${prefix}-${slug}`;
  if (lossless && hashLength === 0 && plain.length <= MAX_TEMPLATE_NAME_LENGTH) return plain;
  const h = imageHash(image, hashLength || HASH_LEN);
  const room = MAX_TEMPLATE_NAME_LENGTH - prefix.length - h.length - 2;
  const cut = slug.slice(0, Math.max(0, room)).replace(/[-_]+$/g, '');
  return cut ? `${prefix}-${cut}-${h}` : `${prefix}-${h}`;
}

/**
 * Names for a list of images: the names recorded earlier (`previous`, when still valid and free) win, then the
 * computed name; any remaining collision gets a longer hash. The result is injective.
 */
export function assignTemplateNames(images: readonly string[], prefix = DEFAULT_TEMPLATE_PREFIX, previous?: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Map<string, string>();
  const unique = [...new Set(images)];
  if (previous) {
    for (const image of unique) {
      const name = previous.get(image);
      // A name recorded under another prefix is not reused: changing --prefix renames every template.
      if (name && name.startsWith(`${prefix}-`) && !templateNameProblem(name) && !used.has(name)) {
        out.set(image, name);
        used.set(name, image);
      }
    }
  }
  for (const image of unique) {
    if (out.has(image)) continue;
    let name = templateNameForImage(image, prefix);
    for (const len of [HASH_LEN, 16, 32, 64]) {
      if (!used.has(name)) break;
      name = templateNameForImage(image, prefix, len);
    }
    if (used.has(name)) throw new Error(`could not find a unique template name for ${image}`);
    out.set(image, name);
    used.set(name, image);
  }
  return out;
}
