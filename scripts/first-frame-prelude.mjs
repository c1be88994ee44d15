// esbuild splits the bundle by entry-point sets: each module goes into the chunk of the entries (the real ones and
// every dynamically imported module) that reach it through static imports. The ≈ 90 modules on the way to the first
// frame are each shared with a different few of the ≈ 60 dynamically imported modules, so they came out as ≈ 45
// small chunks, every one a module for Node to resolve, read, link and evaluate before the first frame (≈ 0.3 ms
// each). A generated "prelude" module that imports a group of modules, imported in turn by every entry that reaches
// any of them, gives them all the same entry-point set, and esbuild puts them in one chunk. Two groups:
//   - the entry's static imports, and the interactive console's modules that do not need the UI bundle (services,
//     stores, key tables): loaded by every command, so an importer finds them evaluated already;
//   - the interactive console's modules that need the UI bundle (screens, components), imported by the modules that
//     load the UI bundle anyway.
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The modules reached from `from` (metafile input keys, `from` included) through static imports, and through
 * `require` calls too where `kinds` says so: esbuild places a required module by who reaches it that way as well.
 */
function staticClosure(inputs, from, kinds = ['import-statement']) {
  const seen = new Set();
  const stack = [from];
  while (stack.length) {
    const key = stack.pop();
    if (seen.has(key)) continue;
    seen.add(key);
    for (const i of inputs[key]?.imports ?? []) if (kinds.includes(i.kind) && !i.external) stack.push(i.path);
  }
  return seen;
}

/**
 * The order in which Node evaluates the modules reached from `from`: dependencies first, each record in source order.
 * A prelude lists its modules in this order, so that they are evaluated in the order they were without it.
 */
function evaluationOrder(inputs, from, order = new Map()) {
  const visit = (key) => {
    if (order.has(key)) return;
    order.set(key, -1);
    for (const i of inputs[key]?.imports ?? []) if (i.kind === 'import-statement' && !i.external) visit(i.path);
    order.set(key, order.size);
  };
  visit(from);
  return order;
}

/** A source file on disk (generated modules have a `namespace:` key; they come with the files that import them). */
const isFile = (key) => !/^[a-z-]+:/.test(key);

/**
 * From a first build's metafile, the two groups (name, modules, importers). `entry` is the console's entry,
 * `interactive` the dynamically imported interactive console, `uiLoader` the metafile key of the module that loads
 * the UI bundle, `otherEntries` the build's other entry points that may share the modules.
 */
export function firstFramePreludes(metafile, { entry, interactive, uiLoader, otherEntries }) {
  const inputs = metafile.inputs;
  const closures = new Map();
  const closure = (key) => closures.get(key) ?? closures.set(key, staticClosure(inputs, key)).get(key);
  // Who reaches a module, as esbuild counts it; the preludes themselves import (and so evaluate) only what was
  // imported statically, never a module that was required on demand.
  const reached = new Map();
  const reach = (key) => reached.get(key) ?? reached.set(key, staticClosure(inputs, key, ['import-statement', 'require-call'])).get(key);
  const atStart = closure(entry);
  const beforeFrame = [...closure(interactive)].filter((k) => !atStart.has(k) && k !== interactive);
  const needsUi = (k) => closure(k).has(uiLoader);
  const dynamic = new Set();
  for (const input of Object.values(inputs)) for (const i of input.imports ?? []) if (i.kind === 'dynamic-import' && !i.external) dynamic.add(i.path);
  const candidates = [...new Set([entry, ...otherEntries, ...dynamic])];
  // The entry's modules first, then the interactive console's, as Node reaches them.
  const order = evaluationOrder(inputs, interactive, evaluationOrder(inputs, entry));
  const group = (name, members, mayImport) => {
    const set = new Set(members);
    // A member that is also imported dynamically imports the prelude too (a cycle that changes no order: the
    // prelude is under way when it comes to the member), or it and what it imports would form chunks of their own.
    const importers = candidates.filter((e) => mayImport(e) && [...reach(e)].some((k) => set.has(k)));
    // The project's own files: a package's module comes with the files that import it (and esbuild ignores a bare
    // import of a package that declares itself free of side effects, with a warning).
    const modules = [...set].filter((k) => isFile(k) && !/(^|[\\/])node_modules[\\/]/.test(k)).sort((a, b) => order.get(a) - order.get(b));
    return { name, modules, importers };
  };
  return [
    group('first-frame-prelude', [...atStart, ...beforeFrame.filter((k) => !needsUi(k))].filter((k) => k !== entry), () => true),
    group('first-frame-ui-prelude', beforeFrame.filter(needsUi), needsUi),
  ];
}

/** The import lines of the preludes that the module with this metafile key imports ('' for none). */
export function preludeImports(preludes, key) {
  return preludes
    .filter((p) => p.importers.includes(key))
    .map((p) => `import ${JSON.stringify(p.name)}; `)
    .join('');
}

/**
 * esbuild plugin: each importer's source begins with an import of its groups' preludes. Importers that are
 * generated modules (a lazily imported library's) import them through their own plugin (preludeImports).
 */
export function firstFramePreludePlugin(root, preludes) {
  const byFile = new Map();
  for (const p of preludes) for (const f of p.importers.filter(isFile)) byFile.set(path.resolve(root, f), preludeImports(preludes, f));
  const names = new Map(preludes.map((p) => [p.name, p]));
  return {
    name: 'first-frame-preludes',
    setup(b) {
      b.onResolve({ filter: /^first-frame-(ui-)?prelude$/ }, (args) => ({ path: args.path, namespace: 'first-frame-prelude' }));
      b.onLoad({ filter: /.*/, namespace: 'first-frame-prelude' }, (args) => ({
        loader: 'js',
        resolveDir: root,
        contents: names.get(args.path).modules.map((m) => `import ${JSON.stringify(path.resolve(root, m))};\n`).join(''),
      }));
      b.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
        const imports = byFile.get(args.path);
        if (!imports) return undefined;
        const source = await readFile(args.path, 'utf8');
        const loader = /x$/.test(args.path) ? 'tsx' : /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js';
        // On the first line, so that the file's own line numbers stay as they are.
        return { loader, contents: imports + source };
      });
    },
  };
}
