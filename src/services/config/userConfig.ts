// The operator's own configuration, outside any workspace: $XDG_CONFIG_HOME/swegym-console/ (default
// ~/.config/swegym-console/), as the XDG Base Directory specification puts it. Today it holds keys.json, the
// user's keys for the console's intents ({"train.launch": "L", "quit": ["q", "Ctrl-C"]}). This module finds and
// reads the file; the keymap (src/ui) checks what it says against the intent table.
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const APP_DIR = 'swegym-console';
export const KEYS_FILE = 'keys.json';

/**
 * The console's config folder. XDG_CONFIG_HOME counts only when it is an absolute path (the specification says a
 * relative one is to be ignored); else $HOME/.config, else the account's home folder.
 */
export function userConfigDir(env: NodeJS.ProcessEnv, homedir: () => string = os.homedir): string {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, APP_DIR);
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : homedir();
  return path.join(home, '.config', APP_DIR);
}

export function keysFilePath(env: NodeJS.ProcessEnv, homedir?: () => string): string {
  return path.join(userConfigDir(env, homedir), KEYS_FILE);
}

export interface KeysFile {
  path: string;
  /** intent → a key or keys, as written (checked by the keymap); empty when there is no file. */
  entries: Record<string, unknown>;
  /** Why the file could not be used, worded for people; the defaults then stay, all of them. */
  problem?: string;
}

/** The parsed keys.json: an object of intent → keys. A missing file is no problem (the defaults apply). */
export function parseKeysFile(text: string, file: string): KeysFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { path: file, entries: {}, problem: `${file} is not JSON (${(err as Error).message}); the default keys stay` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { path: file, entries: {}, problem: `${file} must hold one object of intent → keys, e.g. {"train.launch": "L"}; the default keys stay` };
  }
  return { path: file, entries: value as Record<string, unknown> };
}

export async function readKeysFile(env: NodeJS.ProcessEnv, homedir?: () => string): Promise<KeysFile> {
  const file = keysFilePath(env, homedir);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { path: file, entries: {} };
    return { path: file, entries: {}, problem: `${file} could not be read (${code ?? (err as Error).message}); the default keys stay` };
  }
  return parseKeysFile(text, file);
}
