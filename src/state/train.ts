// Train screen state: the launch form (explicit values), the derived values and checks of the current plan, the
// run registry view, and pending confirmations. Services compute; this store only holds what the screen shows.
import { createStore } from 'zustand/vanilla';
import type { Derived, LaunchCheck, RunView, CheckpointInfo, SettingSource } from './types/train.js';

// The environment the launcher inherits is not held here (it holds secrets): the actions take it from the app's
// services (services.env). `effective` holds a secret setting only as its description ("set (N chars)").
export interface TrainState {
  loaded: boolean;
  /** Values set in the form or loaded from the saved settings (secrets included, in memory only). */
  values: Record<string, string>;
  /** Whether secrets are saved in the 0600 secrets file. */
  storeSecrets: boolean;
  /** Effective value and source of every setting, for the form (a secret: only whether it is set, and its length). */
  effective: Record<string, string>;
  sources: Record<string, SettingSource>;
  derived?: Derived;
  /** Pure checks, recomputed on every edit. */
  staticChecks: LaunchCheck[];
  /** Full checks (disk, network, Ray), run on demand and before a launch. */
  checks: LaunchCheck[];
  checking: boolean;
  checkedAt?: number;
  /** Selected row in the settings list (index into the field list). */
  selected: number;
  editing?: { key: string; draft: string };
  runs: RunView[];
  runSelected: number;
  /** The latest checkpoint under the configured SAVE_ROOT, when one exists. */
  checkpoint?: CheckpointInfo;
  confirm?: { kind: 'launch' } | { kind: 'stop'; run: string; rayStop: boolean };
  busy?: string;
  set(partial: Partial<Omit<TrainState, 'set'>>): void;
}

export function createTrainStore() {
  return createStore<TrainState>()((set) => ({
    loaded: false,
    values: {},
    storeSecrets: false,
    effective: {},
    sources: {},
    staticChecks: [],
    checks: [],
    checking: false,
    selected: 0,
    runs: [],
    runSelected: 0,
    set(partial) {
      set(partial);
    },
  }));
}

export type TrainStore = ReturnType<typeof createTrainStore>;
