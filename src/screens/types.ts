// The contract between the app shell and each screen. A screen renders from stores through narrow selectors and
// calls service actions; it never spawns processes or holds business logic.
import type { ComponentType } from 'react';
import type { Binding } from '../ui/keymap.js';
import type { AppServices } from '../services/registry/appServices.js';

export interface ScreenProps {
  services: AppServices;
  width: number;
  height: number;
  /** Index of the focused panel (Tab cycles through `panels`). */
  focus: number;
}

/** What the shell needs to list a screen (tabs, hotkeys, Tab cycling) before its code is loaded. */
export interface ScreenInfo {
  id: string;
  title: string;
  /** Number key that jumps here. */
  hotkey: string;
  /** Panel names, for Tab cycling and the footer. */
  panels: string[];
}

export interface ScreenModule extends ScreenInfo {
  Component: ComponentType<ScreenProps>;
  /** Screen keys; built once per services instance. Shown in the footer and the help overlay. */
  bindings: (services: AppServices) => Binding[];
  /**
   * Keys of the screen's text fields and pickers, which own the keyboard while open: each field dispatches its own
   * table, and help lists it, so every key the screen answers is in help.
   */
  fields?: (services: AppServices) => { title: string; bindings: Binding[] }[];
}

/** A screen whose code (component, bindings and the services they import) loads when it is first opened. */
export interface LazyScreen extends ScreenInfo {
  load: () => Promise<ScreenModule>;
}

export type ScreenEntry = ScreenModule | LazyScreen;

export function isLazyScreen(entry: ScreenEntry): entry is LazyScreen {
  return 'load' in entry && typeof entry.load === 'function';
}
