// What `templates status` and the Templates screen show: every image with its template, state, smoke result
// and error, derived from the files on disk (image list, journal, map) — never only from memory.
import type { RecipePaths } from '../workspace/paths.js';
import { damagedMapError, inspectTemplateMap } from './map.js';
import type { ConsoleError } from '../errors.js';
import { readImageList, readTemplateRecords, type TemplateState } from './records.js';
import { assignTemplateNames, DEFAULT_TEMPLATE_PREFIX } from './naming.js';
import { isLockHeld } from '../workspace/lock.js';
import type { TemplateStatusRow, TemplateCounts } from '../../state/types/templates.js';
export type { TemplateStatusRow, TemplateCounts } from '../../state/types/templates.js';

export interface TemplatesStatus {
  templates: TemplateStatusRow[];
  counts: TemplateCounts;
  /** Problems with the map under the converter's rules (empty when it is complete). */
  mapProblems: string[];
  /** The refusal every reader gives a damaged map (not JSON, not an object): the screen shows the rows anyway. */
  mapRefusal?: ConsoleError;
  imageListMissing: boolean;
}

export function countRows(rows: readonly TemplateStatusRow[]): TemplateCounts {
  const c: TemplateCounts = { total: rows.length, queued: 0, building: 0, built: 0, failed: 0, mapped: 0, smokePassed: 0, smokeFailed: 0 };
  for (const r of rows) {
    c[r.state]++;
    if (r.mapped) c.mapped++;
    if (r.smoke === 'passed') c.smokePassed++;
    if (r.smoke === 'failed') c.smokeFailed++;
  }
  return c;
}

export async function templatesStatus(paths: RecipePaths, prefix = DEFAULT_TEMPLATE_PREFIX): Promise<TemplatesStatus> {
  let images: string[] = [];
  let imageListMissing = false;
  try {
    images = await readImageList(paths.imageList);
  } catch {
    imageListMissing = true;
  }
  const items = (await readTemplateRecords(paths)) ?? {};
  const check = await inspectTemplateMap(paths.templateMap, images.length ? images : undefined);
  const map = check.map;
  // A journal saying "building" while no console holds the workspace lock was interrupted.
  const builderAlive = await isLockHeld(paths.lockFile);
  const all = [...images, ...Object.keys(items).filter((i) => !images.includes(i)), ...Object.keys(map).filter((i) => !images.includes(i) && !(i in items))];
  const previous = new Map(Object.entries(items).map(([i, r]) => [i, r.template]));
  const names = assignTemplateNames(all, prefix, previous);
  const rows: TemplateStatusRow[] = all.map((image) => {
    const rec = items[image];
    const mapped = Boolean(map[image]);
    let state: TemplateState = rec?.state ?? (mapped ? 'built' : 'queued');
    let error = rec?.state === 'failed' ? (rec.reason ?? 'failed') : '';
    if (state === 'building' && !builderAlive) {
      state = 'queued';
      error = 'interrupted while building; rerun templates build';
    }
    if (!error && rec?.smoke === 'failed') error = rec.smokeError ?? 'smoke failed';
    return {
      image,
      template: rec?.template || map[image] || (names.get(image) as string),
      state,
      smoke: rec?.smoke ?? null,
      error,
      durationMs: rec?.durationMs,
      updatedAt: rec?.updatedAt,
      mapped,
    };
  });
  return {
    templates: rows,
    counts: countRows(rows),
    mapProblems: check.problems.filter((p) => p.kind !== 'no_entry' && p.kind !== 'missing_file').map((p) => p.message),
    mapRefusal: damagedMapError(check, paths.templateMap),
    imageListMissing,
  };
}
