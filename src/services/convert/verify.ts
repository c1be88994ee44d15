// Verifies a converted JSONL before anyone trains on it: row count, every row parses, no gold patch anywhere, every
// template in the map (and smoke-passed when the templates journal knows), required metadata and commands present,
// and the backend options exactly as requested. Streams the file (rows are tens of KB; the file tens of MB).
import { SWEGYM_DATASET, SWEGYM_HARNESS_COMMIT } from '../recipe.js';
import { readTemplateRecords } from '../templates/records.js';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { RecipePaths } from '../workspace/paths.js';
import {
  EXECUTE_CMD_KEYS,
  HARNESS_NAME,
  INTEGRITY_RULES,
  REQUIRED_METADATA_KEYS,
  SANITIZER_NAME,
  evalSlug,
  type DressageRow,
} from './schema.js';
import type { ConvertOptions } from './options.js';
import type { VerifyReport, VerifyProblem, VerifyCheck } from '../../state/types/convert.js';
export type { VerifyReport, VerifyProblem, VerifyCheck } from '../../state/types/convert.js';

export interface VerifyExpectations {
  expectedRows?: number;
  /** The options the converter ran with: requested backend options, timeouts, split. */
  options?: Pick<ConvertOptions, 'split' | 'provider' | 'blackboxType' | 'workdir' | 'maxTurns' | 'permissionMode' | 'testTimeout' | 'commandTimeout' | 'sandboxTimeout' | 'gitSanitizeTimeout'>;
  /** `{docker_image: template}`; when given, every row's template must be in it. */
  templateMap?: Record<string, string>;
  /** Smoke result per template name (from the templates journal), when known. */
  smoke?: Map<string, 'passed' | 'failed'>;
  /** Gold patches per instance (from the parquet) to prove none leaked into a row. */
  goldPatches?: Map<string, string>;
}

const KEEP_PROBLEMS = 200;

/** Finds keys named `patch` at any depth (the gold patch must never be written into a row). */
function findPatchKeys(value: unknown, at: string, out: string[]): void {
  if (out.length > 5 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => findPatchKeys(v, `${at}[${i}]`, out));
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    const here = at ? `${at}.${k}` : k;
    if (k === 'patch' || k === 'gold_patch' || k === 'model_patch') out.push(here);
    findPatchKeys(v, here, out);
  }
}

function isSingleLine(cmd: unknown): cmd is string {
  return typeof cmd === 'string' && cmd.length > 0 && !cmd.includes('\n') && !cmd.includes('\0');
}

/** A distinctive, JSON-escaped fragment of a patch: the added lines, which a leak would carry verbatim. */
function patchFingerprint(patch: string): string | undefined {
  const added = patch
    .split('\n')
    .filter((l) => l.startsWith('+') && !l.startsWith('+++') && l.trim().length > 12)
    .slice(0, 3)
    .join('\n');
  if (added.length < 20) return undefined;
  return JSON.stringify(added).slice(1, -1);
}

export function checkRow(row: unknown, rawLine: string, lineNo: number, exp: VerifyExpectations): VerifyProblem[] {
  const problems: VerifyProblem[] = [];
  const add = (check: VerifyCheck, message: string, instanceId?: string) => problems.push({ check, line: lineNo, instanceId, message });
  if (row === null || typeof row !== 'object' || Array.isArray(row)) {
    add('parse', 'the row is not a JSON object');
    return problems;
  }
  const r = row as Partial<DressageRow> & Record<string, unknown>;
  const m = (r.metadata ?? undefined) as Record<string, unknown> | undefined;
  const id = typeof m?.instance_id === 'string' ? m.instance_id : undefined;
  const at = (check: VerifyCheck, message: string) => add(check, message, id);

  // Prompt and label.
  if (!Array.isArray(r.prompt) || r.prompt.length !== 1) at('prompt', 'prompt must be a list with one user message');
  else {
    const msg = r.prompt[0] as { role?: unknown; content?: unknown };
    if (msg.role !== 'user') at('prompt', `prompt[0].role is ${JSON.stringify(msg.role)}, expected "user"`);
    if (typeof msg.content !== 'string' || !msg.content.endsWith('\n\n' + INTEGRITY_RULES)) at('prompt', 'prompt[0].content does not end with the integrity rules');
    else if (msg.content.length <= INTEGRITY_RULES.length + 2 || !msg.content.slice(0, -(INTEGRITY_RULES.length + 2)).trim()) at('prompt', 'the problem statement is empty');
  }
  if (r.label !== '') at('prompt', `label must be "" (got ${JSON.stringify(r.label)})`);

  // Gold patch: no patch-like key anywhere, and (when the parquet is known) none of its added lines verbatim.
  const keys: string[] = [];
  findPatchKeys(r, '', keys);
  if (keys.length) at('gold_patch', `patch field present in the row: ${keys.join(', ')}`);
  const gold = id ? exp.goldPatches?.get(id) : undefined;
  const fp = gold ? patchFingerprint(gold) : undefined;
  if (fp && rawLine.includes(fp)) at('gold_patch', 'the gold patch text appears in the row');

  if (!m || typeof m !== 'object' || Array.isArray(m)) {
    at('metadata', 'metadata missing or not an object');
    return problems;
  }
  const missing = REQUIRED_METADATA_KEYS.filter((k) => !(k in m));
  if (missing.length) at('metadata', `metadata keys missing: ${missing.join(', ')}`);
  const eq = (k: string, v: unknown) => {
    if (k in m && m[k] !== v) at('metadata', `metadata.${k} is ${JSON.stringify(m[k])}, expected ${JSON.stringify(v)}`);
  };
  eq('agent_mode', 'blackbox');
  eq('task_type', 'swe-gym');
  eq('reward_fn', 'swegym_harness_marker');
  eq('swegym_eval_mode', 'official_script_in_fresh_sandbox');
  eq('swegym_fresh_eval', true);
  eq('swegym_harness_commit', SWEGYM_HARNESS_COMMIT);
  eq('dataset', SWEGYM_DATASET);
  if ('base_commit' in m && m.commit_hash !== m.base_commit) at('metadata', 'commit_hash differs from base_commit');
  if (typeof m.repo === 'string' && m.repo_name !== m.repo.split('/').pop()) at('metadata', `repo_name ${JSON.stringify(m.repo_name)} does not match repo ${m.repo}`);
  for (const k of ['FAIL_TO_PASS', 'PASS_TO_PASS']) {
    if (k in m && (!Array.isArray(m[k]) || !(m[k] as unknown[]).every((t) => typeof t === 'string'))) at('metadata', `${k} must be a list of test ids`);
  }
  const san = m.swegym_git_sanitizer as Record<string, unknown> | undefined;
  if (san && (san.enabled !== true || san.target_commit !== m.base_commit)) at('metadata', 'swegym_git_sanitizer must be enabled and target the base commit');
  const o = exp.options;
  if (o) {
    eq('dataset_split', o.split);
    eq('blackbox_type', o.blackboxType);
    eq('workdir', o.workdir);
    eq('sandbox_timeout_sec', o.sandboxTimeout);
    if (o.provider === 'e2b' && 'sandbox_cmd' in m) at('metadata', 'sandbox_cmd present for --provider e2b (bootstrap URLs leaked into the conversion)');
  }

  // Template map and smoke results.
  const image = typeof m.sandbox_image === 'string' ? m.sandbox_image : undefined;
  if (!image) at('template_map', 'sandbox_image missing or empty');
  else if (exp.templateMap) {
    const docker = typeof m.docker_image === 'string' ? m.docker_image : undefined;
    if (docker !== undefined) {
      if (!(docker in exp.templateMap)) at('template_map', `docker image ${docker} is not in the template map`);
      else if (exp.templateMap[docker] !== image) at('template_map', `sandbox_image ${image} differs from the map's ${exp.templateMap[docker]} for ${docker}`);
    } else if (o?.provider === 'e2b' && !Object.values(exp.templateMap).includes(image)) {
      at('template_map', `sandbox_image ${image} is not a template in the map`);
    }
    if (exp.smoke?.get(image) === 'failed') at('smoke', `template ${image} failed its smoke test`);
  }

  // Commands.
  const cmds = m.blackbox_execute_cmds as { before_agent?: unknown; after_agent?: unknown } | undefined;
  if (!cmds || typeof cmds !== 'object') at('commands', 'blackbox_execute_cmds missing');
  else {
    const stage = (name: 'before_agent' | 'after_agent', expectName: string, required: boolean, timeout: number | undefined): Record<string, unknown> | undefined => {
      const list = cmds[name];
      if (!Array.isArray(list) || list.length === 0) {
        at('commands', `${name} stage missing or empty`);
        return undefined;
      }
      const c = list[0] as Record<string, unknown>;
      const extra = Object.keys(c).filter((k) => !(EXECUTE_CMD_KEYS as readonly string[]).includes(k));
      if (extra.length) at('commands', `${name}[0] has keys Dressage rejects: ${extra.join(', ')}`);
      if (c.name !== expectName) at('commands', `${name}[0].name is ${JSON.stringify(c.name)}, expected ${expectName}`);
      if (!isSingleLine(c.cmd)) at('commands', `${name}[0].cmd must be one non-empty line without NUL`);
      if (c.required !== required) at('commands', `${name}[0].required must be ${required}`);
      if (typeof c.timeout !== 'number' || c.timeout <= 0) at('commands', `${name}[0].timeout must be a positive number`);
      else if (timeout !== undefined && c.timeout !== timeout) at('commands', `${name}[0].timeout is ${c.timeout}, requested ${timeout}`);
      return c;
    };
    const before = stage('before_agent', SANITIZER_NAME, true, o?.gitSanitizeTimeout);
    const after = stage('after_agent', HARNESS_NAME, false, o?.commandTimeout);
    if (before && typeof before.cmd === 'string' && typeof m.base_commit === 'string' && !before.cmd.includes(m.base_commit)) {
      at('commands', 'the sanitizer does not reset to the base commit');
    }
    if (after && typeof after.cmd === 'string') {
      if (o && !new RegExp(`\\btimeout ${o.testTimeout} `).test(after.cmd)) at('commands', `the harness command does not run the tests under \`timeout ${o.testTimeout}\``);
      if (id && !after.cmd.includes(`dressage_swegym_eval_${evalSlug(id)}`)) at('commands', 'the harness command does not write /tmp/dressage_swegym_eval_<instance>.sh');
    }
  }

  // Backend options.
  const bo = m.backend_options as Record<string, unknown> | undefined;
  if (m.blackbox_type === 'claude_code') {
    if (!bo || typeof bo !== 'object') at('backend_options', 'backend_options missing for claude_code');
    else {
      const want: Record<string, unknown> = { setting_sources: 'user', system_prompt_mode: 'append' };
      if (o) Object.assign(want, { working_directory: o.workdir, max_turns: o.maxTurns, permission_mode: o.permissionMode });
      for (const [k, v] of Object.entries(want)) if (bo[k] !== v) at('backend_options', `backend_options.${k} is ${JSON.stringify(bo[k])}, requested ${JSON.stringify(v)}`);
      if ((bo.subagents as { enabled?: unknown } | undefined)?.enabled !== false) at('backend_options', 'subagents must be disabled');
      if ((bo.compaction as { auto?: unknown } | undefined)?.auto !== true) at('backend_options', 'compaction.auto must be true');
    }
  } else if (bo !== undefined) {
    at('backend_options', `backend_options present for blackbox_type ${String(m.blackbox_type)} (only claude_code gets them)`);
  }
  return problems;
}

/** Streams the file and checks every row. Never throws for bad content; a missing file is one file-level problem. */
export async function verifyJsonl(file: string, exp: VerifyExpectations = {}): Promise<VerifyReport> {
  const report: VerifyReport = { file, ok: false, rows: 0, expectedRows: exp.expectedRows, instanceIds: [], problems: [], counts: {}, notSmokeTested: 0, warnings: [] };
  const push = (p: VerifyProblem) => {
    report.counts[p.check] = (report.counts[p.check] ?? 0) + 1;
    if (report.problems.length < KEEP_PROBLEMS) report.problems.push(p);
  };
  const seen = new Map<string, number>();
  let lineNo = 0;
  try {
    const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const line of rl) {
      lineNo++;
      if (line.trim() === '') {
        push({ check: 'parse', line: lineNo, message: 'empty line' });
        continue;
      }
      report.rows++;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch (err) {
        push({ check: 'parse', line: lineNo, message: `not valid JSON: ${(err as Error).message}` });
        continue;
      }
      for (const p of checkRow(row, line, lineNo, exp)) push(p);
      const m = (row as DressageRow)?.metadata;
      const id = typeof m?.instance_id === 'string' ? m.instance_id : undefined;
      if (id) {
        const prev = seen.get(id);
        if (prev !== undefined) push({ check: 'duplicate', line: lineNo, instanceId: id, message: `instance ${id} already on line ${prev}` });
        else seen.set(id, lineNo);
        report.instanceIds.push(id);
      }
      if (exp.smoke && typeof m?.sandbox_image === 'string' && !exp.smoke.has(m.sandbox_image)) report.notSmokeTested++;
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    push({ check: 'row_count', message: code === 'ENOENT' ? `${file} does not exist` : `cannot read ${file}: ${(err as Error).message}` });
  }
  if (exp.expectedRows !== undefined && report.rows !== exp.expectedRows && !report.counts.row_count) {
    push({ check: 'row_count', message: `${report.rows} rows, expected ${exp.expectedRows}` });
  }
  if (report.rows === 0 && !report.counts.row_count) push({ check: 'row_count', message: 'the file has no rows' });
  if (report.notSmokeTested > 0) report.warnings.push(`${report.notSmokeTested} row(s) use a template without a smoke result (swegym-console templates smoke --all)`);
  if (!exp.goldPatches) report.warnings.push('gold patches not available: checked for patch fields only, not for leaked patch text');
  report.ok = Object.keys(report.counts).length === 0;
  return report;
}

/** Smoke results from the templates journal, by template name (and by image). */
export async function readSmokeResults(paths: RecipePaths): Promise<Map<string, 'passed' | 'failed'> | undefined> {
  const items = await readTemplateRecords(paths);
  if (!items) return undefined;
  const out = new Map<string, 'passed' | 'failed'>();
  for (const [key, rec] of Object.entries(items)) {
    const state = rec?.smoke;
    if (state !== 'passed' && state !== 'failed') continue;
    const name = typeof rec.template === 'string' && rec.template ? rec.template : undefined;
    out.set(name ?? key, state);
    if (name && name !== key) out.set(key, state);
  }
  return out;
}
