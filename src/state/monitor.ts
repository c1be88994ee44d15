// Dashboard state: a snapshot the monitor service publishes at ≤ 5 Hz (never per log line), plus UI state
// (follow, filter, selection, drill-in) that lives in the store so that key handlers never read stale React state.
import { createStore } from 'zustand/vanilla';
import type { Alert, GpuSample, RayNode, ProxyHealth, SandboxRow, SandboxSnapshot, TrajectoryEntry, TrajectoryView, PhaseKind, SampleStats, GroupTally, Liveness, GpuPanelView } from './types/monitor.js';
import type { StreamEventView } from './types/agent.js';

export interface ChartSeries {
  key: string;
  label: string;
  /** Where it is logged: train steps or rollouts. */
  source: 'step' | 'rollout';
  /** x of each point in rollouts (a train step is drawn at rollout step / steps-per-rollout). */
  x: number[];
  /** Raw values as logged (NaN where missing or not finite). */
  y: number[];
}

/** The curves' data beyond the overview charts: every logged metric, the one in the large view, a compared run. */
export interface CurvesSnapshot {
  /** Every metric key logged so far (train/*, rollout/*, perf/*, eval/*), sorted, with its last value. */
  metrics: { key: string; source: 'step' | 'rollout'; last: number | undefined; points: number }[];
  /** The metric of the large view (MonitorService.curves.focus), full series. */
  focus: ChartSeries | undefined;
  /** A second run drawn over the large view (MonitorService.curves.compare). */
  compare: { name: string; status: 'loading' | 'ready' | 'error'; error?: string; series: ChartSeries | undefined; rollouts: number; charts?: (ChartSeries | undefined)[] } | undefined;
  /** Registry runs a comparison can be made with (newest first; the open run left out). */
  candidates: string[];
  /** The in-progress rollout's groups (per-sample rewards so far). */
  pendingGroups: GroupTally[];
  pendingRollout: number;
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
  /** Its groups' per-sample rewards (the reward histogram). */
  groups: GroupTally[];
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
  agent:
    | {
        status: 'running' | 'success' | 'max_turns' | 'api_error' | 'error';
        cause: string | undefined;
        apiRetries: number;
        lastRetryStatus: number | null | undefined;
        apiErrorStatus: number | null;
        permissionDenials: number;
        /** What agent-log says of the same log: `4 model turns · 4 tool calls (1 failed) · tokens in … out …`. */
        counts?: string;
        results?: number;
        openTasks?: number;
      }
    | undefined;
  transcript: TrajectoryView | undefined;
  /** The sandbox service's own CPU/memory of it (E2B's sandbox metrics), in words. */
  usage?: string;
  /** How it ended, once it left the list: at its timeout (endAt) or before (killed or evicted). */
  ending?: string;
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
    /** The run's W&B link or offline dir (launches with USE_WANDB=1), in words. */
    wandb?: string;
    /** Written by the console's run simulator (simulation.json beside the log): labelled, never taken for training. */
    simulated: boolean;
    /** running / stalled / finished / crashed / exited (code), from the log, the writer and Ray (liveness.ts). */
    liveness: Liveness | undefined;
    /** Set while the log's first read is under way: the counters are partial and the state is not known yet. */
    reading?: ReadingProgress;
  };
  charts: ChartSeries[];
  curves?: CurvesSnapshot;
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
  /** Where trajectories are looked for: traj_payload/<RUN_NAME>/, and where RUN_NAME was read (resolve.ts). */
  trajectoryRoot?: { runName: string | undefined; from: string | undefined };
  trajectory: TrajectoryView | undefined;
  live: boolean;
}

/** The first read of a run's log, as it goes (the loading view, and a header drawn before it is done). */
export interface ReadingProgress {
  bytes: number;
  total: number;
  /** The log's file name. */
  file?: string;
  /** Seconds left at the rate so far; undefined until there is a rate. */
  etaSec?: number;
}

export type MonitorStatus = 'idle' | 'loading' | 'live' | 'offline' | 'error';

export interface MonitorState {
  status: MonitorStatus;
  error: string | undefined;
  /** Progress of the first read: bytes read / total, the file's name, the time left at the rate so far. */
  loading: ReadingProgress | undefined;
  snapshot: MonitorSnapshot | undefined;
  // UI state.
  follow: boolean;
  filter: string;
  filterEditing: boolean;
  /** Selected row per panel name (its position, used when the row below is gone). */
  selected: Record<string, number>;
  /**
   * The selected row's identity per panel (a sandbox id, a rollout number, a task…): rows reorder between refreshes,
   * and the cursor stays on the row, not on the position (as in k9s and htop).
   */
  selectedKey: Record<string, string>;
  /** The row a drill-in was opened on (its key): the view stays on it while newer rows arrive. */
  drillKey: string | undefined;
  /** A rollout's drill-in follows the newest rollout instead (`f` in it). */
  drillFollow: boolean;
  /** Drill-in: which detail view is open. */
  detail: 'none' | 'sandbox' | 'trajectory' | 'rollout' | 'task' | 'chart';
  /** The drill-in follows its end (a live sandbox's log grows): `f`, `G` / `End`, or scrolling to the bottom. */
  detailTail: boolean;
  /** The sandbox row as drawn when its drill-in was opened (the sandbox may leave the list before its log is read). */
  drillRow: SandboxRow | undefined;
  /** Curves: EMA weight (0 = raw only), like W&B's smoothing slider; `[` / `]` step it. */
  smoothing: number;
  /** Curves, large view: the metric shown, the rollout under the cursor (undefined = newest), an open picker. */
  curve: { metric: string | undefined; cursor: number | undefined; picker: 'none' | 'metric' | 'compare'; query: string; pick: number };
  set(partial: Partial<Omit<MonitorState, 'set'>>): void;
  /** Selects a panel's row: its position and, when known, its key. */
  select(panel: string, index: number, key?: string): void;
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
    selectedKey: {},
    drillKey: undefined,
    drillFollow: false,
    detail: 'none',
    detailTail: false,
    drillRow: undefined,
    smoothing: 0.6,
    curve: { metric: undefined, cursor: undefined, picker: 'none', query: '', pick: 0 },
    set(partial) {
      set(partial);
    },
    select(panel, index, key) {
      const keys = { ...get().selectedKey };
      if (key === undefined) delete keys[panel];
      else keys[panel] = key;
      set({ selected: { ...get().selected, [panel]: Math.max(0, index) }, selectedKey: keys });
    },
  }));
}

export type MonitorStore = ReturnType<typeof createMonitorStore>;
