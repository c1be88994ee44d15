// Home refresh: pipeline from disk, then the doctor (concurrent checks with timeouts).
import type { AppServices } from './services.js';
import { pipelineStatus } from '../services/workspace/pipeline.js';
import { runDoctor } from '../services/doctor/doctor.js';

export async function refreshHome(services: AppServices): Promise<void> {
  const { set } = services.home.getState();
  set({ loading: true });
  try {
    const steps = await pipelineStatus(services.paths);
    set({ steps });
    const checks = await runDoctor({ paths: services.paths, env: process.env, provider: services.global.provider });
    set({ checks, loading: false, refreshedAt: Date.now() });
  } catch (err) {
    services.app.getState().setFlash(`refresh failed: ${(err as Error).message}`, 'error');
    set({ loading: false });
  }
}
