// `artifacts build [--force] [--json]`: the BBS wheel + Claude Code sandbox artifacts, checked against the versions
// the template builds will use.
import path from 'node:path';
import type { CommandContext } from '../context.js';
import { note, optFlag, registryOf, say, writeJson } from '../context.js';
import { ExitCode } from '../../services/errors.js';
import { formatBytes } from '../../services/util/format.js';

const size = (n: number | undefined): string => (n === undefined ? '?' : formatBytes(n));

export async function artifactsBuildCommand(ctx: CommandContext): Promise<number> {
  const r = await (await registryOf(ctx).jobs('artifacts')).build({
    force: optFlag(ctx, 'force'),
    signal: ctx.signal,
    onEvent: (e) => (e.type === 'line' ? note(ctx, `  ${e.line}`) : undefined),
  });
  const s = r.status;
  if (ctx.global.json) {
    writeJson(ctx, {
      skipped: r.skipped,
      artifactDir: s.config.artifactDir,
      versions: { claudeCode: s.config.claudeCodeVersion, portablePython: s.config.portablePythonVersion, bbs: s.config.bbsVersion },
      binary: { file: s.binary.file, size: s.binary.size ?? null, sha256: s.binary.sha256 ?? null, sha256Ok: s.binary.shaOk ?? false },
      runtime: { file: s.runtime.file, size: s.runtime.size ?? null, sha256: s.runtime.sha256 ?? null },
      wheel: r.wheel ? { file: r.wheel.file, size: r.wheel.size ?? null } : null,
      durationMs: r.durationMs,
    });
  } else {
    say(ctx, r.skipped ? 'artifacts are present and current (use --force to rebuild)' : `artifacts built in ${Math.round(r.durationMs / 1000)}s`);
    say(ctx, `  ${path.basename(s.binary.file)}  ${size(s.binary.size)}  sha256 ${s.binary.sha256 ?? '?'} ${s.binary.shaOk ? '(as expected)' : '(MISMATCH)'}`);
    say(ctx, `  ${path.basename(s.runtime.file)}  ${size(s.runtime.size)}${s.runtime.sha256 ? `  sha256 ${s.runtime.sha256}` : ''}`);
    say(ctx, `  in ${s.config.artifactDir}; templates will use CLAUDE_CODE_VERSION=${s.config.claudeCodeVersion} CLAUDE_CODE_PORTABLE_PYTHON_VERSION=${s.config.portablePythonVersion} CLAUDE_CODE_BBS_VERSION=${s.config.bbsVersion}`);
  }
  return s.current ? ExitCode.ok : ExitCode.failed;
}
