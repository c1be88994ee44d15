// The app shell: header with the screen tabs, the current screen at a fixed height, the footer with the focused
// panel's keys, and overlays (help, quit confirmation, command log). Keys come from binding tables only.
import React, { useMemo, useState, useEffect } from 'react';
import { Box, useApp, useInput, useWindowSize } from 'ink';
import type { AppServices } from './services.js';
import { isLazyScreen, type ScreenEntry, type ScreenModule } from './types.js';
import { SCREENS } from './registry.js';
import { useSel, usePolledVersion } from '../ui/hooks.js';
import { dispatchKey, is, type Binding } from '../ui/keymap.js';
import { ColorContext, T } from '../ui/theme.js';
import { CommandLogPanel, Footer, HelpOverlay, QuitConfirm } from '../ui/Overlays.js';
import { truncate } from '../ui/text.js';

export const MIN_WIDTH = 40;
export const MIN_HEIGHT = 10;

export interface AppProps {
  services: AppServices;
  screens?: ScreenEntry[];
  /** Fixed size for tests; otherwise the terminal's. */
  size?: { width: number; height: number };
  onExit?: () => void;
  /** Called once, after the first frame has been committed (work that must not delay it starts here). */
  onFirstFrame?: () => void;
}

export function globalBindings(services: AppServices, screens: ScreenEntry[], requestQuit: () => void, panels: number): Binding[] {
  const app = () => services.app.getState();
  return [
    ...screens.map<Binding>((s) => ({
      keys: [s.hotkey],
      description: s.title,
      match: is.char(s.hotkey),
      run: () => app().go(s.id),
      footer: false,
    })),
    { keys: ['Tab'], description: 'next panel', match: is.tab, run: () => app().cycleFocus(panels, 1), footer: panels > 1 },
    { keys: ['Shift-Tab'], description: 'previous panel', match: is.shiftTab, run: () => app().cycleFocus(panels, -1), footer: false },
    { keys: ['Esc'], description: 'back', match: is.escape, run: () => app().back(), footer: false },
    { keys: ['L'], description: 'command log', match: is.char('L'), run: () => app().setOverlay(app().overlay === 'log' ? 'none' : 'log') },
    { keys: ['?'], description: 'help', match: is.char('?'), run: () => app().setOverlay('help') },
    { keys: ['q', 'Ctrl-C'], description: 'quit', match: (input, key) => is.char('q')(input, key) || (key.ctrl && input === 'c'), run: requestQuit },
  ];
}

export function App({ services, screens = SCREENS, size, onExit, onFirstFrame }: AppProps) {
  const { exit } = useApp();
  const win = useWindowSize();
  const width = size?.width ?? win.columns;
  const height = size?.height ?? win.rows;
  const screenId = useSel(services.app, (s) => s.screen);
  const overlay = useSel(services.app, (s) => s.overlay);
  const focus = useSel(services.app, (s) => s.focus);
  const captured = useSel(services.app, (s) => s.inputCaptured);
  const flash = useSel(services.app, (s) => s.flash);
  const jobs = useSel(services.jobs, (s) => s.jobs);
  const logVersion = usePolledVersion(() => services.commandLog.version, 5);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (overlay !== 'log') return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [overlay]);

  useEffect(() => {
    if (onFirstFrame) setTimeout(onFirstFrame, 0);
  }, []);

  const entry = screens.find((s) => s.id === screenId) ?? (screens[0] as ScreenEntry);
  // Lazy screens load on first visit; until then the shell shows a one-line loading frame with global keys only.
  const [loaded, setLoaded] = useState<Record<string, ScreenModule | { error: string }>>({});
  const slot = isLazyScreen(entry) ? loaded[entry.id] : entry;
  const screen = slot && 'Component' in slot ? slot : undefined;
  const loadError = slot && 'error' in slot ? slot.error : undefined;
  useEffect(() => {
    // Coming back to a screen whose code failed to load tries again.
    if (isLazyScreen(entry) && loaded[entry.id] && 'error' in (loaded[entry.id] as object)) {
      setLoaded((prev) => Object.fromEntries(Object.entries(prev).filter(([id]) => id !== entry.id)));
    }
  }, [entry]);
  useEffect(() => {
    if (!isLazyScreen(entry) || loaded[entry.id]) return;
    let live = true;
    // The screen's code and the domain services it uses (created after the first frame) arrive together.
    Promise.all([entry.load(), services.whenReady()]).then(
      ([module]) => live && setLoaded((prev) => ({ ...prev, [entry.id]: module })),
      (err: unknown) => live && setLoaded((prev) => ({ ...prev, [entry.id]: { error: err instanceof Error ? err.message : String(err) } })),
    );
    return () => {
      live = false;
    };
  }, [entry, loaded, services]);
  const quit = () => {
    services.dispose();
    onExit?.();
    exit();
  };
  const requestQuit = () => {
    if (Object.keys(services.jobs.getState().jobs).length > 0) services.app.getState().setOverlay('quit');
    else quit();
  };
  const exitRequest = useSel(services.app, (s) => s.exitRequest);
  useEffect(() => {
    if (exitRequest) quit();
  }, [exitRequest]);
  const screenBindings = useMemo(() => (screen ? screen.bindings(services) : []), [screen, services]);
  const global = useMemo(() => globalBindings(services, screens, requestQuit, entry.panels.length), [services, screens, entry]);

  useInput((input, key) => {
    const state = services.app.getState();
    if (state.overlay === 'quit') {
      if (input === 'y' || input === 'Y') {
        for (const job of Object.values(services.jobs.getState().jobs)) job.cancel?.();
        quit();
      } else if (input === 'n' || input === 'N' || key.escape || input === 'q') state.setOverlay('none');
      return;
    }
    if (state.overlay === 'help' || state.overlay === 'log') {
      if (key.escape || input === '?' || (state.overlay === 'log' && input === 'L')) state.setOverlay('none');
      else if (input === 'q') requestQuit();
      return;
    }
    // A text field owns the keyboard; the screen handles its own keys (Esc releases it).
    if (state.inputCaptured) return;
    // Screen keys first so that a screen may use Esc/Enter for its own panels; then global keys.
    if (dispatchKey(screenBindings, input, key)) return;
    dispatchKey(global, input, key);
  });

  const colorEnabled = services.global.color;
  if (width < MIN_WIDTH || height < MIN_HEIGHT) {
    return (
      <ColorContext.Provider value={colorEnabled}>
        <Box width={width} height={height} flexDirection="column">
          <T tone="warn">{truncate(`Terminal too small (${width}x${height}); need ${MIN_WIDTH}x${MIN_HEIGHT}.`, width)}</T>
          <T tone="dim">{truncate('Enlarge the window, or q to quit.', width)}</T>
        </Box>
      </ColorContext.Provider>
    );
  }

  const tabs = screens.map((s) => `${s.hotkey} ${s.title}`);
  const runningJobs = Object.values(jobs);
  const jobText = runningJobs.length
    ? runningJobs.map((j) => `${j.title}${j.progress ? ` ${j.progress.done}/${j.progress.total}` : ''}`).join(', ')
    : '';
  const bodyHeight = height - 3;
  const footerBindings = [...screenBindings, ...global];
  const recentFlash = flash && Date.now() - flash.at < 8000 ? flash : undefined;
  void logVersion;

  return (
    <ColorContext.Provider value={colorEnabled}>
      <Box flexDirection="column" width={width} height={height} overflow="hidden">
        <Box height={1} width={width}>
          <T bold tone="accent">swegym-console </T>
          <T>{truncate(tabs.map((t) => (t.slice(2) === entry.title ? `[${t}]` : ` ${t} `)).join(''), Math.max(0, width - 15))}</T>
        </Box>
        <Box height={1} width={width}>
          <T tone={recentFlash ? (recentFlash.tone === 'error' ? 'fail' : recentFlash.tone === 'warn' ? 'warn' : 'info') : 'dim'}>
            {truncate(
              recentFlash?.text ??
                `${services.sampleLabel ? 'SAMPLE WORKSPACE (not SWE-Gym) · ' : ''}${services.global.provider === 'local' ? 'provider: local (bubblewrap)' : 'provider: e2b'} · ${entry.panels.length > 1 ? `panel: ${entry.panels[focus] ?? ''} · ` : ''}${jobText ? `running: ${jobText}` : 'no jobs running'}`,
              width,
            )}
          </T>
        </Box>
        <Box height={bodyHeight} width={width} overflow="hidden">
          {overlay === 'help' ? (
            <HelpOverlay
              width={width}
              height={bodyHeight}
              sections={[
                { title: `${entry.title} keys`, bindings: screenBindings },
                { title: 'Everywhere', bindings: global },
              ]}
            />
          ) : overlay === 'quit' ? (
            <QuitConfirm width={width} jobs={runningJobs.map((j) => j.title)} />
          ) : overlay === 'log' ? (
            <CommandLogPanel entries={services.commandLog.entries()} width={width} height={bodyHeight} now={now} />
          ) : screen ? (
            <screen.Component services={services} width={width} height={bodyHeight} focus={focus} />
          ) : loadError ? (
            <T tone="fail">{truncate(`${entry.title} could not be loaded: ${loadError} (open it again to retry)`, width)}</T>
          ) : (
            <T tone="dim">{truncate(`loading ${entry.title}…`, width)}</T>
          )}
        </Box>
        <Footer width={width} bindings={footerBindings} hint={captured ? 'typing — Esc to leave the field' : undefined} />
      </Box>
    </ColorContext.Provider>
  );
}
