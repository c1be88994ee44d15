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
