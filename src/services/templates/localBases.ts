// For the local provider a template's base is a directory (a /testbed tree or a root filesystem), not a Docker
// image. The image list may name directories directly (relative to the workspace), or a mapping file
// `.swegym-console/local-images.json` ({ "<docker image>": "<directory>" }, written by the sample workspace)
// says which directory stands for which image. Anything else is passed through, and the local provider explains
// that it needs a directory.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { RecipePaths } from '../workspace/paths.js';

export const LOCAL_IMAGES_FILE = 'local-images.json';

export function localImagesFile(paths: RecipePaths): string {
  return path.join(paths.consoleDir, LOCAL_IMAGES_FILE);
}

export function localBaseResolver(paths: RecipePaths): (image: string) => string {
  let mapping: Record<string, string> = {};
  const file = localImagesFile(paths);
  if (existsSync(file)) {
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) mapping = parsed as Record<string, string>;
    } catch {}
  }
  return (image) => {
    const mapped = mapping[image];
    if (typeof mapped === 'string' && mapped) return path.resolve(paths.root, mapped);
    const direct = path.resolve(paths.root, image);
    try {
      if (statSync(direct).isDirectory()) return direct;
    } catch {}
    return image;
  };
}
