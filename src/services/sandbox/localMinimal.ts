// A tiny local template for measuring and testing the local provider: a /testbed with one file and a python3 stdlib
// server answering GET /health on the Blackbox Server's port.
import path from 'node:path';
import { mkdir, rm } from 'node:fs/promises';
import { BLACKBOX_PORT } from '../recipe.js';
import type { TemplateBuildOptions, TemplateBuildResult } from './types.js';
import type { LocalProvider } from './local.js';

const MINIMAL_HEALTH_SERVER = `import http.server, json
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        ok = self.path.split("?")[0] == "/health"
        body = json.dumps({"healthy": True, "version": "1.1.0"} if ok else {"error": "not found"}).encode()
        self.send_response(200 if ok else 404)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("0.0.0.0", ${BLACKBOX_PORT}), H).serve_forever()
`;

/**
 * Builds a tiny local template (a /testbed with one file, a python3 stdlib server answering GET /health on
 * port 31000 like the Blackbox Server) — enough to measure or test sandbox create/run/health/kill.
 */
export async function buildMinimalLocalTemplate(provider: LocalProvider, name = 'swegym-minimal', opts: TemplateBuildOptions = {}): Promise<TemplateBuildResult> {
  const { mkdtemp, writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const ctx = await mkdtemp(path.join(tmpdir(), 'swegym-minimal-'));
  try {
    await mkdir(path.join(ctx, 'image', 'testbed'), { recursive: true });
    await writeFile(path.join(ctx, 'image', 'testbed', 'README'), 'minimal sandbox template\n');
    await writeFile(path.join(ctx, 'health_server.py'), MINIMAL_HEALTH_SERVER);
    return await provider.buildTemplate(
      {
        name,
        baseImage: 'image',
        contextDir: ctx,
        cpuCount: 1,
        memoryMb: 256,
        copies: [{ src: 'health_server.py', dest: '/opt/swegym/health_server.py', mode: 0o644 }],
        runCommands: [],
        aptPackages: [],
        startCommand: 'exec python3 /opt/swegym/health_server.py',
        readyPort: BLACKBOX_PORT,
        readyPath: '/health',
      },
      opts,
    );
  } finally {
    await rm(ctx, { recursive: true, force: true });
  }
}
