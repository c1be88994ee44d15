// App-level UI state: which screen, which overlay, whether a text field owns the keyboard, transient messages.
import { createStore } from 'zustand/vanilla';

export type Overlay = 'none' | 'help' | 'quit' | 'log' | 'detail';

/** A row shown whole (wrapped) in the detail overlay, with an optional command to copy. */
export interface DetailContent {
  title: string;
  lines: { text: string; tone?: 'ok' | 'warn' | 'fail' | 'info' | 'dim' | 'accent' | 'plain' }[];
  copy?: { label: string; text: string };
}

export interface AppState {
  screen: string;
  previousScreens: string[];
  overlay: Overlay;
  /** Focused panel index within the current screen (Tab cycles). */
  focus: number;
  /** True while a text input (filter, form field) owns the keyboard: global keys are suspended except Esc. */
  inputCaptured: boolean;
  flash?: { text: string; tone: 'info' | 'warn' | 'error'; at: number };
  /** What the detail overlay shows (set with openDetail). */
  detail?: DetailContent;
  /** Set when a key asks the console to close and hand over to a headless command (the offline demo). */
  /** 'demo': start the demo after quitting; 'end': just quit (a signal asked the console to end). */
  exitRequest?: { then: 'demo' | 'end' };
  go(screen: string): void;
  back(): void;
  setOverlay(overlay: Overlay): void;
  openDetail(detail: DetailContent): void;
  cycleFocus(panels: number, delta?: number): void;
  setInputCaptured(on: boolean): void;
  setFlash(text: string, tone?: 'info' | 'warn' | 'error'): void;
  requestExit(then: 'demo' | 'end'): void;
}

export function createAppStore(initialScreen = 'home') {
  return createStore<AppState>()((set, get) => ({
    screen: initialScreen,
    previousScreens: [],
    overlay: 'none',
    focus: 0,
    inputCaptured: false,
    go(screen) {
      const { screen: current, previousScreens } = get();
      if (screen === current) return;
      set({ screen, previousScreens: [...previousScreens, current].slice(-20), focus: 0, inputCaptured: false });
    },
    back() {
      const stack = get().previousScreens;
      const prev = stack[stack.length - 1];
      if (prev) set({ screen: prev, previousScreens: stack.slice(0, -1), focus: 0, inputCaptured: false });
    },
    setOverlay(overlay) {
      set({ overlay });
    },
    openDetail(detail) {
      set({ detail, overlay: 'detail' });
    },
    cycleFocus(panels, delta = 1) {
      if (panels <= 1) return;
      set({ focus: (get().focus + delta + panels) % panels });
    },
    setInputCaptured(on) {
      set({ inputCaptured: on });
    },
    setFlash(text, tone = 'info') {
      set({ flash: { text, tone, at: Date.now() } });
    },
    requestExit(then) {
      set({ exitRequest: { then } });
    },
  }));
}

export type AppStore = ReturnType<typeof createAppStore>;
