// The train types that the stores hold; src/services/train builds them and re-exports them.
import type { CheckStatus } from './doctor.js';

export interface Derived {
  nodes?: number;
  gpusPerNode?: number;
  totalGpus?: number;
  tp?: number;
  cp?: number;
  /** total / (TP×CP); undefined when not an integer. */
  dpSize?: number;
  dpDivisible: boolean;
  contextWindow?: number;
  rolloutMaxContextLen?: number;
  responseLen?: number;
  compactReserve?: number;
  compactThreshold?: number;
  /** Claude Code's auto-compact percentage, as Dressage computes it from the threshold and MAX_TOKENS_PER_GPU × CP_SIZE. */
  autoCompactPct?: number;
  engines?: number;
  perEngineConcurrency?: number;
  /** engines × per-engine concurrency (slime's semaphore, §6.4). */
  concurrentSamples?: number;
  samplesPerRollout?: number;
  /** Samples in flight at once: min(concurrency, samples per rollout). */
  activeSamples?: number;
  /** Agent sandboxes + evaluation sandboxes alive at the peak. */
  sandboxesAtPeak?: number;
  e2bLimit?: number;
  /** 'ok' when the peak fits, 'peak' when only agent sandboxes fit, 'agents' when not even those fit. */
  e2bFit: 'ok' | 'peak' | 'agents' | 'unknown';
  /** Estimated sandbox-hours per rollout with the assumed minutes, and the upper bound (30 min agent, 21 min eval). */
  sandboxHoursPerRollout?: number;
  sandboxHoursPerRolloutMax?: number;
  costPerRolloutUsd?: number;
  costPerRolloutUsdMax?: number;
  costPerRunUsd?: number;
  /** The five summary lines the launcher prints, in order. */
  effectiveLines: string[];
}

export interface LaunchCheck {
  id: string;
  title: string;
  status: CheckStatus;
  /** Evidence, one line; never a secret value. */
  detail: string;
  fix?: string;
}

export type RunStatus = 'starting' | 'running' | 'exited' | 'stopped' | 'lost';

export interface RunRecord {
  version: 1;
  /** Registry name: <RUN_NAME>-<UTC timestamp>. */
  name: string;
  /** Dressage's RUN_NAME. */
  runName: string;
  host: string;
  createdAt: string;
  startedAt?: string;
  /** The launch wrapper's pid; it leads its own session and process group (pgid = pid). */
  pid?: number;
  pgid?: number;
  /** /proc start time of the wrapper (clock ticks), to tell a reused pid apart. */
  procStart?: string;
  command: { argv: string[]; cwd: string };
  /** Launcher stdout+stderr, appended. */
  logFile: string;
  /** The log's inode and device when the launcher got it: another file put at the path later has another. */
  logInode?: number;
  logDevice?: number;
  /** Written by the wrapper when the launcher ends: {"exitCode":N,"endedAt":"…"}. */
  exitFile: string;
  /** Dressage's outputs/logs/<RUN_NAME> (LOG_DIR) and checkpoint dir (SAVE_ROOT). */
  outputsLogDir: string;
  checkpointDir: string;
  /** Settings the operator set, and the effective values; secret values masked. */
  config: { explicit: Record<string, string>; effective: Record<string, string>; sources: Record<string, string> };
  /** The five effective_* lines the console expected the launcher to print. */
  expectedEffectiveLines: string[];
  resumedFrom?: { root: string; step?: number };
  /** Status at launch; the live status is derived by `runStatus` (and cached in status.json). */
  status: RunStatus;
  exitCode?: number;
  endedAt?: string;
  stopRequestedAt?: string;
  stoppedAt?: string;
  /** Set once the run log shows training/rollout progress (starting → running). */
  progressAt?: string;
  progressScanOffset?: number;
  launchError?: string;
}

export interface RunView extends RunRecord {
  /** Live status derived now. */
  status: RunStatus;
  alive: boolean;
  /** Set when the run was launched on another host: liveness cannot be checked from here. */
  remote?: boolean;
}

export interface CheckpointInfo {
  root: string;
  /** Latest iteration (rollout id), from latest_checkpointed_iteration.txt or the highest iter_NNNNNNN directory. */
  step: number;
  dir: string;
  source: 'tracker' | 'directory';
  count: number;
}

export type SettingSource = 'default' | 'environment' | 'saved' | 'console' | 'env-file' | 'set';
