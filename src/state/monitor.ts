// Dashboard state: a snapshot the monitor service publishes at ≤ 5 Hz (never per log line), plus UI state
// (follow, filter, selection, drill-in) that lives in the store so that key handlers never read stale React state.
import { createStore } from 'zustand/vanilla';
import type { Alert } from '../services/monitor/alerts.js';
import type { GpuSample, RayNode } from '../services/monitor/gpu.js';
import type { ProxyHealth } from '../services/monitor/proxy.js';
import type { SandboxSnapshot, StreamEventView } from '../services/monitor/sandboxes.js';
import type { TrajectoryEntry, TrajectoryView } from '../services/monitor/offline.js';
import type { PhaseKind, SampleStats } from '../services/monitor/model.js';
import type { Liveness } from '../services/monitor/liveness.js';
import type { GpuPanelView } from '../services/monitor/clusterGpus.js';

export interface ChartSeries {
  key: string;
  label: string;
  x: number[];
  y: number[];
}

export interface RolloutRow {
  rollout: number;
  samples: number;
  resolved: number;
  rawTrajMean: number | undefined;
  topReasons: string;
  zeroStd: number;
  failedGroups: number;
  aborted: number;
  earlyStops: number;
}

export interface FeedRow {
  rollout: number;
  at: number | undefined;
  reward: number;
  raw: number;
  integrity: boolean;
  instance: string;
  f2p: string;
  p2p: string;
  reason: string;
}

export interface FailureRow {
  rollout: number;
  kind: string;
  text: string;
}

export interface TaskRow {
  instance: string;
  attempts: number;
  solved: number;
  /** Newest last: '█' solved, '·' unsolved, '▄' partly, per rollout. */
  recent: string;
}

/** The drill-in on one agent sandbox: its Claude Code log while it runs; its trajectory files once finished. */
export interface SandboxStreamView {
  id: string;
  trajectoryId: string | undefined;
  events: StreamEventView[];
  steps: number | undefined;
  error: string | undefined;
  /** From the log's tail: how it is going or how it ended (AgentStatus of services/agent/streamJson). */
  agent: { status: 'running' | 'success' | 'max_turns' | 'api_error' | 'error'; cause: string | undefined; apiRetries: number; lastRetryStatus: number | null | undefined; apiErrorStatus: number | null; permissionDenials: number } | undefined;
  transcript: TrajectoryView | undefined;
}

export interface MonitorSnapshot {
  version: number;
  header: {
    run: string;
    source: string;
    phase: string;
    phaseKind: PhaseKind;
    rollout: number;
    totalRollouts: number | undefined;
    samplesDone: number;
    samplesPerRollout: number;
    elapsedMs: number | undefined;
    etaSec: number | undefined;
    lastCheckpoint: string | undefined;
    rayNodes: string | undefined;
    router: string | undefined;
    /** Written by the console's run simulator (simulation.json beside the log): labelled, never taken for training. */
    simulated: boolean;
    /** running / stalled / finished / crashed / exited (code), from the log, the writer and Ray (liveness.ts). */
    liveness: Liveness | undefined;
  };
  charts: ChartSeries[];
  rollouts: RolloutRow[];
  feed: FeedRow[];
  failures: FailureRow[];
  totals: SampleStats;
  tasks: { always: number; sometimes: number; never: number; rows: TaskRow[] };
  alerts: Alert[];
  gpus: { latest: GpuSample[]; util: Record<number, number[]>; mem: Record<number, number[]>; error: string | undefined };
  /** Every node's GPUs (Ray) or this node's (nvidia-smi), with histories: what the GPUs panel draws. */
  gpuPanel: GpuPanelView;
  rayNodes: RayNode[] | undefined;
  proxy: { url: string | undefined; last: ProxyHealth | undefined; failures: number };
  sandboxes: SandboxSnapshot | undefined;
  sandboxStream: SandboxStreamView | undefined;
  trajectories: TrajectoryEntry[];
  trajectory: TrajectoryView | undefined;
  live: boolean;
}

export type MonitorStatus = 'idle' | 'loading' | 'live' | 'offline' | 'error';

export interface MonitorState {
  status: MonitorStatus;
  error: string | undefined;
  /** Progress of the first read: bytes read / total. */
  loading: { bytes: number; total: number } | undefined;
  snapshot: MonitorSnapshot | undefined;
  // UI state.
  follow: boolean;
  filter: string;
  filterEditing: boolean;
  /** Selected row per panel name. */
  selected: Record<string, number>;
  /** Drill-in: which detail view is open. */
  detail: 'none' | 'sandbox' | 'trajectory' | 'rollout' | 'task';
  set(partial: Partial<Omit<MonitorState, 'set'>>): void;
  select(panel: string, index: number): void;
}

export function createMonitorStore() {
  return createStore<MonitorState>()((set, get) => ({
    status: 'idle',
    error: undefined,
    loading: undefined,
    snapshot: undefined,
    follow: true,
    filter: '',
    filterEditing: false,
    selected: {},
    detail: 'none',
    set(partial) {
      set(partial);
    },
    select(panel, index) {
      set({ selected: { ...get().selected, [panel]: Math.max(0, index) } });
    },
  }));
}

export type MonitorStore = ReturnType<typeof createMonitorStore>;
