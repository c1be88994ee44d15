// The user's keys: keys.json from the XDG config dir (services/config reads it), checked against the intent table
// (ui/keymap). What was wrong is worded once; every intent it names keeps its default keys.
import { readKeysFile } from '../services/config/userConfig.js';
import { resolveKeyOverrides, type ResolvedKeymap } from '../ui/keymap.js';

export async function loadUserKeymap(env: NodeJS.ProcessEnv, homedir?: () => string): Promise<ResolvedKeymap & { path: string }> {
  const file = await readKeysFile(env, homedir);
  if (file.problem) return { path: file.path, overrides: {}, problems: [file.problem] };
  return { path: file.path, ...resolveKeyOverrides(file.entries, file.path) };
}
