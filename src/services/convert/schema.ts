// The Dressage SWE-Gym JSONL row (reference §2.3): one compact JSON object per line with the prompt, an empty label
// and the task metadata (template, sanitizer, harness command, Claude Code options). Typed here for the verifier,
// the row preview and validation, which runs the row's own commands.

export const INTEGRITY_RULES =
  'Integrity rules:\n' +
  '- Do not modify tests, pytest configuration, or evaluation harness files.\n' +
  '- Do not retrieve a solution, patch, commit, or pull request from the task repository or its mirrors.';

export const PERMISSION_MODES = ['acceptEdits', 'auto', 'bypassPermissions', 'default', 'dontAsk', 'plan'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export interface ExecuteCmd {
  name: string;
  cmd: string;
  timeout: number;
  required: boolean;
  stdout_limit?: number;
}

export const EXECUTE_CMD_KEYS = ['name', 'cmd', 'timeout', 'required', 'stdout_limit'] as const;

export interface ClaudeCodeBackendOptions {
  working_directory: string;
  max_turns: number;
  permission_mode: string;
  setting_sources: string;
  system_prompt_mode: string;
  compaction: { auto: boolean; [k: string]: unknown };
  compat: { disable_prompt_caching: boolean; disable_nonessential_traffic: boolean; [k: string]: unknown };
  subagents: { enabled: boolean; [k: string]: unknown };
  [k: string]: unknown;
}

export interface RowMetadata {
  agent_mode: 'blackbox';
  blackbox_type: string;
  instance_id: string;
  repo: string;
  repo_name: string;
  base_commit: string;
  commit_hash: string;
  workdir: string;
  task_type: 'swe-gym';
  dataset: string;
  dataset_split: string;
  reward_fn: 'swegym_harness_marker';
  swegym_harness_commit: string;
  swegym_eval_mode: 'official_script_in_fresh_sandbox';
  swegym_fresh_eval: true;
  swegym_git_sanitizer: { enabled: boolean; target_commit: string; workdir: string };
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
  sandbox_image: string;
  docker_image?: string;
  sandbox_timeout_sec: number;
  blackbox_execute_cmds: { before_agent: ExecuteCmd[]; after_agent: ExecuteCmd[] };
  backend_options?: ClaudeCodeBackendOptions;
  sandbox_cmd?: string[];
  [k: string]: unknown;
}

export interface DressageRow {
  prompt: { role: string; content: string }[];
  label: string;
  metadata: RowMetadata;
}

/** Keys every row's metadata must carry, whatever the provider (docker_image/backend_options/sandbox_cmd are conditional). */
export const REQUIRED_METADATA_KEYS = [
  'agent_mode',
  'blackbox_type',
  'instance_id',
  'repo',
  'repo_name',
  'base_commit',
  'commit_hash',
  'workdir',
  'task_type',
  'dataset',
  'dataset_split',
  'reward_fn',
  'swegym_harness_commit',
  'swegym_eval_mode',
  'swegym_fresh_eval',
  'swegym_git_sanitizer',
  'FAIL_TO_PASS',
  'PASS_TO_PASS',
  'sandbox_image',
  'sandbox_timeout_sec',
  'blackbox_execute_cmds',
] as const;

export const SANITIZER_NAME = 'swegym_git_sanitize';
export const HARNESS_NAME = 'swegym_harness';

/** The task text of a row, without the integrity rules appended by the converter. */
export function problemStatementOf(row: DressageRow): string {
  const content = row.prompt[0]?.content ?? '';
  const i = content.lastIndexOf('\n\n' + INTEGRITY_RULES);
  return i >= 0 ? content.slice(0, i) : content;
}

/** The eval-script slug: instance id with characters outside [A-Za-z0-9_.-] replaced by `_`. */
export function evalSlug(instanceId: string): string {
  return instanceId.replace(/[^A-Za-z0-9_.-]/g, '_');
}
