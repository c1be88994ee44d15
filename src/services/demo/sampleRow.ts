// Rows for the SAMPLE workspace (the offline demo and the local-provider tests), in Dressage's JSONL schema
// (reference §2.3) so that validation runs exactly the code path it runs on real rows. Real rows come from
// Dressage's converter, which embeds the pinned SWE-Gym eval script and log parsers; sample tasks are not
// SWE-Gym repos, so their rows carry a console-written eval script (apply the test patch, run the task's test
// command) and a small grading program that reads pytest-style `-rA` summary lines (`PASSED <test id>`) and
// prints the marker with the fields of §5.2 by the same rule (resolved = every F2P and P2P test PASSED or XFAIL).
import { deflateSync } from 'node:zlib';
import { HARNESS_NAME, INTEGRITY_RULES, SANITIZER_NAME, evalSlug, type DressageRow } from '../convert/schema.js';
import { SWEGYM_DATASET, SWEGYM_HARNESS_COMMIT, TASK_WORKDIR } from '../recipe.js';

export interface SampleTaskSpec {
  instance_id: string;
  repo: string;
  base_commit: string;
  problem_statement: string;
  /** Diff adding/changing the tests (applied by the eval script, as SWE-Gym does). May be empty. */
  test_patch: string;
  /** Shell command run in the workdir that prints `PASSED <id>` / `FAILED <id>` lines. */
  test_cmd: string;
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
  /** Template (sandbox image) name. */
  template: string;
  /** Docker image the template stands for, when different. */
  docker_image?: string;
}

export interface SampleRowOptions {
  workdir?: string;
  testTimeout?: number;
  commandTimeout?: number;
  sandboxTimeout?: number;
  gitSanitizeTimeout?: number;
  maxTurns?: number;
  split?: string;
}

const b64z = (text: string) => deflateSync(Buffer.from(text, 'utf8')).toString('base64');

function bashLc(script: string): string {
  return `bash -lc '${script.replace(/'/g, `'\\''`)}'`;
}

/** The git sanitizer of §2.3, as one line. */
export function sanitizerCommand(base: string, workdir: string): string {
  const steps = [
    'set -e',
    `cd ${workdir}`,
    'git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "SWE-Gym git sanitize failed: not a git worktree" >&2; exit 2; }',
    `git config --global --add safe.directory ${workdir}`,
    `git cat-file -e ${base}^{commit} 2>/dev/null || { echo "SWE-Gym git sanitize failed: missing base commit ${base}" >&2; exit 2; }`,
    `git reset --hard ${base} >/dev/null`,
    'git clean -ffd >/dev/null',
    'git checkout --detach -q',
    'for r in $(git remote); do git remote remove "$r"; done',
    'git for-each-ref --format="delete %(refname)" | git update-ref --stdin',
    'git reflog expire --expire=now --all',
    'git gc -q --prune=now',
    'git prune --expire=now',
    `test "$(git rev-parse HEAD)" = ${base}`,
    'test -z "$(git status --porcelain)"',
    `echo "SWE-Gym git sanitize completed at ${base}"`,
  ];
  return bashLc(steps.join('; '));
}

/** Test files touched by a diff (`--- a/<path>`), as SWE-Gym's make_test_spec finds them. */
export function testFilesOf(testPatch: string): string[] {
  return [...new Set([...testPatch.matchAll(/^--- a\/(.+)$/gm)].map((m) => m[1] as string))];
}

export function evalScript(t: SampleTaskSpec, workdir: string): string {
  const files = testFilesOf(t.test_patch);
  const lines = ['#!/bin/bash', 'set -xo pipefail', `cd ${workdir}`, `git config --global --add safe.directory ${workdir}`, 'git status', `git diff ${t.base_commit}`];
  if (files.length) lines.push(`git checkout ${t.base_commit} ${files.join(' ')}`);
  if (t.test_patch.trim()) lines.push("git apply -v - <<'EOF_114329324912'", t.test_patch.replace(/\n$/, ''), 'EOF_114329324912');
  lines.push(t.test_cmd);
  if (files.length) lines.push(`git checkout ${t.base_commit} ${files.join(' ')}`);
  return lines.join('\n') + '\n';
}

/** The grading program: log, expected tests (base64 JSON), repo, eval return code → one marker line on stdout. */
export const GRADER = `
import base64, json, re, sys
log_path, expected_b64, repo, rc = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
expected = json.loads(base64.b64decode(expected_b64).decode("utf-8"))
try:
    text = open(log_path, encoding="utf-8", errors="replace").read()
except OSError:
    text = ""
status = {}
for line in text.splitlines():
    m = re.match(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL)\\s+(\\S+)", line)
    if m:
        status[m.group(2)] = m.group(1)
ok = lambda t: status.get(t) in ("PASSED", "XFAIL")
f2p, p2p = expected["FAIL_TO_PASS"], expected["PASS_TO_PASS"]
fs, ps = sum(1 for t in f2p if ok(t)), sum(1 for t in p2p if ok(t))
try:
    rc = int(rc)
except ValueError:
    rc = -1
out = {"resolved": bool(status) and fs == len(f2p) and ps == len(p2p), "fail_to_pass_success": fs, "fail_to_pass_total": len(f2p),
       "pass_to_pass_success": ps, "pass_to_pass_total": len(p2p), "parsed_tests": len(status), "eval_returncode": rc,
       "harness": "swegym", "log_parser_repo": repo.lower()}
if not status:
    out["failure_reason"] = "test_log_parse_failure"
    out["test_log_tail"] = text[-4000:]
elif fs != len(f2p):
    out["failure_reason"] = "fail_to_pass_failure"
elif ps != len(p2p):
    out["failure_reason"] = "pass_to_pass_regression"
print("DRESSAGE_SWEGYM_REWARD_JSON=" + json.dumps(out, separators=(",", ":")))
`;

export function harnessCommand(t: SampleTaskSpec, workdir: string, testTimeout: number): string {
  const base = `/tmp/dressage_swegym_eval_${evalSlug(t.instance_id)}`;
  const expected = Buffer.from(JSON.stringify({ FAIL_TO_PASS: t.FAIL_TO_PASS, PASS_TO_PASS: t.PASS_TO_PASS })).toString('base64');
  return [
    `python3 -c "import base64,sys,zlib; open(sys.argv[1],'wb').write(zlib.decompress(base64.b64decode(sys.argv[2])))" ${base}.sh ${b64z(evalScript(t, workdir))}`,
    `&& chmod 0700 ${base}.sh; timeout ${testTimeout} bash ${base}.sh > ${base}.log 2>&1; RC=$?;`,
    `python3 -c "import base64,sys,zlib; exec(zlib.decompress(base64.b64decode(sys.argv.pop(1))))" ${b64z(GRADER)} ${base}.log ${expected} ${t.repo.toLowerCase()} "$RC"`,
  ].join(' ');
}

export function sampleRow(t: SampleTaskSpec, o: SampleRowOptions = {}): DressageRow {
  const workdir = o.workdir ?? TASK_WORKDIR;
  const testTimeout = o.testTimeout ?? 1200;
  const maxTurns = o.maxTurns ?? 80;
  return {
    prompt: [{ role: 'user', content: `${t.problem_statement.trim()}\n\n${INTEGRITY_RULES}` }],
    label: '',
    metadata: {
      agent_mode: 'blackbox',
      blackbox_type: 'claude_code',
      instance_id: t.instance_id,
      repo: t.repo,
      repo_name: t.repo.split('/').pop() ?? t.repo,
      base_commit: t.base_commit,
      commit_hash: t.base_commit,
      workdir,
      task_type: 'swe-gym',
      dataset: SWEGYM_DATASET,
      dataset_split: o.split ?? 'train',
      reward_fn: 'swegym_harness_marker',
      swegym_harness_commit: SWEGYM_HARNESS_COMMIT,
      swegym_eval_mode: 'official_script_in_fresh_sandbox',
      swegym_fresh_eval: true,
      swegym_git_sanitizer: { enabled: true, target_commit: t.base_commit, workdir },
      FAIL_TO_PASS: t.FAIL_TO_PASS,
      PASS_TO_PASS: t.PASS_TO_PASS,
      sandbox_image: t.template,
      ...(t.docker_image && t.docker_image !== t.template ? { docker_image: t.docker_image } : {}),
      sandbox_timeout_sec: o.sandboxTimeout ?? 3600,
      blackbox_execute_cmds: {
        before_agent: [{ name: SANITIZER_NAME, cmd: sanitizerCommand(t.base_commit, workdir), timeout: o.gitSanitizeTimeout ?? 120, required: true }],
        after_agent: [{ name: HARNESS_NAME, cmd: harnessCommand(t, workdir, testTimeout), timeout: o.commandTimeout ?? 1260, required: false }],
      },
      backend_options: {
        working_directory: workdir,
        max_turns: maxTurns,
        permission_mode: 'acceptEdits',
        setting_sources: 'user',
        system_prompt_mode: 'append',
        compaction: { auto: true },
        compat: { disable_prompt_caching: true, disable_nonessential_traffic: true },
        subagents: { enabled: false },
      },
    },
  };
}
