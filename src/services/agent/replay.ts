// A SCRIPTED model for the offline demo: a known-good solution (a task's gold patch) replayed as the tool calls an
// agent would make: look at the files the patch touches (in parallel), edit them hunk by hunk, run the tests, say
// what changed. Served by the scripted Anthropic server to the real Claude Code CLI, so everything after the model
// (the CLI, its tools, the sandbox, patch extraction and grading) is real; the model's replies are not.
import { text, toolUse, type Step } from './scriptedModel.js';

export interface FileEdit {
  path: string;
  /** undefined for a new file. */
  edits: { old: string; new: string }[];
  created?: string;
}

/** Files and hunks of a unified diff, as old → new text (context lines on both sides). */
export function patchEdits(patch: string): FileEdit[] {
  const files: FileEdit[] = [];
  let file: FileEdit | undefined;
  let hunk: { old: string[]; new: string[] } | undefined;
  let isNew = false;
  const flush = () => {
    if (file && hunk) {
      if (isNew) file.created = hunk.new.join('\n') + '\n';
      else file.edits.push({ old: hunk.old.join('\n'), new: hunk.new.join('\n') });
    }
    hunk = undefined;
  };
  for (const line of patch.split('\n')) {
    const d = /^diff --git a\/(.+?) b\/(.+)$/.exec(line);
    if (d) {
      flush();
      file = { path: d[2] as string, edits: [] };
      files.push(file);
      isNew = false;
      continue;
    }
    if (!file) continue;
    if (line.startsWith('--- /dev/null')) isNew = true;
    else if (line.startsWith('@@')) {
      flush();
      hunk = { old: [], new: [] };
    } else if (hunk) {
      if (line.startsWith(' ')) {
        hunk.old.push(line.slice(1));
        hunk.new.push(line.slice(1));
      } else if (line.startsWith('-')) hunk.old.push(line.slice(1));
      else if (line.startsWith('+')) hunk.new.push(line.slice(1));
    }
  }
  flush();
  return files;
}

/** The replay of `patch` as model turns, for a repository at `workdir`. */
export function replaySolution(patch: string, o: { workdir: string; testCommand?: string }): Step[] {
  const files = patchEdits(patch);
  if (files.length === 0) throw new Error('the solution patch has no file changes to replay');
  const abs = (p: string) => `${o.workdir.replace(/\/$/, '')}/${p}`;
  const steps: Step[] = [
    toolUse(
      [...files.filter((f) => !f.created).map((f) => ({ name: 'Read', input: { file_path: abs(f.path) } })), { name: 'Bash', input: { command: `cd ${o.workdir} && git status --short && git log --oneline -1`, description: 'Check the repository state' } }],
      { thinking: `The issue points at ${files.map((f) => f.path).join(', ')}. Read ${files.length === 1 ? 'it' : 'them'} and check the repository first.`, text: 'Let me look at the code first.' },
    ),
    toolUse(files.flatMap((f): { name: string; input: Record<string, unknown> }[] => (f.created ? [{ name: 'Write', input: { file_path: abs(f.path), content: f.created } }] : f.edits.map((e) => ({ name: 'Edit', input: { file_path: abs(f.path), old_string: e.old, new_string: e.new } })))), { text: 'I see the bug; fixing it.' }),
  ];
  // Without bytecode files: `git add -A` would put __pycache__/*.pyc under tests/ into the patch, which Dressage
  // zeroes as a test modification (prohibited_test_modification).
  if (o.testCommand) steps.push(toolUse([{ name: 'Bash', input: { command: `export PYTHONDONTWRITEBYTECODE=1 && ${o.testCommand}`, description: 'Run the tests' } }]));
  steps.push(text(`Fixed ${files.map((f) => f.path).join(', ')}.${o.testCommand ? ' The tests pass.' : ''}`));
  return steps;
}
