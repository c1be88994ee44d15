// Reading rows of the converted JSONL (for validation and the preview) and rendering one row readably: the
// prompt, the tests, the template and the commands, instead of 40 KB of JSON.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ConsoleError, ExitCode } from '../errors.js';
import { INTEGRITY_RULES, problemStatementOf, type DressageRow } from './schema.js';
import type { RowPreview } from '../../state/types/convert.js';
export type { RowPreview } from '../../state/types/convert.js';

/** Reads rows (optionally only the given instance ids). Throws a ConsoleError on a missing file or a bad line. */
export async function readRows(file: string, opts: { ids?: readonly string[]; limit?: number } = {}): Promise<DressageRow[]> {
  const want = opts.ids && opts.ids.length ? new Set(opts.ids) : undefined;
  const rows: DressageRow[] = [];
  let lineNo = 0;
  try {
    const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const line of rl) {
      lineNo++;
      if (!line.trim()) continue;
      let row: DressageRow;
      try {
        row = JSON.parse(line) as DressageRow;
      } catch (err) {
        throw new ConsoleError({ what: `${file}:${lineNo} is not valid JSON`, cause: (err as Error).message, fix: 'reconvert (swegym-console convert)' });
      }
      const id = row?.metadata?.instance_id;
      if (typeof id !== 'string') throw new ConsoleError({ what: `${file}:${lineNo} has no metadata.instance_id`, fix: 'reconvert (swegym-console convert)' });
      if (want && !want.has(id)) continue;
      rows.push(row);
      if (opts.limit !== undefined && rows.length >= opts.limit) {
        rl.close();
        break;
      }
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ConsoleError({ what: `${file} does not exist`, cause: 'the data has not been converted yet', fix: 'run `swegym-console convert`', exitCode: ExitCode.precondition });
    }
    throw err;
  }
  if (want) {
    const found = new Set(rows.map((r) => r.metadata.instance_id));
    const missing = [...want].filter((id) => !found.has(id));
    if (missing.length) {
      throw new ConsoleError({ what: `instance(s) not in ${file}: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` (+${missing.length - 5})` : ''}`, fix: 'check the ids (they are case-sensitive), or reconvert without --limit', exitCode: ExitCode.usage });
    }
  }
  return rows;
}

function summarizeCmd(c: { name?: string; cmd?: string; timeout?: number; required?: boolean } | undefined, width = 240): string {
  if (!c) return '(missing)';
  const cmd = typeof c.cmd === 'string' ? c.cmd : '';
  // Long embedded base64 blobs are shown as their size, so the shape of the command stays readable.
  const shown = cmd.replace(/[A-Za-z0-9+/=]{120,}/g, (b) => `<${b.length} chars base64>`);
  return `${c.name ?? '?'} (timeout ${c.timeout ?? '?'}s${c.required ? ', required' : ''}): ${shown.length > width ? shown.slice(0, width - 1) + '…' : shown}`;
}

export function previewRow(row: DressageRow): RowPreview {
  const m = row.metadata;
  const bo = m.backend_options;
  return {
    instanceId: m.instance_id,
    repo: m.repo,
    template: m.sandbox_image,
    dockerImage: m.docker_image,
    baseCommit: m.base_commit,
    problem: problemStatementOf(row).split('\n'),
    integrityRules: (row.prompt[0]?.content ?? '').endsWith(INTEGRITY_RULES),
    failToPass: m.FAIL_TO_PASS ?? [],
    passToPass: m.PASS_TO_PASS ?? [],
    sanitizer: summarizeCmd(m.blackbox_execute_cmds?.before_agent?.[0]),
    harness: summarizeCmd(m.blackbox_execute_cmds?.after_agent?.[0]),
    backend: bo
      ? `${m.blackbox_type}: max_turns ${bo.max_turns}, ${bo.permission_mode}, cwd ${bo.working_directory}, subagents ${bo.subagents?.enabled ? 'on' : 'off'}`
      : `${m.blackbox_type}: no backend options`,
  };
}

/** Plain-text lines of a preview (headless `convert` and the screen share them). */
export function previewLines(p: RowPreview, opts: { problemLines?: number; tests?: number } = {}): string[] {
  const nProblem = opts.problemLines ?? 6;
  const nTests = opts.tests ?? 3;
  const tests = (list: string[]) => (list.length ? list.slice(0, nTests).join(', ') + (list.length > nTests ? ` … (+${list.length - nTests})` : '') : '(none)');
  const problem = p.problem.filter((l) => l.trim() !== '');
  return [
    `${p.instanceId}  (${p.repo} @ ${p.baseCommit.slice(0, 12)})`,
    `template: ${p.template}${p.dockerImage ? `  ← ${p.dockerImage}` : ''}`,
    ...problem.slice(0, nProblem).map((l) => `  │ ${l}`),
    ...(problem.length > nProblem ? [`  │ … (${problem.length - nProblem} more lines)`] : []),
    `  integrity rules appended: ${p.integrityRules ? 'yes' : 'NO'}`,
    `FAIL_TO_PASS (${p.failToPass.length}): ${tests(p.failToPass)}`,
    `PASS_TO_PASS (${p.passToPass.length}): ${tests(p.passToPass)}`,
    `before_agent: ${p.sanitizer}`,
    `after_agent:  ${p.harness}`,
    `backend: ${p.backend}`,
  ];
}
