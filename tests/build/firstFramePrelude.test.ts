// The grouping rules of scripts/first-frame-prelude.mjs on small graphs shaped like esbuild's metafile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
// @ts-expect-error: a build script without type declarations
import { firstFramePreludes, preludeImports } from '../../scripts/first-frame-prelude.mjs';

type Kind = 'import-statement' | 'dynamic-import' | 'require-call';
const graph = (edges: Record<string, [string, Kind][]>) => ({
  inputs: Object.fromEntries(Object.entries(edges).map(([k, list]) => [k, { bytes: 1, imports: list.map(([p, kind]) => ({ path: p, kind })) }])),
  outputs: {},
});
interface Group {
  name: string;
  modules: string[];
  importers: string[];
}

const OPTS = { entry: 'main.ts', interactive: 'ui.tsx', uiLoader: 'ui-loaded:ui-loaded', otherEntries: [] as string[] };

test('the entry’s static imports form one group, listed in evaluation order, imported by every entry that reaches one', () => {
  const meta = graph({
    'main.ts': [['run.ts', 'import-statement'], ['errors.ts', 'import-statement'], ['cmd.ts', 'dynamic-import'], ['ui.tsx', 'dynamic-import']],
    'run.ts': [['util.ts', 'import-statement'], ['errors.ts', 'import-statement']],
    'util.ts': [],
    'errors.ts': [],
    'cmd.ts': [['util.ts', 'import-statement'], ['heavy.ts', 'import-statement']],
    'heavy.ts': [],
    'lone.ts': [['heavy.ts', 'import-statement']],
    'ui.tsx': [],
  });
  const [start] = firstFramePreludes(meta, OPTS) as Group[];
  // Dependencies before dependents, each file's imports in source order: as Node evaluates them without the prelude.
  assert.deepEqual(start!.modules, ['util.ts', 'errors.ts', 'run.ts']);
  // cmd.ts reaches util.ts; the entry imports the prelude too (or the prelude would be a chunk of its own); lone.ts is
  // no entry, and ui.tsx reaches none of them.
  assert.deepEqual(start!.importers.sort(), ['cmd.ts', 'main.ts']);
  assert.equal(preludeImports([start], 'cmd.ts'), 'import "first-frame-prelude"; ');
  assert.equal(preludeImports([start], 'ui.tsx'), '');
});

test('the interactive console’s modules go with the entry’s unless they need the UI bundle; those only go to its users', () => {
  const meta = graph({
    'main.ts': [['run.ts', 'import-statement'], ['ui.tsx', 'dynamic-import'], ['data.ts', 'dynamic-import'], ['keys.ts', 'dynamic-import']],
    'run.ts': [],
    'ui.tsx': [['app.tsx', 'import-statement'], ['store.ts', 'import-statement']],
    'app.tsx': [['ink-shim.ts', 'import-statement'], ['store.ts', 'import-statement'], ['screen.tsx', 'dynamic-import']],
    'ink-shim.ts': [['ui-loaded:ui-loaded', 'import-statement']],
    'ui-loaded:ui-loaded': [],
    'store.ts': [['node_modules/zustand/esm/vanilla.mjs', 'import-statement']],
    'node_modules/zustand/esm/vanilla.mjs': [],
    'screen.tsx': [['ink-shim.ts', 'import-statement'], ['app.tsx', 'import-statement']],
    // A command that shares the store but never loads the UI bundle.
    'data.ts': [['store.ts', 'import-statement']],
    'keys.ts': [['run.ts', 'import-statement']],
  });
  const [start, ui] = firstFramePreludes(meta, OPTS) as Group[];
  // A package's module comes with the file that imports it (esbuild would drop a bare import of a side-effect-free one).
  assert.deepEqual(start!.modules, ['run.ts', 'store.ts']);
  assert.deepEqual(start!.importers.sort(), ['data.ts', 'keys.ts', 'main.ts', 'screen.tsx', 'ui.tsx']);
  // Generated modules (no file) are not imported by name: they come with the files that import them.
  assert.deepEqual(ui!.modules, ['ink-shim.ts', 'app.tsx']);
  assert.deepEqual(ui!.importers.sort(), ['screen.tsx', 'ui.tsx']);
});

test('an entry that reaches a group only through require() imports its prelude too; the prelude never imports a required module', () => {
  const meta = graph({
    'main.ts': [['facade:os', 'import-statement'], ['lib:e2b', 'dynamic-import'], ['ui.tsx', 'dynamic-import']],
    'facade:os': [],
    'lib:e2b': [['node_modules/e2b/index.js', 'require-call']],
    'node_modules/e2b/index.js': [['node_modules/chalk/index.js', 'require-call']],
    'node_modules/chalk/index.js': [['facade:os', 'import-statement']],
    'ui.tsx': [],
  });
  const [start] = firstFramePreludes(meta, OPTS) as Group[];
  assert.deepEqual(start!.modules, []);
  assert.deepEqual(start!.importers.sort(), ['lib:e2b', 'main.ts']);
});
