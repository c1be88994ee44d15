// Every screen of the console, in number-key order. Replace a step-info entry with the real screen module.
import type { ScreenModule } from './types.js';
import { homeScreen } from './HomeScreen.js';
import { stepInfoScreen } from './StepInfoScreen.js';
import { templatesScreen } from './TemplatesScreen.js';
import { dataScreen } from './DataScreen.js';
import { dashboardScreen } from './DashboardScreen.js';
import { trainScreen } from './TrainScreen.js';
import { validateScreen } from './ValidateScreen.js';

export const SCREENS: ScreenModule[] = [
  homeScreen,
  dataScreen,
  templatesScreen,
  stepInfoScreen({
    id: 'convert',
    title: 'Convert',
    hotkey: '4',
    what: "Run Dressage's converter to write the training JSONL, then verify every row.",
    why: 'The JSONL carries the prompt, template, sanitizer and eval script of each task.',
    files: ['data/swegym-train-claude-code-e2b.jsonl'],
    manual: 'python3 examples/data/swegym/prepare_swegym_data.py data/swegym-train-claude-code-e2b.jsonl --input … --provider e2b',
    headless: 'swegym-console convert',
  }),
  validateScreen,
  trainScreen,
  dashboardScreen,
];

export function screenById(id: string): ScreenModule {
  return SCREENS.find((s) => s.id === id) ?? (SCREENS[0] as ScreenModule);
}
