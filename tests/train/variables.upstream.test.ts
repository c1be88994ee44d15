// Every variable the real launcher, the defaults it sources and the functions of those it calls read from outside
// must be a setting the console knows (so the form can show it, the dry run prints it and secrets are masked).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SETTING_BY_KEY, isSecretSetting } from '../../src/services/train/settings.js';
import { DEFAULTS_REL, LAUNCHER_REL, MODEL_CONFIG_REL, UPSTREAM_DRESSAGE, upstreamSkip } from '../helpers/upstreamHarness.js';

const skip = upstreamSkip();
if (skip) console.log(`# ${skip}`);

/** Shell text without comments and without quoted here-documents (`<<'X'` bodies are never expanded). */
function code(text: string): string {
  const noHeredoc = text.replace(/<<\s*'(\w+)'\n[\s\S]*?\n\1\n/g, '\n');
  return noHeredoc
    .split('\n')
    .filter((l) => !l.trim().startsWith('#'))
    .join('\n');
}

/** Top-level code plus the bodies of the named functions; `name() {` … `}` at column 0 delimit a function. */
function splitFunctions(text: string): { top: string; fns: Map<string, string> } {
  const fns = new Map<string, string>();
  const top = text.replace(/^([A-Za-z_]\w*)\(\)\s*\{\n([\s\S]*?)^\}\n?/gm, (_m, name: string, body: string) => {
    fns.set(name, body);
    return '';
  });
  return { top, fns };
}

interface Reads {
  read: Set<string>;
  assigned: Set<string>;
  /** Read through an operator (`${X:-…}`, `${X:?…}`, `${X:+…}`, `${X-…}`): may come from outside. */
  defaulted: Set<string>;
  calls: string;
}

function scan(text: string, into: Reads): void {
  for (const m of text.matchAll(/\$\{!?([A-Za-z_]\w*)(:?[-?+=])?|\$([A-Za-z_]\w*)/g)) {
    const name = (m[1] ?? m[3]) as string;
    into.read.add(name);
    if (m[2]) into.defaulted.add(name);
  }
  for (const m of text.matchAll(/(?:^|[\s;(])(?:export\s+|local\s+)?([A-Za-z_]\w*)\+?=/gm)) into.assigned.add(m[1] as string);
  for (const m of text.matchAll(/\bfor\s+([A-Za-z_]\w*)\s+in\b/g)) into.assigned.add(m[1] as string);
  for (const m of text.matchAll(/\bread\s+(?:-\w+\s+)*([A-Za-z_]\w*)/g)) into.assigned.add(m[1] as string);
  // Indirect reads: `${!name}` over a `for name in A B C` list.
  for (const m of text.matchAll(/\bfor\s+\w+\s+in\s+([A-Z_ ]+);/g)) for (const n of (m[1] as string).trim().split(/\s+/)) into.read.add(n);
  into.calls += text;
}

/** The operator inputs of the launcher: read from outside, not only computed by the scripts themselves. */
export async function launcherInputs(): Promise<string[]> {
  const launcher = code(await readFile(path.join(UPSTREAM_DRESSAGE, LAUNCHER_REL), 'utf8'));
  const defaults = splitFunctions(code(await readFile(path.join(UPSTREAM_DRESSAGE, DEFAULTS_REL), 'utf8')));
  const modelConfig = code(await readFile(path.join(UPSTREAM_DRESSAGE, MODEL_CONFIG_REL), 'utf8'));
  const r: Reads = { read: new Set(), assigned: new Set(), defaulted: new Set(), calls: '' };
  scan(launcher, r);
  scan(defaults.top, r);
  scan(modelConfig, r);
  // Only the functions the launcher runs (the local_bwrap ones belong to other launchers).
  for (const [name, body] of defaults.fns) if (new RegExp(`\\b${name}\\b`).test(launcher)) scan(body, r);
  const shellSpecials = new Set(['BASH_SOURCE', 'SECONDS', 'IFS']);
  const shellInputs = [...r.read].filter((n) => !shellSpecials.has(n) && (r.defaulted.has(n) || !r.assigned.has(n)));
  // The Python here-document that builds the Ray runtime env reads each key of its list from the environment.
  const raw = await readFile(path.join(UPSTREAM_DRESSAGE, LAUNCHER_REL), 'utf8');
  const runtimeKeys = [...(/\nkeys = \[([\s\S]*?)\n\]/.exec(raw)?.[1] ?? '').matchAll(/"([A-Za-z_][A-Za-z0-9_]*)"/g)].map((m) => m[1] as string);
  return [...new Set([...shellInputs, ...runtimeKeys])].sort();
}

test('every variable the real launcher reads is known to the launch form', { skip }, async () => {
  const inputs = await launcherInputs();
  // Guard against a scanner that finds nothing: the launcher reads well over a hundred.
  assert.ok(inputs.length > 100, `only ${inputs.length} inputs found: ${inputs.join(' ')}`);
  for (const sample of ['TMPDIR', 'RAY_TMPDIR', 'WANDB_MODE', 'no_proxy', 'NO_PROXY', 'DRESSAGE_BLACKBOX_COMPACT_THRESHOLD', 'DRESSAGE_SANDBOX_PREWARM', 'DRESSAGE_TRANSFER_QUEUE_CONFIG', 'SLIME_ROOT', 'WANDB_KEY', 'NCCL_DEBUG']) {
    assert.ok(inputs.includes(sample), `scanner missed ${sample}`);
  }
  assert.ok(!inputs.includes('DRESSAGE_LOCAL_BWRAP_BASE_PORT'), 'local_bwrap helper functions are not run by this launcher');
  assert.ok(!inputs.includes('TOTAL_ACTOR_GPUS'), 'computed values are not inputs');
  const unknown = inputs.filter((n) => !SETTING_BY_KEY.has(n));
  assert.deepEqual(unknown, [], `${unknown.length} of ${inputs.length} launcher variables unknown to the form`);
});

test('the launcher variables that hold keys are masked as secrets', { skip }, async () => {
  const inputs = await launcherInputs();
  const keys = inputs.filter((n) => /KEY$/.test(n));
  assert.ok(keys.includes('WANDB_KEY') && keys.includes('DRESSAGE_E2B_API_KEY'));
  for (const k of keys) assert.ok(isSecretSetting(k), `${k} is not masked`);
});
