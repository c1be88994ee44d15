// Home screen state: the pipeline derived from disk and the doctor's checks.
import { createStore } from 'zustand/vanilla';
import type { StepStatus, CheckoutStatus } from './types/workspace.js';
import type { DoctorCheck, PendingCheck } from './types/doctor.js';

export interface HomeState {
  steps: StepStatus[];
  /** The doctor's answers so far, in its order. */
  checks: DoctorCheck[];
  /** Checks still running (shown as pending until their answer arrives). */
  pendingChecks: PendingCheck[];
  /** Whether the workspace is a Dressage checkout (the home screen says so first when it is not). */
  checkout?: CheckoutStatus;
  loading: boolean;
  refreshedAt?: number;
  selected: number;
  /** First visible row of the doctor panel. */
  doctorScroll: number;
  set(partial: Partial<Omit<HomeState, 'set'>>): void;
}

export function createHomeStore() {
  return createStore<HomeState>()((set) => ({
    steps: [],
    checks: [],
    pendingChecks: [],
    loading: true,
    selected: 0,
    doctorScroll: 0,
    set(partial) {
      set(partial);
    },
  }));
}

export type HomeStore = ReturnType<typeof createHomeStore>;
