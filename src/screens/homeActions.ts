// Home refresh: pipeline from disk, then the doctor (concurrent checks with timeouts).
import type { AppServices } from './services.js';

export async function refreshHome(services: AppServices): Promise<void> {
  const { set } = services.home.getState();
  set({ loading: true });
  try {
    // Loaded here, after the first frame, rather than with the home screen.
    const [{ pipelineStatus }, { runDoctor }, { inspectCheckout }] = await Promise.all([
      import('../services/pipeline/pipeline.js'),
      import('../services/doctor/doctor.js'),
      import('../services/workspace/checkout.js'),
    ]);
    set({ checkout: await inspectCheckout(services.paths) });
    const steps = await pipelineStatus(services.paths);
    set({ steps });
    const checks = await runDoctor({ paths: services.paths, env: services.env, provider: services.global.provider });
    set({ checks, loading: false, refreshedAt: Date.now() });
  } catch (err) {
    services.app.getState().setFlash(`refresh failed: ${(err as Error).message}`, 'error');
    set({ loading: false });
  }
}
