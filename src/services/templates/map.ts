// data/e2b-template-map.json: `{ "<docker image>": "<template name>", … }`. The reader applies the converter's own
// rules (recipe §1.5) with its exact messages, so a map the console accepts is a map Dressage accepts:
// valid JSON, a JSON object, no empty key or value, not empty, an entry for every image that will be converted.
// The writer replaces the whole file atomically, so the map is valid JSON at every instant.
import { readFile } from 'node:fs/promises';
import { ConsoleError, ExitCode } from '../errors.js';
import { writeJsonAtomic } from '../workspace/atomic.js';

export type TemplateMap = Record<string, string>;

export interface MapProblem {
  /** The converter's message (same wording). */
  message: string;
  kind: 'missing_file' | 'invalid_json' | 'not_object' | 'empty_entry' | 'empty' | 'not_string' | 'no_entry' | 'shared_template';
  image?: string;
}

export interface MapCheck {
  map: TemplateMap;
  problems: MapProblem[];
  /** Images (of the list given) without an entry. */
  missing: string[];
}

/** Checks parsed JSON against the converter's rules. `images`: the images that will be converted. */
export function checkTemplateMap(value: unknown, file: string, images?: readonly string[]): MapCheck {
  const problems: MapProblem[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { map: {}, problems: [{ kind: 'not_object', message: `sandbox image map must be a JSON object: ${file}` }], missing: [...(images ?? [])] };
  }
  const map: TemplateMap = {};
  let emptyEntry = false;
  for (const [rawKey, v] of Object.entries(value as Record<string, unknown>)) {
    // The converter strips keys and values (`str(raw).strip()`): " tpl " maps as "tpl".
    const key = rawKey.trim();
    if (typeof v !== 'string') {
      // The converter would write str(value) ("None", "5") as the template name; no such template exists.
      problems.push({ kind: 'not_string', image: key, message: `swegym-console's own check: sandbox image map value for '${key}' is not a string: ${file}` });
      continue;
    }
    if (key === '' || v.trim() === '') {
      emptyEntry = true;
      continue;
    }
    map[key] = v.trim();
  }
  // One template per task image: a second image on the same template would run its task in the first one's image.
  const byTemplate = new Map<string, string[]>();
  for (const [image, t] of Object.entries(map)) byTemplate.set(t, [...(byTemplate.get(t) ?? []), image]);
  for (const [t, imgs] of byTemplate) {
    if (imgs.length > 1) problems.push({ kind: 'shared_template', image: imgs[1], message: `sandbox image map gives template '${t}' to ${imgs.length} images (${imgs.join(', ')}); each task image needs its own template: ${file}` });
  }
  if (emptyEntry) problems.push({ kind: 'empty_entry', message: `sandbox image map contains an empty key or value: ${file}` });
  if (Object.keys(value as object).length === 0) problems.push({ kind: 'empty', message: `sandbox image map is empty: ${file}` });
  const missing = (images ?? []).filter((image) => !Object.prototype.hasOwnProperty.call(map, image));
  for (const image of missing) problems.push({ kind: 'no_entry', image, message: `sandbox image map has no entry for '${image}'` });
  return { map, problems, missing };
}

/** Reads and checks the map file; never throws for content problems (they are in `problems`). */
export async function inspectTemplateMap(file: string, images?: readonly string[]): Promise<MapCheck> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return { map: {}, problems: [{ kind: 'missing_file', message: `sandbox image map not found: ${file}` }], missing: [...(images ?? [])] };
    }
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { map: {}, problems: [{ kind: 'invalid_json', message: `invalid sandbox image map ${file}: ${(err as Error).message}` }], missing: [...(images ?? [])] };
  }
  return checkTemplateMap(parsed, file, images);
}

/**
 * Reads the map as the converter would and throws a ConsoleError on the first rule it breaks. For the convert
 * step: pass the images of the rows that will be converted.
 */
export async function readTemplateMap(file: string, images?: readonly string[]): Promise<TemplateMap> {
  const check = await readTemplateMapOrRefuse(file, images);
  const first = check.problems[0];
  if (!first) return check.map;
  const missingCount = check.missing.length;
  const fix =
    first.kind === 'no_entry' || first.kind === 'missing_file' || first.kind === 'empty'
      ? `build the missing templates: swegym-console templates build${missingCount ? ` (${missingCount} image(s) have no template)` : ''}`
      : first.kind === 'invalid_json' || first.kind === 'not_object'
        ? 'fix the file by hand or delete it and run `swegym-console templates build` (finished templates are not rebuilt)'
        : first.kind === 'shared_template'
          ? `remove the wrong entries from ${file} and run \`swegym-console templates build\` (it builds one template per image)`
          : 'remove the empty or non-string entries (or rerun `swegym-console templates build`)';
  throw new ConsoleError({
    what: first.message,
    cause: check.problems.length > 1 ? `${check.problems.length} problems in the template map; the converter stops at the first` : undefined,
    fix,
    exitCode: ExitCode.precondition,
  });
}

const DAMAGED: ReadonlySet<MapProblem['kind']> = new Set(['invalid_json', 'not_object', 'not_string']);

/**
 * The one refusal of a map that is not JSON, not a JSON object, or holds a non-string value: every reader of the
 * map (build, smoke, status, convert, the launch checks, doctor, the home pipeline) says this, in these words.
 */
export function damagedMapError(check: MapCheck, file: string): ConsoleError | undefined {
  const fatal = check.problems.find((p) => DAMAGED.has(p.kind));
  if (!fatal) return undefined;
  return new ConsoleError({
    what: fatal.message,
    cause: 'the template map was edited by hand or damaged; the console neither reads past it nor overwrites it',
    fix: `fix ${file} (a JSON object of image → template name) or move it away and run \`swegym-console templates build\` (built templates are found again)`,
    exitCode: ExitCode.precondition,
  });
}

/**
 * The reader every command uses: the map and its softer problems (missing file, missing entries, a shared
 * template) for the caller to judge; a damaged map is refused (damagedMapError).
 */
export async function readTemplateMapOrRefuse(file: string, images?: readonly string[]): Promise<MapCheck> {
  const check = await inspectTemplateMap(file, images);
  const refusal = damagedMapError(check, file);
  if (refusal) throw refusal;
  return check;
}

/**
 * The map as the verifier and the launch checks read it: undefined when there is none; a ConsoleError naming the
 * file and the fix when it is damaged or gives one template to two images. Missing entries are the verifier's
 * business (it reports them per row).
 */
export async function readTemplateMapForChecks(file: string): Promise<TemplateMap | undefined> {
  const check = await readTemplateMapOrRefuse(file);
  if (check.problems.some((p) => p.kind === 'missing_file')) return undefined;
  const shared = check.problems.find((p) => p.kind === 'shared_template');
  if (!shared) return check.map;
  throw new ConsoleError({
    what: shared.message,
    cause: 'a template is built from one image; the other image\'s tasks would run in the wrong repository',
    fix: `remove the wrong entries from ${file} and run \`swegym-console templates build\` (one template per image)`,
    exitCode: ExitCode.precondition,
  });
}

/**
 * Reads the map for updating: a missing file is an empty map; a damaged one is refused (never overwritten, so
 * hand-made entries are not lost). A shared template is not fatal here: the build that reads the map is the fix.
 */
export async function loadMapForUpdate(file: string): Promise<TemplateMap> {
  return (await readTemplateMapOrRefuse(file)).map;
}

/** Writes the map atomically, keys in `order` first (image-list order), then the rest sorted. */
export async function writeTemplateMap(file: string, map: TemplateMap, order: readonly string[] = []): Promise<void> {
  const out: TemplateMap = {};
  for (const image of order) if (map[image]) out[image] = map[image];
  for (const image of Object.keys(map).sort()) if (!(image in out) && map[image]) out[image] = map[image];
  await writeJsonAtomic(file, out);
}
