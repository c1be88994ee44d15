// The line update Ink draws with in the built console (src/vendor/lineUpdate.ts): only the changed cells of a line are
// written where that is exact. Held on a terminal emulator (@xterm/headless): generated styled lines and changes of
// them, and after the update every cell of the row (character, colours, bold, underline, inverse) is what Ink's own
// update gives, which is the screen of writing the new line whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from '../helpers/property.js';
import { changedCellsUpdate, keepingUnchangedCells, sgrState } from '../../src/vendor/lineUpdate.js';

interface Cell {
  getChars(): string;
  getFgColor(): number;
  getBgColor(): number;
  getFgColorMode(): number;
  getBgColorMode(): number;
  isBold(): number;
  isUnderline(): number;
  isInverse(): number;
  isDim(): number;
  isItalic(): number;
  isBlink(): number;
  isInvisible(): number;
  isStrikethrough(): number;
}
interface XTerm {
  write(data: string, cb?: () => void): void;
  buffer: { active: { getLine(i: number): { getCell(x: number): Cell | undefined } | undefined } };
  dispose(): void;
}
const xmod = (await import('@xterm/headless')) as unknown as { Terminal?: new (o: object) => XTerm; default?: { Terminal: new (o: object) => XTerm } };
const Terminal = xmod.Terminal ?? (xmod.default as { Terminal: new (o: object) => XTerm }).Terminal;

const COLUMNS = 24;
const ESC = '\u001B[';
// chalk's opening and closing sequences, as Ink's output has them.
const STYLES = [
  ['', ''],
  [`${ESC}31m`, `${ESC}39m`],
  [`${ESC}1m`, `${ESC}22m`],
  [`${ESC}44m`, `${ESC}49m`],
  [`${ESC}38;5;208m`, `${ESC}39m`],
  [`${ESC}7m`, `${ESC}27m`],
  [`${ESC}2m${ESC}4m`, `${ESC}24m${ESC}22m`],
  [`${ESC}1m${ESC}36m`, `${ESC}39m${ESC}22m`],
  [`${ESC}90m`, `${ESC}39m`],
  [`${ESC}38;2;10;20;30m`, `${ESC}39m`],
  [`${ESC}0;1m`, `${ESC}0m`],
] as const;

/** A line as runs of styled text, written the way chalk writes them. */
type Run = { text: string; style: number };
// ASCII and the one-cell symbols the dashboard draws with (braille, blocks, box drawing, arrows, marks).
const run = fc.record({ text: fc.stringMatching(/^[a-c0-9 .%·…✓✗⚠→▶█▏─⣿⢀⠁]{1,5}$/), style: fc.integer({ min: 0, max: STYLES.length - 1 }) });
const write = (runs: Run[]) => runs.map((r) => `${STYLES[r.style]![0]}${r.text}${STYLES[r.style]![1]}`).join('');

async function screenAfter(...writes: string[]): Promise<string[]> {
  const term = new Terminal({ cols: COLUMNS, rows: 2, allowProposedApi: true });
  for (const w of writes) await new Promise<void>((resolve) => term.write(w, resolve));
  const line = term.buffer.active.getLine(0);
  const cells: string[] = [];
  for (let x = 0; x < COLUMNS; x++) {
    const c = line?.getCell(x);
    cells.push(c ? [c.getChars() || ' ', c.getFgColorMode(), c.getFgColor(), c.getBgColorMode(), c.getBgColor(), c.isBold(), c.isDim(), c.isUnderline(), c.isInverse(), c.isItalic(), c.isBlink(), c.isInvisible(), c.isStrikethrough()].join(',') : '-');
  }
  term.dispose();
  return cells;
}

const whole = (line: string) => `${ESC}1G${ESC}K${line}`;
// Ink's own update of a changed line, as far as the screen goes: the line written whole.
const inkWhole = (_previous: string, next: string) => whole(next);

test('writing only the changed cells leaves the row as writing the new line whole does', async () => {
  let partial = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(run, { minLength: 1, maxLength: 6 }),
      fc.array(fc.tuple(fc.nat(30), fc.option(run, { nil: undefined })), { minLength: 1, maxLength: 3 }),
      async (runs, edits) => {
        const changed = runs.map((r) => ({ ...r }));
        // An edit restyles a run or puts other text of the same length in it (a counter ticking, a colour changing).
        for (const [k, r] of edits) {
          const at = k % changed.length;
          const old = changed[at]!;
          changed[at] = r ? { style: r.style, text: (r.text.repeat(5)).slice(0, old.text.length).padEnd(old.text.length, '0') } : { ...old, style: (old.style + 1) % STYLES.length };
        }
        const previous = write(runs);
        const next = write(changed);
        if (previous === next) return;
        const update = keepingUnchangedCells(inkWhole)(previous, next, COLUMNS);
        if (update !== whole(next)) partial++;
        const want = await screenAfter(whole(previous), whole(next));
        assert.deepEqual(await screenAfter(whole(previous), update), want, JSON.stringify({ previous, next, update }));
      },
    ),
    { numRuns: 300 },
  );
  // Most generated changes fit the 24 columns and take the changed-cells write (else this holds nothing).
  assert.ok(partial > 100, `${partial} of 300 cases wrote the changed cells only`);
});

test('a changed counter in a table row is written alone; other shapes are left to Ink', () => {
  const row = (n: string) => `${ESC}1mtask-7${ESC}22m  ${ESC}32m${n}${ESC}39m  resolved 0.52  age 3s`;
  const update = changedCellsUpdate(row('41'), row('42'), 80);
  assert.equal(update, `${ESC}10G${ESC}0;32m2${ESC}0m`);
  // A chart's last column, in the style in force there.
  assert.equal(changedCellsUpdate(`${ESC}90m0.5 ${ESC}39m${ESC}1m${ESC}36m⣀⣠${ESC}39m${ESC}22m`, `${ESC}90m0.5 ${ESC}39m${ESC}1m${ESC}36m⣀⣿${ESC}39m${ESC}22m`, 80), `${ESC}6G${ESC}0;1;36m⣿${ESC}0m`);
  // Another width, a wide or combining character or an emoji, a control character, a line that reaches the last
  // column: Ink's own.
  assert.equal(changedCellsUpdate('count 9', 'count 10', 80), undefined);
  assert.equal(changedCellsUpdate('中 ok 1', '中 ok 2', 80), undefined);
  assert.equal(changedCellsUpdate('✅ ok 1', '✅ ok 2', 80), undefined);
  assert.equal(changedCellsUpdate('e\u0301 ok 1', 'e\u0301 ok 2', 80), undefined);
  assert.equal(changedCellsUpdate('a\tb', 'a\tc', 80), undefined);
  assert.equal(changedCellsUpdate('abcd', 'abce', 4), undefined);
  // The same cells (only a trailing style differs): nothing for this to do.
  assert.equal(changedCellsUpdate('ab', `ab${ESC}0m`, 80), undefined);
  // Ink's write is kept when it is the shorter one.
  const short = keepingUnchangedCells(() => 'x')(row('41'), row('42'), 80);
  assert.equal(short, 'x');
});

/** SGR parameters as chalk and other programs write them, one sequence or several. */
const sgrParams = fc.constantFrom('0', '', '1', '2', '3', '4', '5', '7', '8', '9', '22', '23', '24', '25', '27', '28', '29', '31', '36', '39', '42', '49', '90', '97', '100', '107', '38;5;208', '48;5;17', '38;2;1;2;3', '48;2;200;100;0', '1;31', '0;36', '2;4');

test('sgrState: one sequence after a reset leaves a cell as the sequences it stands for', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(sgrParams, { minLength: 0, maxLength: 6 }), async (params) => {
      const sequences = params.map((p) => `${ESC}${p}m`).join('');
      const state = sgrState(sequences);
      assert.notEqual(state, undefined);
      const want = await screenAfter(`${ESC}0m${sequences}X`);
      assert.deepEqual(await screenAfter(`${ESC}${state ? `0;${state}` : '0'}mX`), want, JSON.stringify({ sequences, state }));
    }),
    { numRuns: 300 },
  );
  // What it does not know is left to be replayed as written.
  assert.equal(sgrState(`${ESC}53m`), undefined);
  assert.equal(sgrState(`${ESC}38;5m`), undefined);
});
