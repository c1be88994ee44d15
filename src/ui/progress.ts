// Progress as people read it: the formatters live with the jobs (services/jobs/progress.ts, the headless commands
// print the same line); the screens draw it with <ProgressBar> (ui/ProgressBar.tsx).
export { progressBar, etaMs, progressLine, progressCount, progressEta, jobProgressLine } from '../services/jobs/progress.js';
export type { JobProgress } from '../state/types/jobs.js';
