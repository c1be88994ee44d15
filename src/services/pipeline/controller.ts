// The Home screen's controller: the pipeline from disk and the doctor, side by side. The doctor's answers go into
// the home store as they arrive (each replaces its pending row), at most 10 times a second so that a burst of answers
// is one frame. Its code is imported on refresh (after the first frame), not with the home screen.
import type { RecipePaths } from '../workspace/paths.js';
import type { WorkspaceProfile } from '../workspace/sample.js';
import type { HomeStore } from '../../state/home.js';
import type { DoctorCheck, PendingCheck } from '../doctor/types.js';
import type { DoctorJobEvent } from '../doctor/doctor.js';

import { throttle } from '../jobs/publish.js';

/**
 * The doctor job's listener on the screen's side: its events into the home store, through the one publisher's
 * throttle (≤ 10 Hz). The start opens a period: a doctor that answers within 100 ms (every start but the first,
 * when python3's answers come from disk) is drawn once, all rows answered; a slower one shows its rows and answers
 * at 100 ms, then as they come. Each home frame is ≈ 10 ms of the one main thread at start-up, which the doctor's
 * own last answers waited behind (bench/README.md, start-up).
 */
export function doctorIntoStore(home: HomeStore): (event: DoctorJobEvent) => void {
  let pending: PendingCheck[] = [];
  const answered = new Map<string, DoctorCheck[]>();
  const publish = () => home.getState().set({ checks: pending.flatMap((p) => answered.get(p.id) ?? []), pendingChecks: pending.filter((p) => !answered.has(p.id)) });
  const publisher = throttle(publish);
  return (e) => {
    if (e.type === 'started') {
      pending = e.pending;
      answered.clear();
      publisher.restartPeriod();
      publisher.mark();
    } else if (e.type === 'result') {
      answered.set(e.id, e.checks);
      publisher.mark();
    } else {
      publisher.cancel();
      // The final list is the job's own (the same order); nothing is pending any more.
      home.getState().set({ checks: e.checks, pendingChecks: [] });
    }
  };
}

export interface HomeControllerDeps {
  paths: RecipePaths;
  env: NodeJS.ProcessEnv;
  provider: 'e2b' | 'local';
  profile: WorkspaceProfile;
  store: HomeStore;
  flash(text: string, tone: 'error'): void;
}

export class HomeController {
  constructor(private readonly d: HomeControllerDeps) {}

  /** The pipeline's steps from disk and every doctor check, into the home store. */
  async refresh(): Promise<void> {
    const { paths, env, provider, store } = this.d;
    const { set } = store.getState();
    set({ loading: true });
    try {
      // Loaded here, after the first frame, rather than with the home screen; the doctor starts as soon as its own
      // module is in (its probe process is the slowest part), the pipeline when its modules are.
      // The pipeline's modules and disk reads wait until the doctor has started its checks (its processes then run
      // beside them on other cores), rather than delaying the doctor's start on the one main thread.
      let doctorStarted!: () => void;
      const started = new Promise<void>((resolve) => (doctorStarted = resolve));
      const intoStore = doctorIntoStore(store);
      const doctor = import('../doctor/doctor.js').then(({ runDoctor }) =>
        runDoctor({
          paths,
          env,
          provider,
          onEvent: (e) => {
            intoStore(e);
            if (e.type === 'started') setImmediate(doctorStarted);
          },
        }),
      );
      void doctor.finally(doctorStarted).catch(() => {});
      const pipeline = async () => {
        await started;
        const [{ pipelineStatus }, { inspectCheckout }] = await Promise.all([import('./pipeline.js'), import('../workspace/checkout.js')]);
        // One publish for both: each home frame is ≈ 10 ms of the main thread while the doctor still answers.
        const [checkout, steps] = await Promise.all([inspectCheckout(paths), pipelineStatus(paths, this.d.profile)]);
        set({ checkout, steps });
      };
      await Promise.all([pipeline(), doctor]);
      set({ loading: false, refreshedAt: Date.now() });
    } catch (err) {
      this.d.flash(`refresh failed: ${(err as Error).message}`, 'error');
      set({ loading: false });
    }
  }
}
