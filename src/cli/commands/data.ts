// `data download | images | show`: the dataset step headless. Progress goes to stderr; --json prints one document.
import type { CommandContext } from '../context.js';
import { errorDocument, note, optString, registryOf, say, writeJson } from '../context.js';
import { ConsoleError, ExitCode, formatError } from '../../services/errors.js';
import { redact } from '../../services/secrets.js';
import { displayPath } from '../../services/workspace/paths.js';
import { DataValidationError } from '../../services/dataset/read.js';
import { loadSplit, parseExpectRows, parseSplit, writeSplitImages } from '../../services/dataset/split.js';
import { requireWorkspaceDir } from '../../services/dataset/downloadJob.js';
import { instanceRecord, summarize, type Distribution } from '../../services/dataset/summary.js';
import { formatProgress } from '../../services/dataset/format.js';
import { formatBytes } from '../../services/util/format.js';
import { formatProblem } from '../../services/dataset/types.js';
import type { DownloadProgress } from '../../services/dataset/hub.js';
import { renderTable } from '../../ui/renderTable.js';

function isTty(stream: NodeJS.WritableStream): boolean {
  return Boolean((stream as NodeJS.WriteStream).isTTY);
}

/** Progress on stderr: one rewritten line on a terminal, a line every few seconds otherwise (logs, CI). */
function progressPrinter(ctx: CommandContext): { onProgress: (p: DownloadProgress) => void; end: () => void } {
  const tty = isTty(ctx.stderr);
  let lastLine = 0;
  let lastPhase = '';
  let drawn = false;
  return {
    onProgress(p) {
      const now = Date.now();
      const text = formatProgress(p);
      if (tty) {
        const width = (ctx.stderr as NodeJS.WriteStream).columns || 100;
        ctx.stderr.write(`\r\u001b[2K${text.slice(0, Math.max(10, width - 1))}`);
        drawn = true;
      } else if (p.phase !== lastPhase || now - lastLine >= 3000) {
        note(ctx, text);
        lastLine = now;
      }
      lastPhase = p.phase;
    },
    end() {
      if (tty && drawn) ctx.stderr.write('\r\u001b[2K');
    },
  };
}

/** With --json, a failure is still one document on stdout ({ok: false, error}); the person-readable text goes to stderr. */
async function jsonOnFailure(ctx: CommandContext, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    if (ctx.global.json && err instanceof ConsoleError && !(err instanceof DataValidationError)) {
      writeJson(ctx, errorDocument({ what: redact(err.what, ctx.env), cause: err.causeText ? redact(err.causeText, ctx.env) : undefined, fix: err.fix ? redact(err.fix, ctx.env) : undefined }, err.exitCode));
    }
    throw err;
  }
}

/** Prints a validation failure: every problem on stderr; with --json also the problems as one document. */
function reportValidation(ctx: CommandContext, err: DataValidationError): number {
  if (ctx.global.json) {
    writeJson(ctx, { ok: false, file: err.file, error: err.what, problems: err.problems.map((p) => ({ ...p, text: formatProblem(p) })) });
  }
  note(ctx, formatError(err, ctx.global.debug));
  return err.exitCode;
}

export async function dataDownloadCommand(ctx: CommandContext): Promise<number> {
  return jsonOnFailure(ctx, () => dataDownload(ctx));
}

async function dataDownload(ctx: CommandContext): Promise<number> {
  const split = parseSplit(optString(ctx, 'split'));
  const printer = progressPrinter(ctx);
  let job;
  try {
    job = await (await registryOf(ctx).jobs('data')).download({ split, dir: optString(ctx, 'dir'), signal: ctx.signal, onEvent: (e) => (e.type === 'progress' ? printer.onProgress(e.progress) : undefined) });
  } finally {
    printer.end();
  }
  const { result, rows } = job;
  const shown = displayPath(ctx.paths, result.file);
  if (job.invalid) {
    note(ctx, `downloaded ${shown}, but it does not pass the checks:`);
    return reportValidation(ctx, job.invalid);
  }
  const verified = [result.verified.size ? 'size' : '', result.verified.sha256 ? 'sha256' : ''].filter(Boolean).join(' + ') || 'nothing to verify against';
  if (ctx.global.json) {
    writeJson(ctx, {
      ok: true,
      split,
      file: result.file,
      bytes: result.bytes,
      sha256: result.sha256,
      upToDate: result.upToDate,
      resumedFrom: result.resumedFrom,
      verified: result.verified,
      commit: result.commit ?? null,
      url: result.url,
      rows,
    });
  } else if (result.upToDate) {
    say(ctx, `${shown} is up to date (${formatBytes(result.bytes)}, ${rows} rows, sha256 matches the hub)`);
  } else {
    say(ctx, `downloaded ${shown} (${formatBytes(result.bytes)}, ${rows} rows; verified: ${verified}${result.resumedFrom ? `; resumed at ${formatBytes(result.resumedFrom)}` : ''})`);
    say(ctx, `next: swegym-console data images${split === 'train' ? '' : ` --split ${split}`}`);
  }
  return ExitCode.ok;
}

export async function dataImagesCommand(ctx: CommandContext): Promise<number> {
  return jsonOnFailure(ctx, () => dataImages(ctx));
}

async function dataImages(ctx: CommandContext): Promise<number> {
  requireWorkspaceDir(ctx.paths);
  const split = parseSplit(optString(ctx, 'split'));
  const expectRows = parseExpectRows(optString(ctx, 'expect-rows'));
  let result;
  try {
    result = await writeSplitImages(ctx.paths, { split, input: optString(ctx, 'input'), output: optString(ctx, 'output'), expectRows });
  } catch (err) {
    if (err instanceof DataValidationError) return reportValidation(ctx, err);
    throw err;
  }
  // Dressage prints exactly this line to stderr.
  note(ctx, result.summary);
  if (ctx.global.json) {
    writeJson(ctx, {
      ok: true,
      split,
      input: result.data.file,
      output: result.output,
      rows: result.data.rows.length,
      images: result.images.length,
      legacyImages: result.images.filter((i) => i.startsWith('swebench/')).length,
      list: result.images,
    });
  }
  return ExitCode.ok;
}

function dist(d: Distribution): string {
  return `min ${d.min}, median ${d.median}, max ${d.max} (total ${d.total})`;
}

export async function dataShowCommand(ctx: CommandContext): Promise<number> {
  return jsonOnFailure(ctx, () => dataShow(ctx));
}

async function dataShow(ctx: CommandContext): Promise<number> {
  const split = parseSplit(optString(ctx, 'split'));
  const expectRows = parseExpectRows(optString(ctx, 'expect-rows'));
  let data;
  try {
    data = await loadSplit(ctx.paths, { split, input: optString(ctx, 'input'), expectRows });
  } catch (err) {
    if (err instanceof DataValidationError) return reportValidation(ctx, err);
    throw err;
  }
  const s = summarize(data);
  if (ctx.global.json) {
    writeJson(ctx, {
      ok: true,
      ...s,
      warnings: data.warnings.map((w) => ({ ...w, text: formatProblem(w) })),
      instances: data.rows.map(instanceRecord),
    });
    return ExitCode.ok;
  }
  const maxCount = Math.max(1, ...s.repos.map((r) => r.count));
  say(ctx, `split:     ${s.split ?? '?'}  (${displayPath(ctx.paths, s.file)}, ${formatBytes(s.fileBytes)})`);
  say(ctx, `rows:      ${s.rows} tasks in ${s.repos.length} repos`);
  say(ctx, `images:    ${s.images} unique${s.legacyImages ? `, ${s.legacyImages} from legacy SWE-bench repos (swebench/…)` : ', none from legacy SWE-bench repos'}`);
  say(ctx, `tests:     FAIL_TO_PASS stored as ${s.encoding.FAIL_TO_PASS}, PASS_TO_PASS as ${s.encoding.PASS_TO_PASS}`);
  say(ctx, `  FAIL_TO_PASS per task: ${dist(s.failToPass)}`);
  say(ctx, `  PASS_TO_PASS per task: ${dist(s.passToPass)}`);
  say(ctx, `problem statements (chars): ${dist(s.problemStatementChars)}`);
  say(ctx, 'repos:');
  const bar = (n: number) => '█'.repeat(Math.max(1, Math.round((n / maxCount) * 30)));
  for (const line of renderTable([{ minWidth: 4 }, { align: 'right', minWidth: 4 }, {}], s.repos.map((r) => [r.repo, String(r.count), bar(r.count)]), { indent: '  ' })) say(ctx, line);
  if (data.warnings.length) {
    say(ctx, `warnings (${data.warnings.length}):`);
    for (const w of data.warnings.slice(0, 10)) say(ctx, `  ${formatProblem(w)}`);
    if (data.warnings.length > 10) say(ctx, `  … and ${data.warnings.length - 10} more (--json lists all)`);
  }
  return ExitCode.ok;
}
