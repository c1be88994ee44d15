// Convert screen state: the converter form, the phase, the converter's output (capped), notices, the verification
// report and the row preview. The convert controller publishes here at most 10 times a second.
import { createStore } from 'zustand/vanilla';
import type { VerifyReport, RowPreview, ConvertPhase } from './types/convert.js';

export interface ConvertForm {
  split: string;
  limit: string;
  maxTurns: string;
  permissionMode: string;
  testTimeout: string;
  commandTimeout: string;
  sandboxTimeout: string;
  gitSanitizeTimeout: string;
}

export const CONVERT_FIELDS: { key: keyof ConvertForm; label: string; hint: string }[] = [
  { key: 'split', label: 'split', hint: 'train (293 rows) or validation (23)' },
  { key: 'limit', label: 'limit', hint: 'empty = every row; N = first N rows (the map then needs only their images)' },
  { key: 'maxTurns', label: 'max turns', hint: 'Claude Code --max-turns (recipe: 80)' },
  { key: 'permissionMode', label: 'permission mode', hint: 'acceptEdits (recipe), auto, default, dontAsk, plan; bypassPermissions fails as root' },
  { key: 'testTimeout', label: 'test timeout s', hint: 'timeout N bash eval.sh (recipe: 1200)' },
  { key: 'commandTimeout', label: 'command timeout s', hint: 'after_agent timeout = evaluator polling deadline (recipe: 1260)' },
  { key: 'sandboxTimeout', label: 'sandbox timeout s', hint: 'E2B sandbox lifetime (recipe: 3600)' },
  { key: 'gitSanitizeTimeout', label: 'sanitize timeout s', hint: 'before_agent sanitizer timeout (recipe: 120)' },
];

export const DEFAULT_CONVERT_FORM: ConvertForm = {
  split: 'train',
  limit: '',
  maxTurns: '80',
  permissionMode: 'acceptEdits',
  testTimeout: '1200',
  commandTimeout: '1260',
  sandboxTimeout: '3600',
  gitSanitizeTimeout: '120',
};

export interface ConvertState {
  form: ConvertForm;
  field: number;
  editing: boolean;
  phase: ConvertPhase | 'idle';
  lines: string[];
  notices: { level: 'info' | 'warn'; text: string }[];
  report?: VerifyReport;
  previews: RowPreview[];
  previewIndex: number;
  /** Bottom panel: the converter's output or the row preview. */
  view: 'output' | 'preview';
  /** The JSONL already on disk when the screen opened (or after a run): rows, size, when written, and whether an
   * input (split parquet, template map) is newer; null when there is none. */
  onDisk?: { rows: number; bytes: number; mtimeMs: number; staleBecause?: string } | null;
  /** The equivalent manual command. */
  command?: string;
  message?: { text: string; tone: 'info' | 'warn' | 'error' };
  set(partial: Partial<Omit<ConvertState, 'set'>>): void;
}

export function createConvertStore() {
  return createStore<ConvertState>()((set) => ({
    form: { ...DEFAULT_CONVERT_FORM },
    field: 0,
    editing: false,
    phase: 'idle',
    lines: [],
    notices: [],
    previews: [],
    previewIndex: 0,
    view: 'output',
    set(partial) {
      set(partial);
    },
  }));
}

export type ConvertStore = ReturnType<typeof createConvertStore>;
