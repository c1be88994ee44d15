// Per-trajectory artifact files as Dressage's RolloutArtifactWriter writes them (reference §7):
//   traj_payload/<RUN>/<instance>/<session>/session.json and samples/<segment>.json on success,
//   traj_err/<RUN>/<instance>/<session>/error.json for an aborted sample.
// Pretty-printed JSON, written atomically (`.<name>.<pid>.<hex>.tmp` then rename) by the caller.
import path from 'node:path';
import { Rng } from './rng.js';
import { sanitizePathPart } from './catalog.js';
import type { SampleOutcome } from './runGenerator.js';
import { BLACKBOX_PORT } from '../recipe.js';

export interface TrajFile {
  /** Path relative to the run's log dir (`outputs/logs/<RUN>`). */
  rel: string;
  value: unknown;
}

const MARKER = 'DRESSAGE_SWEGYM_REWARD_JSON=';

function marker(s: SampleOutcome): Record<string, unknown> | null {
  if (s.reason === 'missing_reward_marker') return null;
  const evaluatorSide = ['empty_generation', 'prohibited_test_modification', 'failed_apply_patch', 'patch_extract_failed', 'fresh_eval_exception'];
  if (evaluatorSide.includes(s.reason)) {
    return {
      resolved: false,
      failure_reason: s.reason,
      harness: 'swegym',
      fresh_sandbox: true,
      ...(s.reason === 'fresh_eval_exception' ? { error: { type: 'ReadTimeout', message: 'timed out' } } : {}),
      ...(s.reason === 'failed_apply_patch' ? { returncode: 1, timed_out: false, stderr_tail: 'error: patch failed: src/core.py:118\nerror: src/core.py: patch does not apply' } : {}),
    };
  }
  const repoKey = s.task.repo.toLowerCase();
  return {
    resolved: s.resolved,
    fail_to_pass_success: s.f2p?.[0] ?? 0,
    fail_to_pass_total: s.f2p?.[1] ?? 0,
    pass_to_pass_success: s.p2p?.[0] ?? 0,
    pass_to_pass_total: s.p2p?.[1] ?? 0,
    parsed_tests: s.reason === 'test_log_parse_failure' ? 0 : (s.f2p?.[1] ?? 0) + (s.p2p?.[1] ?? 0),
    eval_returncode: s.resolved ? 0 : 1,
    harness: 'swegym',
    log_parser_repo: repoKey,
    ...(s.resolved ? {} : { failure_reason: s.reason }),
    ...(s.reason === 'test_log_parse_failure' ? { test_log_tail: 'ImportError while loading conftest\nERROR: not found\n' } : {}),
  };
}

function messages(s: SampleOutcome, rng: Rng): unknown[] {
  const msgs: unknown[] = [
    { role: 'system', content: 'You are Claude Code, working in /testbed.' },
    { role: 'user', content: `<issue>\nFix the bug reported for ${s.task.instanceId}.\n</issue>\nThe repository is checked out at /testbed.` },
  ];
  const steps = Math.min(s.numSteps, 6);
  for (let i = 0; i < steps; i++) {
    const id = `toolu_${rng.hex(24)}`;
    const tool = rng.pick(['Bash', 'Read', 'Edit', 'Grep']);
    const args =
      tool === 'Bash' ? { command: rng.pick(['cd /testbed && python -m pytest -x -q', 'git -C /testbed status', 'grep -rn "def " /testbed/src | head']) }
      : tool === 'Read' ? { file_path: '/testbed/src/core.py' }
      : tool === 'Edit' ? { file_path: '/testbed/src/core.py', old_string: 'return None', new_string: 'return value' }
      : { pattern: 'def parse', path: '/testbed' };
    msgs.push({ role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name: tool, arguments: JSON.stringify(args) } }] });
    msgs.push({ role: 'tool', tool_call_id: id, content: tool === 'Bash' ? '3 passed, 1 failed in 2.41s' : 'ok' });
  }
  msgs.push({ role: 'assistant', content: 'I fixed the issue and verified it with the tests.' });
  return msgs;
}

function executeCmds(s: SampleOutcome): unknown[] {
  const cmds: unknown[] = [
    { stage: 'before_agent', name: 'swegym_git_sanitize', cmd: 'cd /testbed && git remote remove origin || true', timeout: 120, required: true, cmd_result: { stdout: '', stderr: '', returncode: 0, timed_out: false, stdout_truncated: false, stderr_truncated: false } },
  ];
  const m = marker(s);
  const stdout = m ? `============ 42 passed in 12.31s ============\n${MARKER}${JSON.stringify(m)}\n` : '============ 42 passed in 12.31s ============\n';
  cmds.push({
    stage: 'after_agent',
    name: 'swegym_harness',
    cmd: '<fresh-sandbox-evaluator>',
    timeout: 1260,
    required: false,
    cmd_result: { stdout, stderr: '', returncode: s.resolved ? 0 : 1, timed_out: false, stdout_truncated: false, background_polled: true, poll_attempts: 3, poll_errors: 0 },
  });
  return cmds;
}

function tokens(rng: Rng, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(rng.range(10, 151000));
  return out;
}

/** The files one finished sample leaves behind, deterministic for the sample (its session id seeds the content). */
export function trajFiles(s: SampleOutcome, runName: string, startTimeMs: number): TrajFile[] {
  const rng = new Rng(hashString(s.sessionId));
  const inst = sanitizePathPart(s.task.instanceId);
  const sess = sanitizePathPart(s.sessionId);
  const when = new Date(startTimeMs + s.endMs).toISOString();
  if (s.aborted) {
    const err = s.abortError ?? { type: 'RuntimeError', message: 'unknown' };
    return [
      {
        rel: path.join('traj_err', runName, inst, sess, 'error.json'),
        value: {
          success: false,
          timestamp: when,
          session_id: s.sessionId,
          trajectory_id: s.trajectoryId,
          instance_id: s.task.instanceId,
          blackbox_type: 'claude_code',
          error: { type: err.type, message: err.message, summary: `${err.type}: ${err.message}`, traceback: `Traceback (most recent call last):\n  File "dressage/rollout/generate/blackbox_dispatch_swegym.py", line 611, in generate\n${err.type}: ${err.message}\n` },
          http: err.message.includes('HTTP 504')
            ? {
                request: { method: 'POST', url: `https://${BLACKBOX_PORT}-${rng.hex(20)}.e2b.app/v1/sessions/${s.sessionId}/call_agent`, headers: { authorization: '<redacted>', 'content-type': 'application/json' }, body: '{"input": "…"}' },
                response: { status_code: 504, reason_phrase: 'Gateway Timeout', headers: { 'content-type': 'application/json' }, body: '{"error": "backend_timeout"}' },
              }
            : null,
          sample: { prompt: `Fix the bug reported for ${s.task.instanceId}.`, label: s.task.instanceId, session_id: s.sessionId, group_index: s.groupIndex, index: s.index, status: 'aborted', response: '', metadata: { instance_id: s.task.instanceId, repo: s.task.repo } },
          env_args: { provider: 'e2b', blackbox_port: BLACKBOX_PORT },
          state: 'failed',
          agent_response: null,
        },
      },
    ];
  }
  const msgs = messages(s, rng);
  const segUids = Array.from({ length: s.segments }, () => rng.uuid4());
  const perSeg = Math.max(8, Math.min(64, Math.round(s.responseTokens / 400)));
  const segments = segUids.map((uid, i) => ({
    uid,
    trajectory_id: s.trajectoryId,
    turn_id: `turn-${i}`,
    instance_id: s.task.instanceId,
    segment_index: i,
    segment_count: s.segments,
    messages: msgs,
    tools: [{ type: 'function', function: { name: 'Bash', parameters: { type: 'object' } } }],
    tokens: tokens(rng, perSeg),
    full_logprobs: Array.from({ length: perSeg }, () => -Math.round(rng.uniform(0, 2) * 1e4) / 1e4),
    full_loss_mask: Array.from({ length: perSeg }, (_, k) => (k < perSeg / 2 ? 0 : 1)),
    aligned_response_length: Math.round(s.responseTokens / s.segments),
    label: s.task.instanceId,
    finish_reason: s.truncated && i === s.segments - 1 ? 'length' : 'stop',
    extra_info: {
      alignment_method: 'tito',
      token_build_mode: 'tito',
      segment_view: 'lineage',
      context_token_count: s.promptTokens + Math.round((s.responseTokens * (i + 1)) / s.segments),
      context_delta_token_count: Math.round(s.responseTokens / s.segments),
      output_token_count: Math.round(s.responseTokens / s.segments),
      num_steps: s.numSteps,
      num_turns: 1,
      turn_ids: [`turn-${i}`],
      lineage_id: `lin-${rng.hex(12)}`,
      lineage_index: i,
      branch_from_step_id: null,
      step_ids: [],
      timestamp: when,
      history_rewritten: i > 0,
      segment_reason: i === s.segments - 1 ? 'final' : 'compaction',
      segment_reasons: [i === s.segments - 1 ? 'final' : 'compaction'],
      trajectory_num_segments: s.segments,
    },
  }));
  const files: TrajFile[] = [
    {
      rel: path.join('traj_payload', runName, inst, sess, 'session.json'),
      value: { success: true, mode: 'trajectory', data: segments, meta_info: { total_items: s.segments, total_instances: 1, ready_instances: 1 }, drained: true },
    },
  ];
  const violations = s.integrityViolation
    ? [s.integrityKind === 'invalid_tool_call'
        ? { segment_index: 0, message_index: 2, tool_index: 0, tool: 'Bash', kind: 'invalid_tool_call', reason: 'blocked_repo_web_access', repo: s.task.repo, snippet: `curl https://github.com/${s.task.repo}/pull/1.diff` }
        : { segment_index: 0, message_index: 4, tool_index: 0, tool: 'Edit', kind: 'invalid_pytest_write', reason: 'write_tool_to_pytest_sensitive_path', path: 'tests/conftest.py' }]
    : [];
  segments.forEach((seg, i) => {
    const last = i === segments.length - 1;
    files.push({
      rel: path.join('traj_payload', runName, inst, sess, 'samples', `${i}.json`),
      value: {
        session_id: s.sessionId,
        trajectory_id: s.trajectoryId,
        instance_id: s.task.instanceId,
        segment_index: i,
        segment_uid: seg.uid,
        segment_count: s.segments,
        prompt: `Fix the bug reported for ${s.task.instanceId}.`,
        label: s.task.instanceId,
        response: 'I fixed the issue and verified it with the tests.',
        tokens: seg.tokens,
        response_length: seg.aligned_response_length,
        loss_mask: seg.full_loss_mask,
        rollout_log_probs: seg.full_logprobs,
        // Written before slime runs the reward: null on the anchor segment, 0.0 on earlier ones (§7).
        reward: last ? null : 0.0,
        status: s.truncated && last ? 'truncated' : 'completed',
        metadata: {
          instance_id: s.task.instanceId,
          repo: s.task.repo,
          base_commit: s.task.baseCommit,
          session_id: s.sessionId,
          segment_count: s.segments,
          selected_segment_index: i,
          all_segment_uids: segUids,
          ...(s.truncated ? { truncated: true } : {}),
          execute_cmds: executeCmds(s),
          swegym_eval: {
            mode: 'fresh_sandbox',
            source_session_id: s.sessionId,
            eval_session_id: s.evalSessionId,
            base_commit: s.task.baseCommit,
            patch_extract_attempts: 1,
            patch_extract_errors: [],
            patch_bytes: s.patchBytes,
            ...(s.reason === 'prohibited_test_modification' ? { prohibited_paths: ['tests/test_regression.py'] } : {}),
            ...(s.reason && s.reason !== 'fail_to_pass_failure' && s.reason !== 'pass_to_pass_regression' && s.reason !== 'test_log_parse_failure' ? { failure_reason: s.reason } : {}),
            background_polled: true,
            poll_attempts: 3,
            poll_errors: 0,
          },
          swegym_integrity: { invalid_tool_call: s.integrityKind === 'invalid_tool_call', invalid_pytest_write: s.integrityKind === 'invalid_pytest_write', violations },
          swegym_invalid_tool_call: s.integrityKind === 'invalid_tool_call',
          swegym_invalid_pytest_write: s.integrityKind === 'invalid_pytest_write',
          ...(s.earlyStop ? { blackbox_agent_early_stop: true, blackbox_agent_early_stop_kind: s.earlyStop } : {}),
        },
      },
    });
  });
  return files;
}

function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
