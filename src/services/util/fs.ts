// Small file-system questions asked across the domains.
import { access, readdir } from 'node:fs/promises';
import { constants } from 'node:fs';

/** Whether a path exists (following symlinks); an unreadable parent counts as absent. */
export async function exists(file: string): Promise<boolean> {
  try {
    await access(file, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

/** The names in a directory; none when it is missing or cannot be read (nothing written there yet). */
export async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}
