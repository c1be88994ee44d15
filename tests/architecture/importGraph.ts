// Reads every file under src/ and draws the import graph between folders (layers, and the domains inside
// src/services). Static imports, `export … from`, `import type` and dynamic `import()` all count: a type-only
// arrow still ties a layer to another's code, and a lazy import is still a dependency.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * The arrows each layer may draw (DESIGN.md "Layers": cli/app → screens → ui → state; services → state). Any other
 * arrow points upward; FORBIDDEN ones fail outright.
 */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  cli: ['app', 'screens', 'ui', 'services', 'state', 'vendor'],
  app: ['screens', 'ui', 'services', 'state', 'vendor'],
  screens: ['ui', 'services', 'state', 'vendor'],
  ui: ['state', 'vendor'],
  services: ['state', 'generated'],
  state: [],
  vendor: [],
  // Code a build step writes (scripts/build-wasm.mjs): it imports nothing.
  generated: [],
};

/** What a layer must never import: nothing imports cli; services and state stay below every face. */
export const FORBIDDEN: Readonly<Record<string, readonly string[]>> = {
  app: ['cli'],
  screens: ['cli'],
  ui: ['cli'],
  services: ['cli', 'app', 'screens', 'ui'],
  state: ['cli', 'app', 'screens', 'ui', 'services'],
  vendor: ['cli'],
  generated: ['cli', 'app', 'screens', 'ui', 'services', 'state', 'vendor'],
};

export interface ImportEdge {
  from: string; // file, relative to src/
  to: string;
  dynamic: boolean;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The specifiers a file imports: static, re-exports, and `import()` calls (ts.preProcessFile finds all three). */
export function importSpecifiers(text: string): { spec: string; dynamic: boolean }[] {
  const info = ts.preProcessFile(text, true, true);
  const dynamicSpecs = new Set<string>();
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) dynamicSpecs.add(m[1]!);
  return info.importedFiles.map((f) => ({ spec: f.fileName, dynamic: dynamicSpecs.has(f.fileName) }));
}

/** File-level edges inside src/ (package imports are left out). */
export function readImportEdges(srcDir: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(srcDir)) {
    for (const { spec, dynamic } of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec).replace(/\.js$/, '');
      const rel = relative(srcDir, target).split(sep).join('/');
      if (rel.startsWith('..')) continue;
      edges.push({ from: relative(srcDir, file).split(sep).join('/'), to: rel, dynamic });
    }
  }
  return edges;
}

/** The layer of a file: its top folder under src/. */
export function layerOf(file: string): string {
  return file.includes('/') ? file.slice(0, file.indexOf('/')) : '(root)';
}

/** The folder unit for cycles: a layer, or services/<domain> inside src/services. */
export function unitOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'services' && parts.length > 2) return `services/${parts[1]}`;
  return layerOf(file);
}

export interface Arrow {
  from: string;
  to: string;
  /** One file-level import that draws it (the first found), for the message. */
  example: string;
  count: number;
}

function arrowsBetween(edges: ImportEdge[], unit: (f: string) => string): Arrow[] {
  const byKey = new Map<string, Arrow>();
  for (const e of edges) {
    const from = unit(e.from);
    const to = unit(e.to);
    if (from === to) continue;
    const key = `${from} -> ${to}`;
    const seen = byKey.get(key);
    if (seen) seen.count++;
    else byKey.set(key, { from, to, example: `${e.from} -> ${e.to}${e.dynamic ? ' (dynamic)' : ''}`, count: 1 });
  }
  return [...byKey.values()].sort((a, b) => `${a.from}${a.to}`.localeCompare(`${b.from}${b.to}`));
}

export function layerArrows(edges: ImportEdge[]): Arrow[] {
  return arrowsBetween(edges, layerOf);
}

export function folderArrows(edges: ImportEdge[]): Arrow[] {
  return arrowsBetween(edges, unitOf);
}

/** Arrows between files, each named without its extension (an edge's target is already written so). */
export function fileArrows(edges: ImportEdge[]): Arrow[] {
  return arrowsBetween(edges, (f) => f.replace(/\.tsx?$/, ''));
}

/** Arrows that a layer's ALLOWED list does not name (a folder the layout does not name counts too). */
export function upwardArrows(arrows: Arrow[]): Arrow[] {
  return arrows.filter((a) => !(ALLOWED[a.from] ?? []).includes(a.to));
}

export function forbiddenArrows(arrows: Arrow[]): Arrow[] {
  return arrows.filter((a) => (FORBIDDEN[a.from] ?? []).includes(a.to));
}

/** Every elementary cycle would be too many to print; this lists each strongly connected set of 2+ units. */
export function cycles(arrows: Arrow[]): string[][] {
  const next = new Map<string, string[]>();
  for (const a of arrows) next.set(a.from, [...(next.get(a.from) ?? []), a.to]);
  const nodes = [...new Set(arrows.flatMap((a) => [a.from, a.to]))].sort();
  // Tarjan's algorithm.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const set: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1) out.push(set.sort());
    }
  };
  for (const n of nodes) if (!idx.has(n)) visit(n);
  return out;
}

export function describe(arrow: Arrow): string {
  return `${arrow.from} -> ${arrow.to} (${arrow.count} import${arrow.count === 1 ? '' : 's'}, e.g. ${arrow.example})`;
}
