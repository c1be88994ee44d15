// Packages that the console imports lazily (`await import('e2b')`). esbuild gives a code-split CommonJS package only a
// `default` export, where Node (and tsx, which runs the source in tests) also gives the names that cjs-module-lexer
// finds: in the bundle `(await import('e2b')).Sandbox` was undefined while the source worked. The build routes each
// such import through a generated ES module that re-exports the names Node sees (lazyLibraryImports), then checks
// every output chunk against Node's own namespace of the package (checkLazyLibraries), so a library that loses a name
// fails the build.
import { isBuiltin } from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

export const LAZY_LIBRARY_NAMESPACE = 'lazy-library';
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The named exports (not `default`) of a package as Node itself loads it from `fromDir`. */
export async function nodeNamespace(specifier, fromDir) {
  const url = import.meta.resolve(specifier, pathToFileURL(path.join(fromDir, 'noop.mjs')).href);
  return import(url);
}

export function namedExports(ns) {
  return Object.keys(ns).filter((n) => n !== 'default' && IDENTIFIER.test(n)).sort();
}

/**
 * esbuild plugin: every dynamic import of a bare package specifier goes through a re-exporting module. `preludeFor`
 * (metafile key → import lines) lets that module import the first frame's preludes (scripts/first-frame-prelude.mjs).
 */
export function lazyLibraryImports(root, preludeFor = () => '') {
  return {
    name: 'lazy-library-imports',
    setup(b) {
      b.onResolve({ filter: /^[@a-z]/i }, (args) => {
        if (args.kind !== 'dynamic-import' || args.path.startsWith('node:') || isBuiltin(args.path)) return undefined;
        return { path: args.path, namespace: LAZY_LIBRARY_NAMESPACE };
      });
      b.onLoad({ filter: /.*/, namespace: LAZY_LIBRARY_NAMESPACE }, async (args) => {
        const ns = await nodeNamespace(args.path, root);
        const names = namedExports(ns);
        return {
          loader: 'js',
          resolveDir: root,
          contents:
            preludeFor(`${LAZY_LIBRARY_NAMESPACE}:${args.path}`) +
            `import * as lib from ${JSON.stringify(args.path)};\n` +
            ('default' in ns ? 'export default lib.default;\n' : '') +
            (names.length ? `export const { ${names.join(', ')} } = lib;\n` : ''),
        };
      });
    },
  };
}

/**
 * Compares a bundled namespace with Node's namespace of the same package: every named export Node gives must be
 * there, with the same type. Returns the problems (empty when the bundle is faithful).
 */
export function compareNamespaces(specifier, bundled, node) {
  const problems = [];
  for (const name of namedExports(node)) {
    if (!(name in bundled)) problems.push(`${specifier}: the bundle does not export ${name}`);
    else if (typeof bundled[name] !== typeof node[name]) {
      problems.push(`${specifier}: ${name} is ${typeof bundled[name]} in the bundle, ${typeof node[name]} in Node`);
    }
  }
  return problems;
}

/** Imports each lazy library's output chunk (found in esbuild's metafile) and compares it with Node's namespace. */
export async function checkLazyLibraries(metafile, root, workingDir = process.cwd()) {
  const problems = [];
  const checked = [];
  for (const [file, output] of Object.entries(metafile.outputs)) {
    const entry = output.entryPoint ?? '';
    if (!entry.startsWith(`${LAZY_LIBRARY_NAMESPACE}:`)) continue;
    const specifier = entry.slice(LAZY_LIBRARY_NAMESPACE.length + 1);
    const bundled = await import(pathToFileURL(path.resolve(workingDir, file)).href);
    problems.push(...compareNamespaces(specifier, bundled, await nodeNamespace(specifier, root)));
    checked.push(specifier);
  }
  return { checked: checked.sort(), problems };
}
