// A one-line text field with the rules of ui/fieldEditing.ts. The value lives where the screen keeps it (a store);
// the field reports every edit (`onChange`, so filters narrow as one types), Enter (`onSubmit`) and Esc
// (`onCancel`, after `onChange` has put the value from before editing back). While `active` it owns the keyboard
// (typed keys and bracketed paste); the screen tells App to suspend global keys (setInputCaptured).
import React, { useReducer, useRef } from 'react';
import { useInput, usePaste } from 'ink';
import { T, type Tone } from './theme.js';
import { displayWidth, graphemes, truncate } from './text.js';
import { DEFAULT_MAX_LENGTH, applyKey, beginEdit, fieldText, insertText, type FieldState } from './fieldEditing.js';

export interface TextFieldOptions {
  active: boolean;
  value: string;
  onChange(value: string): void;
  onSubmit(value: string): void;
  onCancel(): void;
  maxLength?: number;
  secret?: boolean;
  /** Columns the field has on its line: a longer value scrolls so that the cursor stays in view. */
  room?: number;
}

/** Handles the keys while `active` and returns the field as text (cursor, length indicator, secret masking). */
export function useTextField(opts: TextFieldOptions): string {
  const maxLength = opts.maxLength ?? DEFAULT_MAX_LENGTH;
  const state = useRef<FieldState>(beginEdit(opts.value));
  const wasActive = useRef(false);
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  // Editing begins: the cursor goes to the end and Esc will come back to this value.
  if (opts.active && !wasActive.current) state.current = beginEdit(opts.value);
  wasActive.current = opts.active;
  // The value changed from outside (a reset, another key's action): follow it.
  if (state.current.value !== opts.value) state.current = { ...state.current, value: opts.value, cursor: Math.min(state.current.cursor, graphemes(opts.value).length), cut: false };

  const commit = (next: FieldState, action?: 'submit' | 'cancel') => {
    const changed = next.value !== state.current.value;
    state.current = next;
    if (changed) opts.onChange(next.value);
    if (action === 'submit') opts.onSubmit(next.value);
    else if (action === 'cancel') opts.onCancel();
    redraw();
  };
  useInput(
    (input, key) => {
      const out = applyKey(state.current, input, key, { maxLength });
      commit(out.state, out.action);
    },
    { isActive: opts.active },
  );
  usePaste((text) => commit(insertText(state.current, text, { maxLength })), { isActive: opts.active });
  return fieldText(state.current, { maxLength, secret: opts.secret, editing: opts.active, room: opts.room });
}

/** The field on a line of its own: `label`, the field, then `suffix`, cut to `width`. */
export function TextField({ label = '', suffix = '', width, tone, ...opts }: TextFieldOptions & { label?: string; suffix?: string; width: number; tone?: Tone }) {
  const text = useTextField({ ...opts, room: opts.room ?? Math.max(2, width - displayWidth(label) - displayWidth(suffix)) });
  return <T tone={tone ?? (opts.active ? 'accent' : 'plain')}>{truncate(`${label}${text}${suffix}`, width)}</T>;
}
