import { test } from 'node:test';
import assert from 'node:assert/strict';
import { templateSpec, specFingerprint, specArtifacts, startCommand, UNPACK_COMMAND } from '../../src/services/templates/recipe.js';

const versions = { claudeCodeVersion: '2.1.207', portablePythonVersion: '3.10.20', bbsVersion: '1.1.0' };

test('the spec follows Dressage\'s builder step for step', () => {
  const spec = templateSpec({ image: 'xingyaoww/sweb.eval.x86_64.a_s_b-1:latest', name: 'swegym-a_s_b-1', artifactDir: '/ws/data/claude-code-artifacts', versions });
  assert.equal(spec.baseImage, 'xingyaoww/sweb.eval.x86_64.a_s_b-1:latest');
  assert.equal(spec.name, 'swegym-a_s_b-1');
  assert.deepEqual(spec.aptPackages, ['bash', 'curl', 'ca-certificates', 'git', 'patch', 'tar']);
  assert.deepEqual(spec.copies, [
    { src: 'claude-2.1.207-linux-x64', dest: '/usr/local/bin/claude', mode: 0o755 },
    { src: 'claude-code-runtime-python-3.10.20-bbs-1.1.0.tar.gz', dest: '/tmp/cc-runtime.tar.gz' },
  ]);
  assert.equal(spec.contextDir, '/ws/data/claude-code-artifacts');
  assert.deepEqual(specArtifacts(spec), [
    '/ws/data/claude-code-artifacts/claude-2.1.207-linux-x64',
    '/ws/data/claude-code-artifacts/claude-code-runtime-python-3.10.20-bbs-1.1.0.tar.gz',
  ]);
  assert.deepEqual(spec.runCommands, [
    'rm -rf /opt/cc-runtime && mkdir -p /opt/cc-runtime && tar -xzf /tmp/cc-runtime.tar.gz -C /opt/cc-runtime --strip-components=1 && /usr/local/bin/claude --version',
  ]);
  assert.equal(spec.runCommands[0], UNPACK_COMMAND);
  assert.equal(spec.cpuCount, 4);
  assert.equal(spec.memoryMb, 8192);
  assert.equal(spec.readyPort, 31000);
  assert.equal(spec.readyPath, '/health');
  assert.equal(spec.skipCache, undefined);
  assert.equal(
    spec.startCommand,
    // One step per line, as Dressage's builder has it (tests/templates/builder.upstream.test.ts compares with the real one).
    'cd /testbed\nexport BBS_HOST=0.0.0.0\nexport BBS_PORT=31000\nexport BBS_RUNTIME_ROOT=/tmp/blackbox_server\n' +
      `exec /opt/cc-runtime/python/bin/python3 -c "import sys; sys.path.insert(0, '/opt/cc-runtime/bbs-site'); from blackbox_server.main import main; main()" > /tmp/blackbox-server.log 2>&1`,
  );
  assert.equal(startCommand(), spec.startCommand);
  const custom = templateSpec({ image: 'i', name: 'n', artifactDir: '/a', versions, cpuCount: 2, memoryMb: 4096, skipCache: true });
  assert.equal(custom.cpuCount, 2);
  assert.equal(custom.memoryMb, 4096);
  assert.equal(custom.skipCache, true);
});

test('the fingerprint changes with the recipe and the artifacts, not with the name or skip-cache', () => {
  const a = templateSpec({ image: 'img', name: 'n1', artifactDir: '/a', versions });
  const b = templateSpec({ image: 'img', name: 'n2', artifactDir: '/a', versions, skipCache: true });
  const files = Object.fromEntries(specArtifacts(a).map((f) => [f, 'aaa']));
  assert.equal(specFingerprint(a, files), specFingerprint(b, files));
  assert.notEqual(specFingerprint(a, files), specFingerprint(a, { ...files, [specArtifacts(a)[0]!]: 'bbb' }));
  const other = templateSpec({ image: 'img', name: 'n1', artifactDir: '/a', versions: { ...versions, bbsVersion: '1.2.0' } });
  assert.notEqual(specFingerprint(a), specFingerprint(other));
  assert.notEqual(specFingerprint(a), specFingerprint(templateSpec({ image: 'img2', name: 'n1', artifactDir: '/a', versions })));
});
