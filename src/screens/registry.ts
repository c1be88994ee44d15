// Every screen of the console, in number-key order. Only the home screen is loaded with the first frame; the
// others (and the services their code imports) load on first use, so start-up stays close to bare node's.
import { isLazyScreen, type LazyScreen, type ScreenEntry, type ScreenInfo, type ScreenModule } from './types.js';
import { homeScreen } from './HomeScreen.js';

/** A lazily loaded screen; `load` checks that the module matches the info the shell showed before loading it. */
export function lazyScreen(info: ScreenInfo, importModule: () => Promise<ScreenModule>): LazyScreen {
  let pending: Promise<ScreenModule> | undefined;
  const load = () =>
    (pending ??= importModule().then((module) => {
      const same = module.id === info.id && module.title === info.title && module.hotkey === info.hotkey && module.panels.join('\n') === info.panels.join('\n');
      if (!same) {
        throw new Error(
          `screen "${info.id}": the registry lists ${JSON.stringify(info)} but its module declares ` +
            JSON.stringify({ id: module.id, title: module.title, hotkey: module.hotkey, panels: module.panels }),
        );
      }
      return module;
    })).catch((err: unknown) => {
      pending = undefined; // a failed import may be retried on the next visit
      throw err;
    });
  return { ...info, load };
}

export const SCREENS: ScreenEntry[] = [
  homeScreen,
  lazyScreen({ id: 'data', title: 'Data', hotkey: '2', panels: ['tasks', 'summary'] }, async () => (await import('./DataScreen.js')).dataScreen),
  lazyScreen({ id: 'templates', title: 'Templates', hotkey: '3', panels: ['templates'] }, async () => (await import('./TemplatesScreen.js')).templatesScreen),
  lazyScreen({ id: 'convert', title: 'Convert', hotkey: '4', panels: ['form'] }, async () => (await import('./ConvertScreen.js')).convertScreen),
  lazyScreen({ id: 'validate', title: 'Validate', hotkey: '5', panels: ['matrix'] }, async () => (await import('./ValidateScreen.js')).validateScreen),
  lazyScreen({ id: 'train', title: 'Train', hotkey: '6', panels: ['settings', 'derived', 'runs'] }, async () => (await import('./TrainScreen.js')).trainScreen),
  lazyScreen(
    { id: 'dashboard', title: 'Dashboard', hotkey: '7', panels: ['charts', 'rollouts', 'samples', 'sandboxes', 'gpus', 'tasks', 'trajectories'] },
    async () => (await import('./DashboardScreen.js')).dashboardScreen,
  ),
];

export function screenById(id: string): ScreenEntry {
  return SCREENS.find((s) => s.id === id) ?? (SCREENS[0] as ScreenEntry);
}

/** Loads a screen's module (at once for an eager one). */
export async function loadScreen(entry: ScreenEntry): Promise<ScreenModule> {
  return isLazyScreen(entry) ? entry.load() : entry;
}
