// TextField: one set of rules for every field — Esc puts the value from before editing back, Enter submits,
// Backspace/Delete/←/→/Home/End edit at a cursor, paste (bracketed or one chunk) arrives without line breaks, a
// length limit with an indicator, and a secret field that shows neither its value nor its length.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import React, { useState } from 'react';
import { Box } from 'ink';
import { TextField, useTextField } from '../../src/ui/TextField.js';
import { applyKey, beginEdit, fieldText } from '../../src/ui/fieldEditing.js';
import { displayWidth } from '../../src/ui/text.js';
import { T } from '../../src/ui/theme.js';
import { renderInk, KEYS } from '../helpers/ink.js';
import { waitFor } from '../helpers/wait.js';

const KEY_DELETE = '\u001B[3~';
const KEY_HOME = '\u001B[H';
const KEY_END = '\u001B[F';

interface Seen {
  submitted: string[];
  cancelled: number;
  value: string;
}

function Harness({ initial = '', maxLength, secret, seen, width = 80 }: { initial?: string; maxLength?: number; secret?: boolean; seen: Seen; width?: number }) {
  const [value, setValue] = useState(initial);
  const [active, setActive] = useState(true);
  seen.value = value;
  const text = useTextField({
    active,
    value,
    onChange: setValue,
    onSubmit: (v) => {
      seen.submitted.push(v);
      setActive(false);
    },
    onCancel: () => {
      seen.cancelled++;
      setActive(false);
    },
    maxLength,
    secret,
  });
  return (
    <Box width={width}>
      <T>{`field: ${text}|${active ? 'editing' : 'done'}`}</T>
    </Box>
  );
}

function setup(props: Partial<React.ComponentProps<typeof Harness>> = {}) {
  const seen: Seen = { submitted: [], cancelled: 0, value: '' };
  const ui = renderInk(<Harness seen={seen} {...props} />);
  return { seen, ui };
}

async function type(ui: ReturnType<typeof renderInk>, text: string) {
  for (const ch of text) await ui.press(ch);
}

test('typing and Backspace edit at the end; Enter submits the value', async () => {
  const { seen, ui } = setup();
  try {
    await type(ui, 'calcx');
    await ui.press(KEYS.backspace);
    await ui.waitForText('field: calc▏|editing');
    await ui.press(KEYS.enter);
    await ui.waitForText('field: calc|done');
    assert.deepEqual(seen.submitted, ['calc']);
    assert.equal(seen.cancelled, 0);
  } finally {
    ui.unmount();
  }
});

test('Esc cancels: the value from before editing comes back and nothing is submitted', async () => {
  const { seen, ui } = setup({ initial: 'monai' });
  try {
    await ui.waitForText('field: monai▏');
    await type(ui, 'zz');
    await ui.waitForText('monaizz▏');
    assert.equal(seen.value, 'monaizz', 'each edit reaches the owner (live filters)');
    await ui.press(KEYS.escape);
    await ui.waitForText('field: monai|done');
    assert.equal(seen.value, 'monai');
    assert.equal(seen.cancelled, 1);
    assert.deepEqual(seen.submitted, []);
  } finally {
    ui.unmount();
  }
});

test('the cursor moves with ←/→/Home/End; typing inserts at it, Delete removes the grapheme under it', async () => {
  const { seen, ui } = setup({ initial: 'abc' });
  try {
    await ui.press(KEYS.left);
    await ui.press(KEYS.left);
    await ui.waitForText('field: a▏bc');
    await ui.press('X');
    await ui.waitForText('field: aX▏bc');
    await ui.press(KEY_DELETE);
    await ui.waitForText('field: aX▏c');
    await ui.press(KEY_HOME);
    await ui.waitForText('field: ▏aXc');
    await ui.press(KEYS.backspace);
    await ui.waitForText('field: ▏aXc', 1000);
    await ui.press(KEY_END);
    await ui.waitForText('field: aXc▏');
    await ui.press(KEYS.enter);
    await waitFor(() => seen.submitted.length === 1);
    assert.deepEqual(seen.submitted, ['aXc']);
  } finally {
    ui.unmount();
  }
});

test('a paste arrives whole, without line breaks or control characters, at the cursor', async () => {
  const { seen, ui } = setup({ initial: '[]' });
  try {
    await ui.press(KEYS.left);
    // Bracketed paste (the field turns the mode on while active) and a plain multi-character chunk.
    ui.stdin.write('\u001B[200~first\nsecond\r\n\u0007\u001B[201~');
    await ui.waitForText('field: [firstsecond▏]');
    ui.stdin.write('+more');
    await ui.waitForText('field: [firstsecond+more▏]');
    assert.equal(seen.value, '[firstsecond+more]');
  } finally {
    ui.unmount();
  }
});

test('the length limit cuts a paste and says so; near the limit the count shows', async () => {
  const { seen, ui } = setup({ maxLength: 10 });
  try {
    await type(ui, 'abcdefg');
    await ui.waitForText('field: abcdefg▏|');
    await ui.press('h');
    await ui.waitForText('field: abcdefgh▏ 8/10|');
    ui.stdin.write('ijklmnop');
    await ui.waitForText('field: abcdefghij▏ 10/10 limit|');
    assert.equal(seen.value, 'abcdefghij');
    await ui.press(KEYS.backspace);
    await ui.waitForText('field: abcdefghi▏ 9/10|');
  } finally {
    ui.unmount();
  }
});

test('a secret field never shows its value, nor its length; the owner still gets it', async () => {
  const frames: string[] = [];
  const { seen, ui } = setup({ secret: true });
  try {
    await ui.waitForText('field: ▏|editing');
    await type(ui, 'sk9');
    await ui.waitForText('field: (hidden)▏|editing');
    frames.push(ui.frame());
    await type(ui, 'TOPsecret');
    frames.push(ui.frame());
    ui.stdin.write('\u001B[200~pasted\u001B[201~');
    await waitFor(() => seen.value.endsWith('pasted'));
    frames.push(ui.frame());
    assert.equal(new Set(frames).size, 1, `3 and 18 typed characters look the same:\n${frames.join('\n')}`);
    for (const f of ui.frames) {
      assert.ok(!/sk9|TOP|secret|pasted|\*{2,}|•{2,}/.test(f), `no part of the secret on screen: ${f}`);
    }
    await ui.press(KEYS.enter);
    await waitFor(() => seen.submitted.length === 1);
    assert.deepEqual(seen.submitted, ['sk9TOPsecretpasted']);
    assert.ok(!ui.frame().includes('sk9'));
  } finally {
    ui.unmount();
  }
});

test('wide and combined graphemes are one character: Backspace removes a whole emoji, the limit counts graphemes', async () => {
  const { seen, ui } = setup({ maxLength: 4 });
  try {
    const thumbs = '👍🏽'; // two code points, one grapheme, two columns
    const accented = 'e\u0301'; // e + combining acute
    ui.stdin.write(`日${thumbs}${accented}`);
    await waitFor(() => seen.value === `日${thumbs}${accented}`);
    await ui.press(KEYS.backspace);
    await waitFor(() => seen.value === `日${thumbs}`);
    await ui.press(KEYS.backspace);
    await waitFor(() => seen.value === '日');
    ui.stdin.write(`${thumbs}${thumbs}${thumbs}${thumbs}`);
    await waitFor(() => seen.value === `日${thumbs}${thumbs}${thumbs}`);
    await ui.waitForText('4/4 limit');
  } finally {
    ui.unmount();
  }
});

test('TextField on a line of its own fits 80 columns however long the value', async () => {
  const seen: string[] = [];
  function Line() {
    const [value, setValue] = useState('x'.repeat(200) + '日本語');
    return <TextField label="filter: " suffix="  (3/293)" width={80} active value={value} onChange={setValue} onSubmit={(v) => seen.push(v)} onCancel={() => {}} maxLength={300} />;
  }
  const ui = renderInk(<Line />);
  try {
    await ui.waitForText('日本語▏');
    const line = ui.frame().split('\n')[0]!;
    assert.ok(displayWidth(line) <= 80, `${displayWidth(line)} columns: ${line}`);
    assert.match(line, /^filter: …x+日本語▏ {2}\(3\/293\)$/, 'the cursor stays in view: the start is cut, the suffix kept');
    await ui.press(KEY_HOME);
    await ui.waitForText('filter: ▏xxx');
    assert.match(ui.frame().split('\n')[0]!, /^filter: ▏x+… {2}\(3\/293\)$/);
  } finally {
    ui.unmount();
  }
});

test('the model: other keys do nothing while editing; Ctrl-U clears to the start', () => {
  const opts = { maxLength: 20 };
  let s = beginEdit('hello world');
  for (const key of [{ upArrow: true }, { downArrow: true }, { tab: true }, { pageUp: true }, { ctrl: true }]) {
    const out = applyKey(s, key.ctrl ? 'x' : '', key, opts);
    assert.equal(out.state.value, 'hello world');
    assert.equal(out.action, undefined);
  }
  s = applyKey(s, '', { leftArrow: true }, opts).state;
  s = applyKey(s, 'u', { ctrl: true }, opts).state;
  assert.equal(s.value, 'd');
  assert.equal(fieldText(s, { ...opts, editing: true }), '▏d');
  assert.equal(fieldText({ value: 'abc', cursor: 3, cut: false }, { ...opts, secret: true, editing: false }), '(hidden)');
  assert.equal(fieldText({ value: '', cursor: 0, cut: false }, { ...opts, secret: true, editing: false }), '');
});
