// Size ceilings: files over 400 lines and functions over 80 lines under src/ (the generated module aside) are
// listed (t.diagnostic) and counted, and the counts may not grow. Splitting one lowers its ceiling here; a new long
// file or function fails until it is split (or the ceiling is raised in review, with the reason beside it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';

const FILE_LINES = 400;
const FUNCTION_LINES = 80;
/** The counts on 2026-12-02, after downloadHubFile (391 lines) was split; lower them as files and functions are split. */
const CEILING = { files: 17, functions: 38 };

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sources(p)));
    else if (/\.tsx?$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Every function (declaration, method, arrow, expression) with its name and its length in lines. */
export function functionLengths(file: string, text: string): { name: string; line: number; lines: number }[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: { name: string; line: number; lines: number }[] = [];
  const nameOf = (n: ts.Node): string => {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) && n.name) return n.name.getText(sf);
    const p = n.parent;
    if (p && ts.isVariableDeclaration(p)) return p.name.getText(sf);
    if (p && ts.isPropertyAssignment(p)) return p.name.getText(sf);
    if (p && ts.isCallExpression(p)) return `(callback of ${p.expression.getText(sf).slice(0, 40)})`;
    return '(anonymous)';
  };
  const visit = (n: ts.Node) => {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isConstructorDeclaration(n)) && n.body) {
      const start = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      out.push({ name: nameOf(n), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

test(`files over ${FILE_LINES} lines and functions over ${FUNCTION_LINES} lines do not grow in number`, async (t) => {
  const longFiles: string[] = [];
  const longFunctions: string[] = [];
  for (const file of await sources('src')) {
    if (file.startsWith(path.join('src', 'generated'))) continue;
    const text = await readFile(file, 'utf8');
    const lines = text.split('\n').length;
    if (lines > FILE_LINES) longFiles.push(`${file}: ${lines} lines`);
    for (const f of functionLengths(file, text)) if (f.lines > FUNCTION_LINES) longFunctions.push(`${file}:${f.line} ${f.name}: ${f.lines} lines`);
  }
  t.diagnostic(`${longFiles.length} files over ${FILE_LINES} lines (ceiling ${CEILING.files}):\n  ${longFiles.join('\n  ')}`);
  t.diagnostic(`${longFunctions.length} functions over ${FUNCTION_LINES} lines (ceiling ${CEILING.functions}):\n  ${longFunctions.join('\n  ')}`);
  assert.ok(longFiles.length <= CEILING.files, `${longFiles.length} files over ${FILE_LINES} lines, the ceiling is ${CEILING.files}: split the new one`);
  assert.ok(longFunctions.length <= CEILING.functions, `${longFunctions.length} functions over ${FUNCTION_LINES} lines, the ceiling is ${CEILING.functions}: split the new one`);
});

test('the function measure counts declarations, arrows and methods, nested ones on their own', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
  const text = `function outer() {\n${body(3)}\n  const inner = () => {\n${body(2)}\n  };\n}\nclass C { m() {\n${body(1)}\n} }\n`;
  const f = functionLengths('x.ts', text);
  assert.deepEqual(f.map((x) => [x.name, x.lines]), [['outer', 9], ['inner', 4], ['m', 3]]);
});
