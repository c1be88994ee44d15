// The ONE contract every sandbox provider keeps (E2B adapter over the fake or the real service, local bubblewrap,
// in-memory). Each provider's test file supplies a harness; the cases below are identical for all of them.
// Commands are portable shell (echo, printf, exit, sleep, $VAR) so that the in-memory mini shell runs them too.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CONSOLE_TAG_KEY, CONSOLE_TAG_VALUE, SandboxError, type Sandbox, type SandboxProvider } from '../../src/services/sandbox/types.js';

export interface ContractHarness {
  provider: SandboxProvider;
  /** A template whose start command serves GET /health on 31000 with {"healthy":true,"version":"1.1.0"}. */
  template: string;
  /** Id of a sandbox on the same account that the console did not create (never listed as ours). */
  foreignId?: string;
  /** Generous per-command timeout for this provider (the live tier is slower). */
  commandTimeoutMs?: number;
  cleanup(): Promise<void>;
}

export function sandboxErrorKind(kind: SandboxError['kind']) {
  return (err: unknown) => {
    assert.ok(err instanceof SandboxError, `expected a SandboxError, got ${String(err)}`);
    assert.equal(err.kind, kind, `expected kind ${kind}, got ${err.kind}: ${err.message}`);
    return true;
  };
}

export function defineContract(name: string, setup: () => Promise<ContractHarness>, opts: { skip?: string | false } = {}): void {
  describe(`sandbox contract: ${name}`, { skip: opts.skip || false, concurrency: false }, () => {
    let h: ContractHarness;
    let sbx: Sandbox;
    const t = () => h.commandTimeoutMs ?? 15_000;

    before(async () => {
      h = await setup();
      sbx = await h.provider.create({ template: h.template, timeoutMs: 120_000, envs: { FOO: 'bar' }, metadata: { contract: 'yes' } });
    });

    after(async () => {
      await sbx?.kill().catch(() => false);
      await h?.cleanup();
    });

    it('tags the sandbox and lists only console sandboxes', async () => {
      assert.equal(sbx.provider, h.provider.name);
      assert.equal(sbx.template, h.template);
      const mine = await h.provider.list({ metadata: { [CONSOLE_TAG_KEY]: CONSOLE_TAG_VALUE } });
      const me = mine.find((s) => s.id === sbx.id);
      assert.ok(me, `sandbox ${sbx.id} missing from ${JSON.stringify(mine.map((s) => s.id))}`);
      assert.equal(me.metadata.contract, 'yes');
      assert.equal(me.metadata[CONSOLE_TAG_KEY], CONSOLE_TAG_VALUE);
      assert.equal(me.provider, h.provider.name);
      assert.equal(me.state, 'running');
      if (h.foreignId) assert.ok(!mine.some((s) => s.id === h.foreignId), 'a foreign sandbox was listed as ours');
      const filtered = await h.provider.list({ metadata: { [CONSOLE_TAG_KEY]: CONSOLE_TAG_VALUE, contract: 'no-such-value' } });
      assert.ok(!filtered.some((s) => s.id === sbx.id), 'metadata filters are ANDed');
    });

    it('returns a non-zero exit as a result with both streams, split into lines', async () => {
      const out: string[] = [];
      const err: string[] = [];
      const r = await sbx.run('echo hello; echo oops >&2; exit 3', { timeoutMs: t(), onStdout: (l) => out.push(l), onStderr: (l) => err.push(l) });
      assert.deepEqual(r, { exitCode: 3, stdout: 'hello\n', stderr: 'oops\n', timedOut: false });
      assert.deepEqual(out, ['hello']);
      assert.deepEqual(err, ['oops']);
    });

    it('flushes a last line without a newline', async () => {
      const lines: string[] = [];
      const r = await sbx.run("printf 'first\\nsecond'", { timeoutMs: t(), onStdout: (l) => lines.push(l) });
      assert.equal(r.exitCode, 0);
      assert.equal(r.stdout, 'first\nsecond');
      assert.deepEqual(lines, ['first', 'second']);
    });

    it('passes sandbox envs and lets command envs override them', async () => {
      assert.equal((await sbx.run('echo $FOO', { timeoutMs: t() })).stdout, 'bar\n');
      assert.equal((await sbx.run('echo $FOO', { timeoutMs: t(), envs: { FOO: 'baz' } })).stdout, 'baz\n');
    });

    it('times a command out as a result, not an error', async () => {
      const r = await sbx.run('echo before; sleep 30', { timeoutMs: 600 });
      assert.equal(r.timedOut, true);
      assert.equal(r.exitCode, 124);
      assert.equal(r.stdout, 'before\n');
      // The sandbox is still usable afterwards.
      assert.equal((await sbx.run('echo after', { timeoutMs: t() })).stdout, 'after\n');
    });

    it('cancels a running command when the signal aborts', async () => {
      const ac = new AbortController();
      await assert.rejects(
        sbx.run('echo started; sleep 30', { timeoutMs: 60_000, signal: ac.signal, onStdout: (l) => l === 'started' && ac.abort() }),
        sandboxErrorKind('cancelled'),
      );
      await assert.rejects(sbx.run('echo never', { timeoutMs: t(), signal: ac.signal }), sandboxErrorKind('cancelled'));
    });

    it('refuses a command without a positive timeout', async () => {
      await assert.rejects(sbx.run('echo x', { timeoutMs: 0 }), SandboxError);
    });

    it('writes and reads files; a missing file is not_found', async () => {
      const text = 'line 1\nünïcødé ✓\n';
      await sbx.writeFile('/tmp/contract/dir/file.txt', text);
      assert.equal(await sbx.readFile('/tmp/contract/dir/file.txt'), text);
      await sbx.writeFile('/tmp/contract/dir/file.txt', new TextEncoder().encode('replaced'));
      assert.equal(await sbx.readFile('/tmp/contract/dir/file.txt'), 'replaced');
      await assert.rejects(sbx.readFile('/tmp/contract/no-such-file'), sandboxErrorKind('not_found'));
    });

    it('checks the health endpoint from inside the sandbox', async () => {
      const ok = await sbx.health(31000, '/health', { timeoutMs: 5000 });
      assert.equal(ok.ok, true, JSON.stringify(ok));
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.json, { healthy: true, version: '1.1.0' });
      const closed = await sbx.health(31001, '/health', { timeoutMs: 3000 });
      assert.equal(closed.ok, false);
      assert.ok(closed.error, 'a failed probe says why');
    });

    it('extends the lifetime and reconnects by id', async () => {
      await sbx.setTimeout(180_000);
      const again = await h.provider.connect(sbx.id);
      assert.equal(again.id, sbx.id);
      assert.equal((await again.run('echo reconnected', { timeoutMs: t() })).stdout, 'reconnected\n');
    });

    it('fails clearly for a template that does not exist', async () => {
      await assert.rejects(h.provider.create({ template: 'no-such-template-xyz', timeoutMs: 30_000 }), sandboxErrorKind('not_found'));
      assert.equal(await h.provider.templateExists('no-such-template-xyz'), false);
      assert.equal(await h.provider.templateExists(h.template), true);
    });

    it('kills idempotently; a killed sandbox is gone everywhere', async () => {
      const other = await h.provider.create({ template: h.template, timeoutMs: 60_000 });
      assert.equal(await other.kill(), true);
      assert.equal(await other.kill(), false);
      await assert.rejects(other.run('echo x', { timeoutMs: t() }), sandboxErrorKind('not_found'));
      const mine = await h.provider.list({ metadata: { [CONSOLE_TAG_KEY]: CONSOLE_TAG_VALUE } });
      assert.ok(!mine.some((s) => s.id === other.id));
      await assert.rejects(h.provider.connect(other.id), sandboxErrorKind('not_found'));
      assert.equal(await h.provider.killById(other.id), false);
    });

    it('kills by id', async () => {
      const other = await h.provider.create({ template: h.template, timeoutMs: 60_000 });
      assert.equal(await h.provider.killById(other.id), true);
      await assert.rejects(other.run('echo x', { timeoutMs: t() }), sandboxErrorKind('not_found'));
    });
  });
}

export const HEALTH_BODY = JSON.stringify({ healthy: true, version: '1.1.0' });
