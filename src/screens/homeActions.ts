// Home refresh: the pipeline from disk and the doctor, side by side. The doctor's answers go into the home store as
// they arrive (each replaces its pending row), at most 10 times a second so that a burst of answers is one frame.
import type { AppServices } from './services.js';
import type { HomeStore } from '../state/home.js';
import type { DoctorCheck, PendingCheck } from '../services/doctor/types.js';
import type { DoctorJobEvent } from '../services/doctor/doctor.js';

const PUBLISH_MS = 100;

/**
 * The doctor job's listener on the screen's side: its events into the home store. An answer is published at once
 * when none was in the last 100 ms, else with the others of that window (≤ 10 frames a second).
 */
export function doctorIntoStore(home: HomeStore): (event: DoctorJobEvent) => void {
  let pending: PendingCheck[] = [];
  const answered = new Map<string, DoctorCheck[]>();
  let timer: NodeJS.Timeout | undefined;
  let lastAnswerAt = -Infinity;
  const publish = () => {
    clearTimeout(timer);
    timer = undefined;
    home.getState().set({ checks: pending.flatMap((p) => answered.get(p.id) ?? []), pendingChecks: pending.filter((p) => !answered.has(p.id)) });
  };
  return (e) => {
    if (e.type === 'started') {
      pending = e.pending;
      answered.clear();
      publish();
    } else if (e.type === 'result') {
      answered.set(e.id, e.checks);
      if (timer) return;
      const wait = lastAnswerAt + PUBLISH_MS - Date.now();
      if (wait <= 0) {
        lastAnswerAt = Date.now();
        // After the other answers of this tick (the checks that need no I/O answer together).
        timer = setTimeout(publish, 0);
      } else {
        timer = setTimeout(() => {
          lastAnswerAt = Date.now();
          publish();
        }, wait);
      }
    } else {
      clearTimeout(timer);
      timer = undefined;
      // The final list is the job's own (the same order); nothing is pending any more.
      home.getState().set({ checks: e.checks, pendingChecks: [] });
    }
  };
}

export async function refreshHome(services: AppServices): Promise<void> {
  const { set } = services.home.getState();
  set({ loading: true });
  try {
    // Loaded here, after the first frame, rather than with the home screen; the doctor starts as soon as its own
    // module is in (its probe process is the slowest part), the pipeline when its modules are.
    // The pipeline's modules and disk reads wait until the doctor has started its checks (its processes then run
    // beside them on other cores), rather than delaying the doctor's start on the one main thread.
    let doctorStarted!: () => void;
    const started = new Promise<void>((resolve) => (doctorStarted = resolve));
    const intoStore = doctorIntoStore(services.home);
    const doctor = import('../services/doctor/doctor.js').then(({ runDoctor }) =>
      runDoctor({
        paths: services.paths,
        env: services.env,
        provider: services.global.provider,
        onEvent: (e) => {
          intoStore(e);
          if (e.type === 'started') setImmediate(doctorStarted);
        },
      }),
    );
    void doctor.finally(doctorStarted).catch(() => {});
    const pipeline = async () => {
      await started;
      const [{ pipelineStatus }, { inspectCheckout }] = await Promise.all([import('../services/pipeline/pipeline.js'), import('../services/workspace/checkout.js')]);
      set({ checkout: await inspectCheckout(services.paths) });
      set({ steps: await pipelineStatus(services.paths) });
    };
    await Promise.all([pipeline(), doctor]);
    set({ loading: false, refreshedAt: Date.now() });
  } catch (err) {
    services.app.getState().setFlash(`refresh failed: ${(err as Error).message}`, 'error');
    set({ loading: false });
  }
}
