// Every screen of the console, in number-key order. Replace a step-info entry with the real screen module.
import type { ScreenModule } from './types.js';
import { homeScreen } from './HomeScreen.js';
import { stepInfoScreen } from './StepInfoScreen.js';
import { templatesScreen } from './TemplatesScreen.js';
import { dataScreen } from './DataScreen.js';

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
  stepInfoScreen({
    id: 'validate',
    title: 'Validate',
    hotkey: '5',
    what: 'Apply each gold patch in a fresh sandbox and expect reward 1; an empty patch must give 0.',
    why: 'Grading must be proven before 32 GPUs are allocated.',
    files: ['.swegym-console/journals/validate-harness.json'],
    manual: '(no Dressage tool for this)',
    headless: 'swegym-console validate harness --all',
  }),
  stepInfoScreen({
    id: 'train',
    title: 'Train',
    hotkey: '6',
    what: 'Check every launcher setting and trap, then start the 4-node GRPO run detached.',
    why: 'A misconfigured launch wastes a cluster allocation; a detached run survives SSH drops.',
    files: ['.swegym-console/runs/<run>/', 'outputs/logs/<RUN_NAME>/'],
    manual: 'bash examples/scripts/run_dressage_swegym_qwen3.5_4b_claude_code_sync_4_node.sh',
    headless: 'swegym-console train launch --dry-run',
  }),
  stepInfoScreen({
    id: 'dashboard',
    title: 'Dashboard',
    hotkey: '7',
    what: 'Live training curves, per-sample rewards and failures, sandboxes, GPUs and E2B quota.',
    why: 'What an operator watches for days, over SSH.',
    files: ['outputs/logs/<RUN_NAME>/'],
    manual: 'ray job logs -f … | grep …',
    headless: 'swegym-console monitor RUN --once --json',
  }),
];

export function screenById(id: string): ScreenModule {
  return SCREENS.find((s) => s.id === id) ?? (SCREENS[0] as ScreenModule);
}
