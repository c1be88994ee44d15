// The template map rules of the convert preflight against the REAL converter's load_sandbox_image_map and its
// per-row lookup (../shared/upstream/dressage/examples/data/swegym/prepare_swegym_data.py, stdlib at top level).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { inspectTemplateMap } from '../../src/services/templates/map.js';
import { SYSTEM_PATH, UPSTREAM_DRESSAGE, upstreamSkip } from '../helpers/upstreamHarness.js';

const skip = upstreamSkip();
if (skip) console.log(`# ${skip}`);
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await removeDir(d);
});

const CONVERTER = path.join(UPSTREAM_DRESSAGE, 'examples', 'data', 'swegym', 'prepare_swegym_data.py');
const IMG = 'xingyaoww/sweb.eval.x86_64.getmoto_s_moto-7365:latest';

// For each map file: the mapping the converter loads (and whether IMG has an entry), or its ValueError.
const ORACLE = `import importlib.util, json, sys
from pathlib import Path
spec = importlib.util.spec_from_file_location("prepare_swegym_data", sys.argv[1])
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
out = []
for f in sys.argv[3:]:
    try:
        m = mod.load_sandbox_image_map(Path(f))
        out.append({"map": m, "has": sys.argv[2] in m})
    except ValueError as exc:
        out.append({"error": str(exc)})
print(json.dumps(out))
`;

const CASES: Record<string, string> = {
  valid: JSON.stringify({ [IMG]: 'tpl-moto-7365' }),
  'padded key and value': JSON.stringify({ [` ${IMG} `]: ' tpl-moto-7365 ' }),
  'another image only': JSON.stringify({ 'other:latest': 'tpl-other' }),
  'not JSON': '{"a": ',
  array: '["a"]',
  empty: '{}',
  'empty key': JSON.stringify({ '': 'tpl', [IMG]: 'tpl-moto-7365' }),
  'blank value': JSON.stringify({ [IMG]: '   ' }),
};

function runOracle(files: string[]): Promise<({ map: Record<string, string>; has: boolean } | { error: string })[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', ORACLE, CONVERTER, IMG, ...files], { env: { PATH: SYSTEM_PATH, PYTHONDONTWRITEBYTECODE: '1' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(err))));
  });
}

test("the template map: the console accepts and refuses exactly what the real converter does, with its words", { skip }, async () => {
  const dir = await tempDir('swegym-map-');
  dirs.push(dir);
  const files: string[] = [];
  for (const [name, text] of Object.entries(CASES)) {
    const f = path.join(dir, `${name.replace(/\W+/g, '-')}.json`);
    await writeFile(f, text);
    files.push(f);
  }
  const oracle = await runOracle(files);
  const names = Object.keys(CASES);
  for (const [i, o] of oracle.entries()) {
    const check = await inspectTemplateMap(files[i]!, [IMG]);
    const fatal = check.problems.filter((p) => p.kind !== 'no_entry');
    if ('error' in o) {
      assert.ok(fatal.length > 0, `${names[i]}: the converter refuses ("${o.error}"), the console accepts`);
      // JSON parse errors are worded by each language's parser; the rest is the converter's sentence.
      if (!o.error.startsWith('invalid sandbox image map')) assert.equal(fatal[0]!.message, o.error, names[i]);
      else assert.match(fatal[0]!.message, /^invalid sandbox image map /);
    } else {
      assert.deepEqual(fatal, [], `${names[i]}: the converter accepts, the console refuses: ${fatal[0]?.message}`);
      assert.deepEqual(check.map, o.map, names[i]);
      assert.equal(check.missing.length === 0, o.has, `${names[i]}: entry for the image`);
    }
  }
});
