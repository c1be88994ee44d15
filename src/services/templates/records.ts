// Per-image template state kept in the `templates` journal (.swegym-console/journals/templates.json).
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { Journal, readJournalItems } from '../workspace/journal.js';
import type { RecipePaths } from '../workspace/paths.js';
import { ConsoleError, ExitCode } from '../errors.js';
import type { TemplateState, SmokeState } from '../../state/types/templates.js';
export type { TemplateState, SmokeState } from '../../state/types/templates.js';

export interface TemplateRecord {
  image: string;
  state: TemplateState;
  template: string;
  /** Failure reason with the likely cause, or a note (adopted, abandoned, recipe changed). */
  reason?: string;
  /** Short failure tag (pull_denied, alias_taken, …). */
  code?: string;
  /** Last build log lines (failures only, redacted). */
  logTail?: string[];
  durationMs?: number;
  attempts?: number;
  /** Recipe + artifact fingerprint the template was built from. */
  fingerprint?: string;
  templateId?: string;
  buildId?: string;
  builtAt?: string;
  smoke?: SmokeState;
  smokeError?: string;
  smokeAt?: string;
  smokeDurationMs?: number;
  updatedAt: string;
}

export const TEMPLATES_JOURNAL = 'templates';

export function templatesJournal(paths: RecipePaths): Journal<TemplateRecord> {
  return new Journal<TemplateRecord>(paths.journalsDir, TEMPLATES_JOURNAL);
}

export function templatesJournalFile(paths: RecipePaths): string {
  return path.join(paths.journalsDir, `${TEMPLATES_JOURNAL}.json`);
}

/**
 * The templates journal's records by image, read without taking it over (the screens, the pipeline, the verifier):
 * undefined when there is none yet or it cannot be read. The one reader of the journal's format besides Journal.
 */
export async function readTemplateRecords(paths: RecipePaths): Promise<Record<string, TemplateRecord> | undefined> {
  return readJournalItems<TemplateRecord>(templatesJournalFile(paths)).catch(() => undefined);
}

/** Reads data/swegym-images.txt: one image per line, blank lines ignored, de-duplicated in order. */
export async function readImageList(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ConsoleError({
        what: `the image list ${file} does not exist`,
        cause: 'the task images have not been listed yet',
        fix: 'run `swegym-console data images` (or Dressage: prepare_swegym_e2b.py list-images --download --output data/swegym-images.txt)',
        exitCode: ExitCode.precondition,
      });
    }
    throw err;
  }
  const images = [...new Set(text.split('\n').map((l) => l.trim()).filter(Boolean))];
  if (images.length === 0) {
    throw new ConsoleError({
      what: `the image list ${file} is empty`,
      fix: 'rerun `swegym-console data images`',
      exitCode: ExitCode.precondition,
    });
  }
  return images;
}
