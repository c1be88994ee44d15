// The user's key overrides, for the components that dispatch keys of their own (the dashboard's pickers); the app
// shell provides them and applies them to every table it dispatches itself.
import { createContext, useContext } from 'react';
import type { KeyOverrides } from './keymap.js';

export const KeymapContext = createContext<KeyOverrides | undefined>(undefined);

export function useKeyOverrides(): KeyOverrides | undefined {
  return useContext(KeymapContext);
}
