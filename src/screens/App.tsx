// The app shell: header with the screen tabs, the current screen at a fixed height, the footer with the focused
// panel's keys, and overlays (help, quit confirmation, command log). Keys come from binding tables only.
import React, { useMemo, useState, useEffect, useRef } from 'react';
import { Box, useApp, useInput, useStdout, type Key } from 'ink';
import type { AppServices } from '../services/registry/appServices.js';
import { isLazyScreen, type ScreenEntry, type ScreenModule } from './types.js';
import { SCREENS } from './registry.js';
import { useSel, usePolledVersion, useTerminalSize } from '../ui/hooks.js';
import { dispatchKey, intent, isIntent, keysOf, shared, splitEscPrefix, withKeymap, type Binding, type IntentId, type KeyOverrides } from '../ui/keymap.js';
import { KeymapContext } from '../ui/keymapContext.js';
import { ColorContext, T } from '../ui/theme.js';
import { CommandLogPanel, DetailView, Footer, HelpOverlay, QuitConfirm, detailLines, detailRows, helpLines, helpRows, screenHelpSections, tabBarText, type HelpSection } from '../ui/Overlays.js';
import { truncate } from '../ui/text.js';
import { osc52 } from '../ui/clipboard.js';
import { commandLogDetail, commandLogRows } from './commandLogRows.js';

export const MIN_WIDTH = 40;
export const MIN_HEIGHT = 10;
/** A scroll this far is "to the end" (End, G): the overlay then stays at its last row as rows are added. */
const OVERLAY_END = 1e9;

/** An overlay's scroll, and the overlay it was taken in. */
export type OverlayScroll = { overlay: string; scroll: number; atEnd: boolean };

/** Where an overlay opens: the command log on its newest process (following new ones until the cursor moves), the
 * others at their top. */
export function openingScroll(overlay: string): OverlayScroll {
  return { overlay, scroll: 0, atEnd: overlay === 'log' };
}

/** The row an overlay shows, 0..max: a scroll taken in another overlay counts as that overlay's opening place. */
export function scrollPosition(state: OverlayScroll, overlay: string, max: number): number {
  const own = state.overlay === overlay ? state : openingScroll(overlay);
  return own.atEnd ? max : Math.max(0, Math.min(own.scroll, max));
}

/** A scroll by `delta` rows from where the overlay is now; OVERLAY_END or more pins it to the last row. */
export function scrolledBy(state: OverlayScroll, overlay: string, max: number, delta: number): OverlayScroll {
  if (delta >= OVERLAY_END) return { overlay, scroll: max, atEnd: true };
  return { overlay, scroll: Math.max(0, Math.min(max, scrollPosition(state, overlay, max) + delta)), atEnd: false };
}

export interface AppProps {
  services: AppServices;
  screens?: ScreenEntry[];
  /** Fixed size for tests; otherwise the terminal's. */
  size?: { width: number; height: number };
  onExit?: () => void;
  /** Called once, after the first frame has been committed (work that must not delay it starts here). */
  onFirstFrame?: () => void;
  /** Where copied commands go: OSC 52 written to the terminal when it takes it (cli/interactive decides). */
  clipboard?: { osc52: boolean; write?: (bytes: string) => void };
  /**
   * The user's keys (keys.json in the XDG config dir, read by the entry through services/config) and what was wrong
   * with the file: the problems are shown once, as a warning, and every entry they name kept its default keys.
   */
  keymap?: { overrides: KeyOverrides; problems: readonly string[] };
}

/** The intent of a screen's number key: `go.<screen id>`. */
export function goIntent(screenId: string): IntentId {
  const id = `go.${screenId}`;
  if (!isIntent(id)) throw new Error(`screen "${screenId}" has no ${id} intent in src/ui/intents.ts`);
  return id;
}

export function globalBindings(services: AppServices, screens: ScreenEntry[], requestQuit: () => void, panels: number): Binding[] {
  const app = () => services.app.getState();
  return [
    ...screens.map<Binding>((s) => ({ ...intent(goIntent(s.id)), description: s.title, run: () => app().go(s.id), footer: false })),
    { ...intent('panel.next'), run: () => app().cycleFocus(panels, 1), footer: panels > 1 },
    { ...intent('panel.previous'), run: () => app().cycleFocus(panels, -1), footer: false },
    shared('back', 'back', () => app().back(), { footer: false }),
    { ...intent('overlay.log'), description: 'command log', run: () => app().setOverlay(app().overlay === 'log' ? 'none' : 'log') },
    { ...intent('overlay.help'), description: 'help', run: () => app().setOverlay('help') },
    { ...intent('quit'), description: 'quit', run: requestQuit },
  ];
}

/** Keys of the overlays; they own the keyboard while open (and are listed in help like any other table). */
export function overlayBindings(
  services: AppServices,
  screens: ScreenEntry[],
  o: { requestQuit: () => void; quitNow: () => void; scroll: (delta: number) => void; copy: () => void; openLogEntry?: () => void },
): Record<'help' | 'log' | 'detail' | 'quit', Binding[]> {
  const app = () => services.app.getState();
  const close = () => app().setOverlay('none');
  const scrolling = [
    shared('up', 'scroll up', () => o.scroll(-1)),
    shared('down', 'scroll down', () => o.scroll(1)),
    shared('pageUp', 'page up', () => o.scroll(-10)),
    shared('pageDown', 'page down', () => o.scroll(10)),
    shared('first', 'top', () => o.scroll(-OVERLAY_END)),
    shared('last', 'bottom', () => o.scroll(OVERLAY_END)),
  ];
  // A number key still jumps to its screen from an overlay (closing it), as it does everywhere else.
  const jumps = screens.map<Binding>((s) => ({ ...intent(goIntent(s.id)), description: s.title, run: () => (close(), app().go(s.id)), footer: false }));
  const quit: Binding = { ...intent('quit'), description: 'quit', run: o.requestQuit };
  return {
    help: [...scrolling, shared('back', 'close help', close), { ...intent('overlay.help'), description: 'close help (toggle)', run: close }, ...jumps, quit],
    detail: [
      ...scrolling,
      shared('copy', 'copy the command (OSC 52)', o.copy, { when: () => Boolean(app().detail?.copy) }),
      shared('back', 'close', close),
      shared('view', 'close (toggle)', close),
      ...jumps,
      quit,
    ],
    log: [
      shared('up', 'previous process', () => o.scroll(-1)),
      shared('down', 'next process', () => o.scroll(1)),
      shared('pageUp', 'page up', () => o.scroll(-10)),
      shared('pageDown', 'page down', () => o.scroll(10)),
      shared('first', 'oldest', () => o.scroll(-OVERLAY_END)),
      shared('last', 'newest (follows new processes)', () => o.scroll(OVERLAY_END)),
      shared('open', 'the process whole: argv, exit, duration, times', () => o.openLogEntry?.()),
      shared('view', 'the process whole', () => o.openLogEntry?.()),
      shared('back', 'close the command log', close),
      { ...intent('overlay.log'), description: 'close the command log (toggle)', run: close },
      ...jumps,
      quit,
    ],
    quit: [
      shared('confirm', 'quit (stops running jobs)', o.quitNow),
      { ...intent('quit'), description: 'quit (q again)', run: o.quitNow },
      shared('cancel', 'stay', close),
      shared('back', 'stay', close),
    ],
  };
}

function keymapped<K extends string>(tables: Record<K, Binding[]>, overrides: KeyOverrides | undefined): Record<K, Binding[]> {
  return Object.fromEntries(Object.entries<Binding[]>(tables).map(([k, v]) => [k, withKeymap(v, overrides)])) as Record<K, Binding[]>;
}

/** How long a flash message stays in the status line. */
export const FLASH_MS = 8000;

export function App({ services, screens = SCREENS, size, onExit, onFirstFrame, clipboard, keymap }: AppProps) {
  const overrides = keymap?.overrides;
  const { exit } = useApp();
  const { stdout } = useStdout();
  // An overlay's scroll (in the command log: the cursor, a process's index) belongs to the overlay it was taken in:
  // another overlay starts from its own opening place, in the same frame, with no effect to wait for (a key pressed
  // before an effect ran used to be undone by it). End/G pins it to the last row: rows that arrive later (a doctor
  // answer adds a key, a new process) keep it at the bottom.
  // Keys read and move it through the ref (two keys in one read both count); the state draws it.
  const [scrollState, setScrollState] = useState<OverlayScroll>(openingScroll('none'));
  const scrollRef = useRef(scrollState);
  const setScroll = (next: OverlayScroll) => {
    scrollRef.current = next;
    setScrollState(next);
  };
  // An overlay opened (or another one) starts from its opening place, from the store's own change (no frame between).
  useEffect(() => services.app.subscribe((s, prev) => void (s.overlay !== prev.overlay && setScroll(openingScroll(s.overlay)))), [services]);
  // How far the overlay open now scrolls, as of the last frame's content (a key may come before the next frame).
  const maxScrollOfRef = useRef<(overlay: string) => number>(() => 0);
  const win = useTerminalSize();
  const width = size?.width ?? win.columns;
  const height = size?.height ?? win.rows;
  const screenId = useSel(services.app, (s) => s.screen);
  const overlay = useSel(services.app, (s) => s.overlay);
  const focus = useSel(services.app, (s) => s.focus);
  const captured = useSel(services.app, (s) => s.inputCaptured);
  const flash = useSel(services.app, (s) => s.flash);
  const detail = useSel(services.app, (s) => s.detail);
  const jobs = useSel(services.jobs, (s) => s.jobs);
  // Only the log overlay draws the command log: closed, a process started or ended (the doctor's, a GPU poll's every
  // 2 s) would redraw the whole console for nothing (≈ 5–10 ms of the main thread a frame at start-up).
  const logVersion = usePolledVersion(() => services.commandLog.version, 5, overlay === 'log');
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (overlay !== 'log') return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [overlay]);

  useEffect(() => {
    if (onFirstFrame) setTimeout(onFirstFrame, 0);
    if (keymap?.problems.length) services.app.getState().setFlash(`${keymap.problems.join('; ')} (swegym-console keys shows the keys in use)`, 'warn');
  }, []);
  // A flash is news for FLASH_MS: redraw when it expires, or a screen that redraws only itself (the dashboard) would
  // keep showing it (`training run still running: …` over a header that says crashed).
  const [, setFlashExpired] = useState(0);
  useEffect(() => {
    if (!flash) return;
    const t = setTimeout(() => setFlashExpired((n) => n + 1), Math.max(0, flash.at + FLASH_MS - Date.now()) + 50);
    return () => clearTimeout(t);
  }, [flash]);

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
  const screenBindings = useMemo(() => (screen ? withKeymap(screen.bindings(services), overrides) : []), [screen, services, overrides]);
  const fieldSections = useMemo(() => (screen?.fields ? screen.fields(services).map((f) => ({ ...f, bindings: withKeymap(f.bindings, overrides) })) : []), [screen, services, overrides]);
  const global = useMemo(() => withKeymap(globalBindings(services, screens, requestQuit, entry.panels.length), overrides), [services, screens, entry, overrides]);

  const overlays = useMemo(
    () =>
      keymapped(overlayBindings(services, screens, {
        requestQuit,
        quitNow: () => {
          for (const job of Object.values(services.jobs.getState().jobs)) job.cancel?.();
          quit();
        },
        scroll: (delta) => {
          const open = services.app.getState().overlay;
          setScroll(scrolledBy(scrollRef.current, open, maxScrollOfRef.current(open), delta));
        },
        copy: () => {
          const text = services.app.getState().detail?.copy?.text;
          if (!text) return;
          if (clipboard?.osc52) {
            (clipboard.write ?? ((b: string) => stdout.write(b)))(osc52(text));
            services.app.getState().setFlash('copied to the clipboard (OSC 52); if nothing arrived, the command is shown in full above');
          } else services.app.getState().setFlash('this terminal cannot take OSC 52: select the command shown in full above', 'warn');
        },
        openLogEntry: () => {
          const entries = services.commandLog.entries();
          const e = entries[scrollPosition(scrollRef.current, 'log', entries.length - 1)];
          if (!e) return;
          services.app.getState().openDetail(commandLogDetail(e, Date.now()));
        },
      }), overrides),
    [services, screens, overrides],
  );
  const bodyHeight = height - 3;
  const helpSections = useMemo<HelpSection[]>(() => [
    ...screenHelpSections(`${entry.title} keys`, screenBindings),
    ...fieldSections,
    { title: 'Everywhere', bindings: global },
    { title: 'Detail view (v / Enter on a row)', bindings: overlays.detail.filter((b) => !b.intent.startsWith('go.')) },
    { title: 'Help', bindings: overlays.help.filter((b) => !b.intent.startsWith('go.')) },
    { title: 'Command log (L)', bindings: overlays.log.filter((b) => !b.intent.startsWith('go.')) },
    { title: 'Quit question', bindings: overlays.quit },
  ], [entry, screenBindings, fieldSections, global, overlays]);
  // Scrolling stops at the last row (so that scrolling back up answers at once).
  const maxScrollOf = (open: string) => {
    const shown = services.app.getState().detail;
    return open === 'help'
      ? Math.max(0, helpLines(helpSections).length - helpRows(bodyHeight))
      : open === 'detail' && shown
        ? Math.max(0, detailLines(shown, width - 4).length - detailRows(bodyHeight))
        : open === 'log'
          ? Math.max(0, services.commandLog.entries().length - 1)
          : 0;
  };
  maxScrollOfRef.current = maxScrollOf;
  const overlayScroll = scrollPosition(scrollState, overlay, maxScrollOf(overlay));

  // A disabled action's keys say why it cannot run now.
  const disabled = (reason: string, b: Binding) => services.app.getState().setFlash(`${b.description}: ${reason}`, 'warn');
  const handleKey = (input: string, key: Key) => {
    const state = services.app.getState();
    if (state.overlay !== 'none') {
      dispatchKey(overlays[state.overlay], input, key, disabled);
      return;
    }
    // A text field owns the keyboard; the screen handles its own keys (Esc releases it).
    if (state.inputCaptured) return;
    // Screen keys first so that a screen may use Esc/Enter for its own panels; then global keys.
    if (dispatchKey(screenBindings, input, key, disabled)) return;
    dispatchKey(global, input, key, disabled);
  };
  useInput((input, key) => {
    // Esc and a key pressed together arrive as Alt+key: handle them as the two keys they were.
    const split = services.app.getState().inputCaptured ? undefined : splitEscPrefix(input, key);
    if (split) for (const [k, i] of split) handleKey(i, k);
    else handleKey(input, key);
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

  const runningJobs = Object.values(jobs);
  const jobText = runningJobs.length
    ? runningJobs.map((j) => `${j.title}${j.progress ? ` ${j.progress.done}/${j.progress.total}` : ''}`).join(', ')
    : '';
  const footerBindings = [...screenBindings, ...global];
  const recentFlash = flash && Date.now() - flash.at < FLASH_MS ? flash : undefined;
  void logVersion;

  return (
    <ColorContext.Provider value={colorEnabled}>
      <KeymapContext.Provider value={overrides}>
      <Box flexDirection="column" width={width} height={height} overflow="hidden">
        <Box height={1} width={width}>
          <T>{tabBarText(screens.map((s) => ({ title: s.title, hotkey: keysOf(goIntent(s.id), overrides)[0] ?? '' })), entry.title, width)}</T>
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
            <HelpOverlay width={width} height={bodyHeight} sections={helpSections} scroll={overlayScroll} closeHint={`${keysOf('back', overrides)[0]} or ${keysOf('overlay.help', overrides)[0]} closes this help`} />
          ) : overlay === 'detail' && detail ? (
            <DetailView detail={detail} width={width} height={bodyHeight} scroll={overlayScroll} />
          ) : overlay === 'quit' ? (
            <QuitConfirm width={width} jobs={runningJobs.map((j) => j.title)} answers={`${keysOf('confirm', overrides)[0]} / ${keysOf('quit', overrides)[0]} quit · ${keysOf('cancel', overrides)[0]} / ${keysOf('back', overrides)[0]} stay`} />
          ) : overlay === 'log' ? (
            <CommandLogPanel rows={commandLogRows(services.commandLog.entries(), now)} width={width} height={bodyHeight} selected={overlayScroll} />
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
      </KeymapContext.Provider>
    </ColorContext.Provider>
  );
}
