// One name, one meaning (issue 26): an exported type, interface, class or enum is declared once under src/ (a
// re-export of the same declaration is the same name), and a file name inside src/services means one thing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'vendor' || e.name === 'generated' ? [] : files(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const SOURCES = files(SRC).map((f) => relative(SRC, f).split('\\').join('/'));

/** Exported declarations of types by name: where each is declared (not where it is re-exported). */
export function exportedTypeNames(texts: { file: string; text: string }[]): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const { file, text } of texts) {
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    for (const st of sf.statements) {
      const declares = ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st);
      if (!declares || !st.name || !st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      by.set(st.name.text, [...(by.get(st.name.text) ?? []), file]);
    }
  }
  return by;
}

test('an exported type name is declared once under src/', () => {
  const by = exportedTypeNames(SOURCES.map((file) => ({ file, text: readFileSync(join(SRC, file), 'utf8') })));
  assert.ok(by.size > 300, `read ${by.size} exported type names`);
  const twice = [...by].filter(([, where]) => where.length > 1).map(([name, where]) => `${name}: ${where.join(', ')}`);
  assert.deepEqual(twice, [], 'one name, two meanings: rename one (or import the one declaration)');
});

test('the name check sees interfaces, aliases and classes, and not a re-export', () => {
  const by = exportedTypeNames([
    { file: 'a.ts', text: 'export interface RunModel { a: number }\nexport type PyValue = string;' },
    { file: 'b.ts', text: "export class RunModel {}\nexport type { PyValue } from './a.js';\ninterface Local {}" },
  ]);
  assert.deepEqual(by.get('RunModel'), ['a.ts', 'b.ts']);
  assert.deepEqual(by.get('PyValue'), ['a.ts']);
  assert.equal(by.has('Local'), false);
});

/** A file's role in every domain that has one: the same name means the same part in each. */
const ROLE_NAMES = new Set(['controller', 'types', 'index', 'domain']);
/** Names two domains of src/services use for different things today; the list only shrinks. */
const KNOWN_SHARED_FILE_NAMES: Record<string, string> = {
  checks: "doctor's prerequisite checks; train's launch checks",
  format: "util's formatters; dataset's download progress line",
  lines: "monitor's log-line classifier; sandbox's chunk-to-line splitter",
  provider: "monitor's and templates' provider openers",
  recipe: "the recipe's fixed facts; templates' template recipe",
  sample: "artifacts' stand-in artifacts; workspace's sample marker",
};

test('a file name inside src/services means one thing (model, pyrepr, rows, retry each went to one)', () => {
  const by = new Map<string, string[]>();
  for (const f of SOURCES.filter((f) => f.startsWith('services/'))) {
    const base = f.split('/').pop()!.replace(/\.tsx?$/, '');
    if (!ROLE_NAMES.has(base)) by.set(base, [...(by.get(base) ?? []), f]);
  }
  const shared = [...by].filter(([, where]) => where.length > 1).map(([base]) => base).sort();
  assert.deepEqual(shared.filter((b) => !(b in KNOWN_SHARED_FILE_NAMES)), [], 'a file name with two meanings in src/services');
  assert.deepEqual(Object.keys(KNOWN_SHARED_FILE_NAMES).filter((b) => !shared.includes(b)), [], 'a known shared name is gone: take it off the list');
});
