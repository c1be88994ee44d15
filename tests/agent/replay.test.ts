// The scripted model's replay of a known solution: a unified diff becomes Read/Edit/Write tool calls whose edits,
// applied in order, give the patched file.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { patchEdits, replaySolution } from '../../src/services/agent/replay.js';

test('every sample gold patch replays as edits that turn the base file into the fixed one', () => {
  const manifest = JSON.parse(readFileSync(path.resolve('samples/tasks/manifest.json'), 'utf8')) as { instances: { instance_id: string; patch: string; local: { task_dir: string } }[] };
  for (const inst of manifest.instances) {
    const files = patchEdits(inst.patch);
    assert.ok(files.length > 0, inst.instance_id);
    for (const f of files) {
      let text = readFileSync(path.resolve(inst.local.task_dir, 'repo', f.path), 'utf8');
      for (const e of f.edits) {
        assert.equal(text.split(e.old).length, 2, `${inst.instance_id} ${f.path}: old_string must be unique, as the Edit tool requires`);
        text = text.replace(e.old, e.new);
      }
      assert.notEqual(text, readFileSync(path.resolve(inst.local.task_dir, 'repo', f.path), 'utf8'));
    }
  }
});

test('a new file becomes a Write; the replay reads first (in parallel), edits, tests, answers', () => {
  const patch = ['diff --git a/pkg/new.py b/pkg/new.py', 'new file mode 100644', '--- /dev/null', '+++ b/pkg/new.py', '@@ -0,0 +1,2 @@', '+x = 1', '+y = 2', 'diff --git a/pkg/a.py b/pkg/a.py', '--- a/pkg/a.py', '+++ b/pkg/a.py', '@@ -1,2 +1,2 @@', ' keep', '-old', '+new', ''].join('\n');
  assert.deepEqual(patchEdits(patch), [{ path: 'pkg/new.py', edits: [], created: 'x = 1\ny = 2\n' }, { path: 'pkg/a.py', edits: [{ old: 'keep\nold', new: 'keep\nnew' }] }]);
  const steps = replaySolution(patch, { workdir: '/testbed', testCommand: 'pytest -q' });
  const names = steps.map((s) => (s.kind === 'reply' ? s.blocks.filter((b) => b.type === 'tool_use').map((b) => (b.type === 'tool_use' ? b.name : '')) : []));
  assert.deepEqual(names, [['Read', 'Bash'], ['Write', 'Edit'], ['Bash'], []]);
  assert.throws(() => replaySolution('not a diff', { workdir: '/testbed' }), /no file changes/);
});
