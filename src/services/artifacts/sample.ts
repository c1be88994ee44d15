// Stand-in artifacts for the offline sample workspace and the local provider: the same two file names the
// artifacts script writes (recipe §1.2), but a `claude` that only answers --version and a runtime whose
// `blackbox_server.main:main` is a tiny stdlib HTTP server answering GET /health like BBS 1.1.0
// ({"healthy":true,"version":"1.1.0"}) on BBS_HOST:BBS_PORT. The runtime's python3 is the host's /usr/bin/python3
// (the local provider binds the host's /usr). Nothing here is used for E2B builds.
import { mkdir, mkdtemp, rm, symlink, writeFile, chmod, rename } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runProcess } from '../process/run.js';
import { ConsoleError } from '../errors.js';
import { binaryFileName, runtimeFileName, type ArtifactVersions } from './versions.js';
import type { CommandLog } from '../process/commandLog.js';

const BBS_STUB = `import json, os, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

VERSION = "1.1.0"


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.split("?")[0] == "/health":
            body = json.dumps({"healthy": True, "version": VERSION}).encode()
            self.send_response(200)
        else:
            body = json.dumps({"detail": "Not Found"}).encode()
            self.send_response(404)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt, *args):
        sys.stdout.write("%s %s\\n" % (self.command, self.path))
        sys.stdout.flush()


def main():
    host = os.environ.get("BBS_HOST", "0.0.0.0")
    port = int(os.environ.get("BBS_PORT", "23456"))
    ThreadingHTTPServer((host, port), Handler).serve_forever()


if __name__ == "__main__":
    main()
`;

export interface SampleArtifacts {
  binary: string;
  runtime: string;
}

/** Writes the stand-in binary and runtime tarball into `artifactDir` (atomically, each). */
export async function writeSampleArtifacts(artifactDir: string, versions: ArtifactVersions, opts: { python?: string; log?: CommandLog } = {}): Promise<SampleArtifacts> {
  await mkdir(artifactDir, { recursive: true });
  const binary = path.join(artifactDir, binaryFileName(versions));
  const tmpBin = `${binary}.tmp.${process.pid}`;
  await writeFile(tmpBin, `#!/bin/sh\n# swegym-console sample stand-in for Claude Code (answers --version only)\nif [ "$1" = "--version" ]; then echo "${versions.claudeCodeVersion} (Claude Code)"; exit 0; fi\necho "sample stand-in: only --version is supported" >&2\nexit 2\n`);
  await chmod(tmpBin, 0o755);
  await rename(tmpBin, binary);

  const runtime = path.join(artifactDir, runtimeFileName(versions));
  const work = await mkdtemp(path.join(os.tmpdir(), 'swegym-sample-runtime-'));
  try {
    const root = path.join(work, 'cc-runtime');
    await mkdir(path.join(root, 'python', 'bin'), { recursive: true });
    await symlink(opts.python ?? '/usr/bin/python3', path.join(root, 'python', 'bin', 'python3'));
    const pkg = path.join(root, 'bbs-site', 'blackbox_server');
    await mkdir(pkg, { recursive: true });
    await writeFile(path.join(pkg, '__init__.py'), '');
    await writeFile(path.join(pkg, 'main.py'), BBS_STUB);
    const tmpTar = `${runtime}.tmp.${process.pid}`;
    const r = await runProcess('tar', ['-czf', tmpTar, '-C', work, 'cc-runtime'], { cwd: work, log: opts.log, note: 'sample runtime tarball' });
    if (r.exitCode !== 0) throw new ConsoleError({ what: 'could not write the sample runtime tarball', cause: r.stderr.join('\n') || r.spawnError });
    await rename(tmpTar, runtime);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return { binary, runtime };
}
