// Long-running jobs the console started (template builds, validation, downloads). Quitting asks first while any run.
import { createStore } from 'zustand/vanilla';

export interface JobInfo {
  id: string;
  title: string;
  startedAt: number;
  progress?: { done: number; total: number };
  /** Called when the user chooses to abandon on quit. */
  cancel?: () => void;
}

export interface JobsState {
  jobs: Record<string, JobInfo>;
  start(job: JobInfo): void;
  progress(id: string, done: number, total: number): void;
  finish(id: string): void;
}

export function createJobsStore() {
  return createStore<JobsState>()((set, get) => ({
    jobs: {},
    start(job) {
      set({ jobs: { ...get().jobs, [job.id]: job } });
    },
    progress(id, done, total) {
      const job = get().jobs[id];
      if (job) set({ jobs: { ...get().jobs, [id]: { ...job, progress: { done, total } } } });
    },
    finish(id) {
      const { [id]: _gone, ...rest } = get().jobs;
      set({ jobs: rest });
    },
  }));
}

export type JobsStore = ReturnType<typeof createJobsStore>;
