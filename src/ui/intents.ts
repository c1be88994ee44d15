// Every key the console answers, declared once: an intent id, its default keys, what it does and where it applies.
// Screens name intents (`bind('train.launch', …)`), never keys; the footer, `?` help, `swegym-console keys`,
// docs/KEYS.md and the user's overrides ($XDG_CONFIG_HOME/swegym-console/keys.json) all come from this table.
//
// An id is `<screen>.<action>` for a screen's own action, `go.<screen>` for the number keys, `panel.*`, `overlay.*`
// and `quit` for the shell, `field.*` for a text field's keys, and a bare name for an action several screens offer
// (the same keys and meaning everywhere; each screen words it for its rows).

export interface IntentSpec {
  /** Keys as shown to people and as matched: a character ('q', '?', 'G'), or a named key (KEY_NAMES). */
  readonly keys: readonly string[];
  readonly description: string;
  /** Where it applies: 'everywhere', 'several screens', a screen's id, or a keyboard of its own (a picker). */
  readonly where: string;
  /**
   * A keyboard of its own, open over the screen (the dashboard's pickers): its keys may repeat the screen's, and
   * overrides are checked for clashes within it. The main keyboard is every intent without one.
   */
  readonly keyboard?: 'picker';
  /** Answered by the kit's text field (ui/fieldEditing), whose editing keys are fixed: listed, not overridable. */
  readonly fixed?: true;
}

const SHARED_WHERE = 'several screens';
const SHELL = 'everywhere';

const TABLE = {
  // Actions that several screens offer.
  up: { keys: ['↑', 'k'], description: 'previous row', where: SHARED_WHERE },
  down: { keys: ['↓', 'j'], description: 'next row', where: SHARED_WHERE },
  pageUp: { keys: ['PgUp'], description: 'page up', where: SHARED_WHERE },
  pageDown: { keys: ['PgDn'], description: 'page down', where: SHARED_WHERE },
  first: { keys: ['g', 'Home'], description: 'first row', where: SHARED_WHERE },
  last: { keys: ['G', 'End'], description: 'last row', where: SHARED_WHERE },
  open: { keys: ['Enter'], description: 'drill into the selected row (its log, its whole record), or edit it in a form', where: SHARED_WHERE },
  view: { keys: ['v'], description: 'show the selected row whole (detail view)', where: SHARED_WHERE },
  back: { keys: ['Esc'], description: 'close / back (the innermost open state first)', where: SHARED_WHERE },
  filter: { keys: ['/'], description: 'filter', where: SHARED_WHERE },
  refresh: { keys: ['r'], description: 'refresh (re-read from disk)', where: SHARED_WHERE },
  stop: { keys: ['x'], description: 'stop the running job (asks when it loses work)', where: SHARED_WHERE },
  retryFailed: { keys: ['F'], description: 'retry the failed rows', where: SHARED_WHERE },
  runAll: { keys: ['b'], description: 'run the screen’s job on every row', where: SHARED_WHERE },
  verify: { keys: ['V'], description: 'verify the file on disk against the rules (reads only)', where: SHARED_WHERE },
  confirm: { keys: ['y'], description: 'yes (in a question)', where: SHARED_WHERE },
  cancel: { keys: ['n'], description: 'no (in a question)', where: SHARED_WHERE },
  copy: { keys: ['c'], description: 'copy the command (OSC 52)', where: SHARED_WHERE },
  prevItem: { keys: ['←'], description: 'previous item', where: SHARED_WHERE },
  nextItem: { keys: ['→'], description: 'next item', where: SHARED_WHERE },

  // The shell.
  'go.home': { keys: ['1'], description: 'Home', where: SHELL },
  'go.data': { keys: ['2'], description: 'Data', where: SHELL },
  'go.templates': { keys: ['3'], description: 'Templates', where: SHELL },
  'go.convert': { keys: ['4'], description: 'Convert', where: SHELL },
  'go.validate': { keys: ['5'], description: 'Validate', where: SHELL },
  'go.train': { keys: ['6'], description: 'Train', where: SHELL },
  'go.dashboard': { keys: ['7'], description: 'Dashboard', where: SHELL },
  'panel.next': { keys: ['Tab'], description: 'next panel', where: SHELL },
  'panel.previous': { keys: ['Shift-Tab'], description: 'previous panel', where: SHELL },
  'overlay.log': { keys: ['L'], description: 'command log (toggle)', where: SHELL },
  'overlay.help': { keys: ['?'], description: 'help (toggle)', where: SHELL },
  quit: { keys: ['q', 'Ctrl-C'], description: 'quit (asks first while jobs run; in the question, quits)', where: SHELL },

  // Text fields (the kit's TextField answers them).
  'field.accept': { keys: ['Enter'], description: 'keep what was typed and leave the field', where: 'text fields', fixed: true },
  'field.cancel': { keys: ['Esc'], description: 'put back the earlier value and leave the field', where: 'text fields', fixed: true },
  'field.deleteBack': { keys: ['Backspace'], description: 'delete the character before the cursor', where: 'text fields', fixed: true },

  // Screens.
  'home.demo': { keys: ['D'], description: 'offline demo (outside a Dressage checkout)', where: 'home' },
  'data.download': { keys: ['d'], description: 'download split', where: 'data' },
  'data.images': { keys: ['i'], description: 'write image list', where: 'data' },
  'data.split': { keys: ['t'], description: 'train/validation', where: 'data' },
  'templates.buildArtifacts': { keys: ['A'], description: 'build artifacts', where: 'templates' },
  'templates.artifactsLog': { keys: ['a'], description: 'artifacts log', where: 'templates' },
  'templates.smoke': { keys: ['s'], description: 'smoke selected', where: 'templates' },
  'templates.abandon': { keys: ['X'], description: 'abandon running builds (press twice)', where: 'templates' },
  'convert.preview': { keys: ['p'], description: 'output/preview', where: 'convert' },
  'validate.one': { keys: ['e'], description: 'validate the selected task end to end', where: 'validate' },
  'validate.agent': { keys: ['w'], description: 'run Claude Code on the selected task (validate agent)', where: 'validate' },
  'validate.onlyFailures': { keys: ['o'], description: 'only failures', where: 'validate' },
  'train.launch': { keys: ['l'], description: 'launch (checks, then asks)', where: 'train' },
  'train.checks': { keys: ['C'], description: 'run checks', where: 'train' },
  'train.reset': { keys: ['u'], description: 'reset to default', where: 'train' },
  'train.resume': { keys: ['R'], description: 'resume from latest checkpoint', where: 'train' },
  'train.saveSecrets': { keys: ['S'], description: 'save secrets in a 0600 file (toggle)', where: 'train' },
  'train.confirmRayStop': { keys: ['Y'], description: 'confirm stop and also ray stop --force', where: 'train' },
  'dashboard.follow': { keys: ['f'], description: 'toggle follow (a drill-in: follow its end; a rollout\'s: follow the newest rollout)', where: 'dashboard' },
  'dashboard.metric': { keys: ['m'], description: 'pick a metric (every logged metric)', where: 'dashboard' },
  'dashboard.compare': { keys: ['O'], description: 'overlay another run (registry or log file)', where: 'dashboard' },
  'dashboard.smoothingDown': { keys: ['['], description: 'less smoothing (curves)', where: 'dashboard' },
  'dashboard.smoothingUp': { keys: [']'], description: 'more smoothing (curves)', where: 'dashboard' },
  'dashboard.pickerPrev': { keys: ['↑'], description: 'previous item (arrows only: k and j may be typed)', where: 'dashboard picker', keyboard: 'picker' },
  'dashboard.pickerNext': { keys: ['↓'], description: 'next item', where: 'dashboard picker', keyboard: 'picker' },
  'dashboard.pickerDelete': { keys: ['Backspace'], description: 'delete the last character', where: 'dashboard picker', keyboard: 'picker' },
} as const satisfies Record<string, IntentSpec>;

export type IntentId = keyof typeof TABLE;

export const INTENTS: Readonly<Record<IntentId, IntentSpec>> = TABLE;

/** The shared intents a keyboard of its own also answers (the picker pages, opens and closes with them). */
export const KEYBOARD_SHARES: Record<'picker', readonly IntentId[]> = { picker: ['pageUp', 'pageDown', 'open', 'back'] };

export function isIntent(id: string): id is IntentId {
  return Object.prototype.hasOwnProperty.call(INTENTS, id);
}

export function intentSpec(id: IntentId): IntentSpec {
  return INTENTS[id];
}

export const INTENT_IDS = Object.keys(INTENTS) as IntentId[];
