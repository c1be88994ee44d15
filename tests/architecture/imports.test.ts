// The import graph of src/ against DESIGN.md's layers: no circle between layers or folders, at most 3 upward
// arrows, none of the forbidden ones (nothing imports cli; state imports nothing from services or the faces;
// services never import screens/ui/app). It prints what it finds, so a failure names the imports to move.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { cycles, describe, fileArrows, folderArrows, forbiddenArrows, importSpecifiers, layerArrows, readImportEdges, upwardArrows } from './importGraph.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const MAX_UPWARD = 3;

/**
 * Circles between domains of src/services that other work removes (issue 19: the monitor sources interface takes
 * the simulator out of monitor/). The test fails when a new circle appears and when one of these is gone, so the
 * list only shrinks.
 */
// None left: monitor↔simulator went when the simulator became one implementation of monitor/sources (src/app picks it).
const KNOWN_DOMAIN_CYCLES: string[] = [];

/**
 * File-level circles that other work (issue 26b) is removing: the app's core and domain wiring, and the demo command
 * and the console calling each other. The list only shrinks: take a circle off when it is gone (the test says so).
 */
const KNOWN_FILE_CYCLES: string[] = [];

const edges = readImportEdges(SRC);

test('the parser sees static, type-only, re-export and dynamic imports', () => {
  const found = importSpecifiers(
    [
      "import a from './a.js';",
      "import type { B } from '../b.js';",
      "export { c } from './c.js';",
      "const d = await import('./d.js');",
      "// import('./not-code.js') in a comment is not an import",
    ].join('\n'),
  );
  assert.deepEqual(
    found.map((f) => `${f.spec}${f.dynamic ? ' (dynamic)' : ''}`),
    ['./a.js', '../b.js', './c.js', './d.js (dynamic)'],
  );
  assert.ok(edges.length > 300, `read ${edges.length} imports from ${SRC}`);
  assert.ok(edges.some((e) => e.dynamic), 'the console imports its lazy parts dynamically');
});

test('layers: no forbidden arrow, at most 3 upward, no circle', (t) => {
  const arrows = layerArrows(edges);
  t.diagnostic(`layer arrows:\n  ${arrows.map(describe).join('\n  ')}`);
  const upward = upwardArrows(arrows);
  t.diagnostic(`upward arrows (${upward.length}):\n  ${upward.map(describe).join('\n  ') || '(none)'}`);
  const forbidden = forbiddenArrows(arrows);
  assert.deepEqual(forbidden.map(describe), [], 'forbidden arrows');
  assert.ok(upward.length <= MAX_UPWARD, `${upward.length} upward arrows (at most ${MAX_UPWARD}):\n${upward.map(describe).join('\n')}`);
  assert.deepEqual(cycles(arrows), [], 'circles between layers');
});

test('folders: no circle between layers and the domains of src/services beyond the known ones', (t) => {
  const found = cycles(folderArrows(edges)).map((c) => c.join(', '));
  t.diagnostic(`folder circles: ${found.join(' | ') || '(none)'}`);
  assert.deepEqual(found.filter((c) => !KNOWN_DOMAIN_CYCLES.includes(c)), [], 'new circles between folders');
  assert.deepEqual(KNOWN_DOMAIN_CYCLES.filter((c) => !found.includes(c)), [], 'a known circle is gone: take it off KNOWN_DOMAIN_CYCLES');
});

test('files: no import circle between two files anywhere under src/ beyond the known ones', (t) => {
  const found = cycles(fileArrows(edges)).map((c) => c.join(', '));
  t.diagnostic(`file circles: ${found.join(' | ') || '(none)'}`);
  assert.deepEqual(found.filter((c) => !KNOWN_FILE_CYCLES.includes(c)), [], 'new circles between files (static, type-only, re-export or dynamic imports)');
  assert.deepEqual(KNOWN_FILE_CYCLES.filter((c) => !found.includes(c)), [], 'a known circle is gone: take it off KNOWN_FILE_CYCLES');
});

test('the file-circle finder sees a circle through a dynamic import, and no circle in a chain', () => {
  const edge = (from: string, to: string, dynamic = false) => ({ from, to, dynamic });
  const found = cycles(fileArrows([edge('a/x.ts', 'a/y'), edge('a/y.ts', 'a/z', true), edge('a/z.ts', 'a/x'), edge('b/p.ts', 'b/q'), edge('a/x.ts', 'b/p')]));
  assert.deepEqual(found, [['a/x', 'a/y', 'a/z']]);
});

test('screens, the ui kit and the stores read no process.env; the composition root hands out no placeholder', async () => {
  const { readFile } = await import('node:fs/promises');
  const offenders: string[] = [];
  for (const file of new Set(edges.map((e) => e.from))) {
    const text = await readFile(`${SRC}${file}`, 'utf8');
    const code = text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, ''); // comments may name it
    if (/^(screens|ui|state)\//.test(file) && /\bprocess\.env\b/.test(code)) offenders.push(`${file}: reads process.env (take it from services.env)`);
    if (/\bundefined as unknown as\b/.test(code)) offenders.push(`${file}: an \`undefined as unknown as\` placeholder`);
  }
  assert.deepEqual(offenders, []);
});
