// The provider contract against the REAL E2B service. Opt-in: needs E2B_API_KEY and SWEGYM_LIVE_E2B=1.
// Template: SWEGYM_LIVE_E2B_TEMPLATE (must serve GET /health on 31000 with {"healthy":true,"version":"1.1.0"} and
// have curl or python3); without it the suite builds `swegym-console-contract` from python:3.11-slim first.
import path from 'node:path';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { defineContract } from './contract.js';
import { E2bProvider, e2bSettingsFromEnv } from '../../src/services/sandbox/e2b.js';
import { CONSOLE_TAG_KEY, CONSOLE_TAG_VALUE } from '../../src/services/sandbox/types.js';

const enabled = Boolean(process.env.E2B_API_KEY) && process.env.SWEGYM_LIVE_E2B === '1';
const why = 'live E2B tier skipped: set E2B_API_KEY and SWEGYM_LIVE_E2B=1 to run the contract against real E2B';
if (!enabled) process.stderr.write(`# ${why}\n`);

const SERVER = `import http.server, json
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        ok = self.path == "/health"
        b = json.dumps({"healthy": True, "version": "1.1.0"}).encode()
        self.send_response(200 if ok else 404); self.send_header("content-length", str(len(b))); self.end_headers(); self.wfile.write(b)
http.server.ThreadingHTTPServer(("0.0.0.0", 31000), H).serve_forever()
`;

defineContract(
  'e2b (live)',
  async () => {
    const provider = new E2bProvider(e2bSettingsFromEnv(process.env));
    let template = process.env.SWEGYM_LIVE_E2B_TEMPLATE ?? '';
    if (!template) {
      template = 'swegym-console-contract';
      const ctx = await mkdtemp(path.join(tmpdir(), 'swegym-live-'));
      await writeFile(path.join(ctx, 'server.py'), SERVER);
      await provider.buildTemplate(
        { name: template, baseImage: 'python:3.11-slim', cpuCount: 1, memoryMb: 1024, copies: [{ src: 'server.py', dest: '/opt/server.py' }], runCommands: [], aptPackages: ['curl'], startCommand: 'python3 /opt/server.py', readyPort: 31000, readyPath: '/health', contextDir: ctx },
        { onLog: (l) => process.stderr.write(`# build: ${l}\n`) },
      );
      await rm(ctx, { recursive: true, force: true });
    }
    return {
      provider,
      template,
      commandTimeoutMs: 60_000,
      cleanup: async () => {
        // afterAll clean-up by tag: nothing this suite started survives it.
        for (const s of await provider.list({ metadata: { [CONSOLE_TAG_KEY]: CONSOLE_TAG_VALUE, contract: 'yes' } })) await provider.killById(s.id);
      },
    };
  },
  { skip: enabled ? false : why },
);
