// Small file-system questions asked across the domains.
import { access } from 'node:fs/promises';
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
