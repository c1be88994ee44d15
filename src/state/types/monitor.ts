// The monitor types that the stores hold; src/services/monitor builds them and re-exports them.

export interface Alert {
  id: string;
  level: 'warn' | 'fail';
  text: string;
}

export interface GpuSample {
  index: number;
  uuid: string;
  name: string;
  /** Percent, undefined when nvidia-smi says [N/A]. */
  util: number | undefined;
  memUtil: number | undefined;
  /** MiB. */
  memTotal: number | undefined;
  memUsed: number | undefined;
  memFree: number | undefined;
  /** °C. */
  temp: number | undefined;
  /** W. */
  power: number | undefined;
  powerLimit: number | undefined;
  smClock: number | undefined;
  memClock: number | undefined;
  fan: number | undefined;
  pstate: string | undefined;
}

export interface RayNode {
  id: string;
  ip: string;
  name: string;
  state: string;
  isHead: boolean;
  gpus: number | undefined;
}

/** Dressage proxy health, from GET <DRESSAGE_PROXY_URL>/health (services/monitor/proxy.ts reads it). */
export interface ProxyHealth {
  ok: boolean;
  at: number;
  activeSessions?: number;
  paused?: boolean;
  readyInstances?: number;
  status?: string;
  error?: string;
}

export interface SandboxRow {
  id: string;
  kind: 'agent' | 'eval' | 'other';
  trajectoryId: string;
  template: string;
  startedAt: number | undefined;
  ageMs: number | undefined;
  endAt: number | undefined;
  /** Filled by `readAgentProgress` when asked (drill-in or a slow refresh). */
  steps?: number;
  lastTool?: string;
  /** How Claude Code ended badly, once its log has a result: `✗ max turns`, `✗ API error 529 after 2 retries`. */
  ending?: string;
  /** What its whole log says (the same reader as agent-log): running, success, max_turns, api_error, error. */
  agentStatus?: string;
  toolCalls?: number;
}

export interface SandboxSnapshot {
  ok: boolean;
  at: number;
  rows: SandboxRow[];
  agents: number;
  evals: number;
  /** Concurrent sandboxes vs the plan's limit (E2B Hobby 20, Pro 100 by default). */
  limit: number;
  error?: string;
}

export interface TrajectoryEntry {
  instance: string;
  session: string;
  kind: 'payload' | 'error';
  /** Directory of the session (payload) or the error.json path's directory. */
  dir: string;
  mtimeMs: number;
}

export interface ToolCallView {
  name: string;
  args: string;
}

export interface MessageView {
  role: string;
  text: string;
  toolCalls: ToolCallView[];
}

export interface TrajectoryView {
  entry: TrajectoryEntry;
  messages: MessageView[];
  patch: string | undefined;
  marker: Record<string, unknown> | undefined;
  markerError: string | undefined;
  reward: number | undefined;
  integrityViolations: Record<string, unknown>[];
  earlyStop: string | undefined;
  error: { type?: string; message?: string; summary?: string; httpStatus?: number } | undefined;
  evalInfo: Record<string, unknown> | undefined;
  /** Problems reading the files (missing, bad JSON). */
  problems: string[];
}

export interface SampleStats {
  total: number;
  reward_one: number;
  raw_one: number;
  integrity_violations: number;
  by_reason: Record<string, number>;
}

export type PhaseKind = 'starting' | 'waiting_workers' | 'generating' | 'training' | 'saving' | 'finished' | 'failed';

export interface GroupTally {
  instance: string;
  /** Samples graded. */
  n: number;
  /** Samples with reward 1. */
  solved: number;
  /** Samples with raw reward 1 (before the integrity scan zeroes a reward). */
  raw: number;
}

export type RunState = 'running' | 'stalled' | 'finished' | 'crashed' | 'exited';

export interface Liveness {
  state: RunState;
  exitCode?: number;
  /** How long ago the log last grew (ms). */
  lastLineAgoMs?: number;
  /** Silence longer than this reads as stalled (ms): a multiple of the run's longest recent gap, bounded. */
  stallAfterMs: number;
  /** The longest gap between recent progress lines (ms), when enough are known. */
  cadenceMs?: number;
  /** One line: why this state (which source said so). */
  why: string;
}

export interface GpuRowView {
  sample: GpuSample;
  /** Utilisation % and memory-used % per column, oldest first. */
  util: number[];
  mem: number[];
}

export interface GpuNodeView {
  /** Hostname (or ip) for a Ray node; the local label for nvidia-smi. */
  label: string;
  ip: string | undefined;
  isHead: boolean;
  /** Ray's node state (ALIVE, DEAD); 'local' for nvidia-smi. */
  state: string;
  gpus: GpuRowView[];
}

export interface GpuPanelView {
  source: 'ray' | 'nvidia-smi';
  /** What is shown, in words: `Ray cluster · 4 nodes · 32 GPUs` or `this node (host, nvidia-smi) only`. */
  label: string;
  nodes: GpuNodeView[];
  /** Why the other source is not used (Ray unreachable), or the local source's error. */
  note: string | undefined;
  columnSeconds: number;
}
