// The run registry as the console shows it: the Train store's run list, and at start-up the runs an earlier console
// launched (they are detached: a disconnect, a crash or a reboot of the terminal leaves them running). Services
// publish into the stores; the Train screen's actions and the composition root (src/app/domain.ts) call this.
import type { RecipePaths } from '../workspace/paths.js';
import type { AppStore } from '../../state/app.js';
import type { TrainStore } from '../../state/train.js';
import type { MonitorStore } from '../../state/monitor.js';
import { listRuns } from './registry.js';
import { redact } from '../secrets.js';

export interface RunListDeps {
  paths: RecipePaths;
  /** The console's environment (what a message is redacted against); never kept in a store. */
  env: NodeJS.ProcessEnv;
  train: TrainStore;
  app: AppStore;
}

export interface RunDiscoveryDeps extends RunListDeps {
  /** The dashboard's monitor: a console started while a run goes opens onto it. */
  monitor: { store: MonitorStore; open(arg?: string): Promise<void> };
}

function flash(d: RunListDeps, text: string, tone: 'info' | 'error'): void {
  d.app.getState().setFlash(redact(text, d.env), tone);
}

/** Re-reads the registry into the Train store (keeping the selection in range). */
export async function refreshRuns(d: RunListDeps): Promise<void> {
  try {
    const runs = await listRuns(d.paths);
    const { runSelected } = d.train.getState();
    d.train.getState().set({ runs, runSelected: Math.min(runSelected, Math.max(0, runs.length - 1)) });
  } catch (err) {
    flash(d, `run registry unreadable: ${(err as Error).message}`, 'error');
  }
}

/**
 * At start-up: reads the run registry so that runs launched by an earlier console are found again, and says so.
 * Returns the active ones; the dashboard opens on the first unless the operator already moved.
 */
export async function discoverRuns(d: RunDiscoveryDeps): Promise<string[]> {
  await refreshRuns(d);
  const active = d.train.getState().runs.filter((r) => r.status === 'running' || r.status === 'starting');
  if (active.length > 0) {
    const names = active.map((r) => r.name).join(', ');
    flash(d, `training ${active.length === 1 ? 'run' : 'runs'} still ${active[0]?.status}: ${names} (6 Train lists runs, 7 Dashboard)`, 'info');
    const app = d.app.getState();
    if (app.screen === 'home' && app.previousScreens.length === 0 && d.monitor.store.getState().status === 'idle') {
      void d.monitor.open(active[0]?.name);
      app.go('dashboard');
    }
  }
  return active.map((r) => r.name);
}
