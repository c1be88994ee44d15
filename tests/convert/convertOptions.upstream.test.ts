// The convert options the console refuses before running the converter, against the REAL converter's parse_args
// (../shared/upstream/dressage/examples/data/swegym/prepare_swegym_data.py, stdlib at top level): what it refuses, the
// console refuses in its words; what it accepts, the console accepts or refuses with a rule marked as its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { converterArgs, defaultConvertOptions, validateConvertOptions, type ConvertOptions } from '../../src/services/convert/options.js';
import { OWN_CHECK } from '../../src/services/errors.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import { SYSTEM_PATH, UPSTREAM_DRESSAGE, upstreamSkip } from '../helpers/upstreamHarness.js';

const skip = upstreamSkip();
if (skip) console.log(`# ${skip}`);
const CONVERTER = path.join(UPSTREAM_DRESSAGE, 'examples', 'data', 'swegym', 'prepare_swegym_data.py');

// parse_args for each argv; its argparse error line, or null when it accepts.
const ORACLE = `import contextlib, importlib.util, io, json, sys
spec = importlib.util.spec_from_file_location("prepare_swegym_data", sys.argv[1])
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
out = []
for argv in json.load(sys.stdin):
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            mod.parse_args(argv)
        out.append(None)
    except SystemExit:
        lines = [l for l in err.getvalue().splitlines() if ": error: " in l]
        out.append(lines[-1].split(": error: ", 1)[1] if lines else err.getvalue())
print(json.dumps(out))
`;

const CASES: [string, Partial<ConvertOptions>][] = [
  ['defaults', {}],
  ['e2b without a map', { sandboxImageMap: undefined }],
  ['max turns 0', { maxTurns: 0 }],
  ['unknown permission mode', { permissionMode: 'yolo' }],
  ['bypassPermissions', { permissionMode: 'bypassPermissions' }],
  ['custom with a binary URL only', { provider: 'custom', sandboxImageMap: undefined, binaryUrl: 'https://x.example/claude' }],
  ['custom with both URLs', { provider: 'custom', sandboxImageMap: undefined, binaryUrl: 'https://x.example/claude', runtimeUrl: 'https://x.example/rt.tgz' }],
  ['bootstrap URL for another agent', { provider: 'custom', sandboxImageMap: undefined, blackboxType: 'opencode', bbsWheelUrl: 'https://x.example/bbs.whl' }],
  ['command timeout below the test timeout', { commandTimeout: 100, testTimeout: 1200 }],
  ['relative workdir', { workdir: 'testbed' }],
  ['limit 0', { limit: 0 }],
];

test("convert options: the console refuses what the real converter refuses, in its words; its own rules say so", { skip }, async () => {
  const paths = recipePaths('/w/dressage');
  const opts = CASES.map(([, o]) => defaultConvertOptions(paths, { sandboxImageMap: paths.templateMap, ...o }));
  const argvs = opts.map((o) => converterArgs(o));
  const oracle = await new Promise<(string | null)[]>((resolve, reject) => {
    const child = spawn('python3', ['-c', ORACLE, CONVERTER], { env: { PATH: SYSTEM_PATH, PYTHONDONTWRITEBYTECODE: '1' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(err))));
    child.stdin.end(JSON.stringify(argvs));
  });
  let refusedByBoth = 0;
  let ours = 0;
  for (const [i, theirs] of oracle.entries()) {
    const name = CASES[i]![0];
    let mine: string | undefined;
    try {
      validateConvertOptions(opts[i]!);
    } catch (e) {
      mine = (e as Error).message;
    }
    if (theirs !== null) {
      refusedByBoth++;
      assert.ok(mine, `${name}: the converter refuses ("${theirs}"), the console accepts`);
      // argparse quotes choices differently across Python versions; the sentence before them is the same.
      assert.ok(mine.includes(theirs.split(' (choose from')[0]!), `${name}: console "${mine}" vs converter "${theirs}"`);
    } else if (mine !== undefined) {
      ours++;
      assert.ok(mine.startsWith(OWN_CHECK), `${name}: the converter accepts it, but the console refuses in words that are not marked as its own: ${mine}`);
    }
  }
  assert.ok(refusedByBoth >= 4 && ours >= 3, `cases cover both (${refusedByBoth} converter refusals, ${ours} own)`);
});
