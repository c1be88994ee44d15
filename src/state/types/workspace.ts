// The workspace and pipeline types that the stores hold; src/services/workspace and src/services/pipeline build them.

export type StepState = 'missing' | 'present' | 'stale' | 'invalid' | 'partial' | 'unknown';

export interface StepStatus {
  id: string;
  title: string;
  state: StepState;
  /** What is on disk, one line. */
  detail: string;
  /** The next action, one line. */
  next?: string;
  /** Files this step writes. */
  outputs: string[];
  /** The equivalent manual command from the recipe. */
  manual: string;
  /** Screen to open for this step. */
  screen: string;
}

export interface CheckoutStatus {
  root: string;
  /** The recipe scripts looked for, relative to the root. */
  lookedFor: string[];
  missing: string[];
  /** none: not a checkout at all; some: an older or partial checkout; all: the recipe is there. */
  found: 'none' | 'some' | 'all';
}

export type Split = 'train' | 'validation';
