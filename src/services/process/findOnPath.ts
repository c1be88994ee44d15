// Where a program name would be found on PATH, without starting it. Starting a program that is not installed costs a
// fork of the console (the exec error comes back from the child), on the main thread; the doctor asks for several
// tools that are often absent (uv, nvidia-smi and ray on a laptop).
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

function executableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The file `name` would run as, searched the way exec does: a name with a slash is taken as it is (from `cwd`), an
 * empty PATH entry means `cwd`. Undefined when no entry holds an executable file of that name.
 */
export function findOnPath(name: string, pathVar: string, cwd: string): string | undefined {
  if (name.includes('/')) return executableFile(path.resolve(cwd, name)) ? path.resolve(cwd, name) : undefined;
  for (const dir of pathVar.split(path.delimiter)) {
    const f = path.resolve(cwd, dir || '.', name);
    if (executableFile(f)) return f;
  }
  return undefined;
}
