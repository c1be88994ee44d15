// The console's stdin hands Ink one key per read: a chunk is split into the keys it holds (characters, control
// bytes, escape sequences, a bracketed paste whole), and the next key waits until the last one was read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import fc from '../helpers/property.js';
import { PacedStdin, splitKeys } from '../../src/cli/pacedStdin.js';

test('a chunk splits into the keys typed: text, Enter, arrows, Alt-arrows, a bracketed paste whole', () => {
  assert.deepEqual(splitKeys('abc\r').keys, ['a', 'b', 'c', '\r']);
  assert.deepEqual(splitKeys('x\r\ny\nz').keys, ['x', '\r', 'y', '\r', 'z']);
  assert.deepEqual(splitKeys('j\u001b[Bk\u001b\u001b[A\u001bOP').keys, ['j', '\u001b[B', 'k', '\u001b\u001b[A', '\u001bOP']);
  assert.deepEqual(splitKeys('\u001b[5~\u001b[1;5C\u007f\u0003').keys, ['\u001b[5~', '\u001b[1;5C', '\u007f', '\u0003']);
  assert.deepEqual(splitKeys('a\u001b[200~p\nq\u001b[201~b').keys, ['a', '\u001b[200~p\nq\u001b[201~', 'b']);
  // Two Esc presses are two keys; Alt+x (or Esc then x, fast) stays one for Ink and the app to split.
  assert.deepEqual(splitKeys('\u001b\u001b').keys, ['\u001b', '\u001b']);
  assert.deepEqual(splitKeys('\u001bx').keys, ['\u001bx']);
  // A grapheme cluster is one key.
  assert.deepEqual(splitKeys('e\u0301👍🏽').keys, ['e\u0301', '👍🏽']);
});

test('an unfinished escape sequence or paste waits for the next read', () => {
  assert.deepEqual(splitKeys('a\u001b['), { keys: ['a'], rest: '\u001b[' });
  assert.deepEqual(splitKeys('\u001b[200~half'), { keys: [], rest: '\u001b[200~half' });
  const rest = splitKeys('\u001b[200~half').rest;
  assert.deepEqual(splitKeys(rest + ' done\u001b[201~').keys, ['\u001b[200~half done\u001b[201~']);
});

test('property: the keys put back together are the input (line breaks as Enter), and none holds two keys', () => {
  const piece = fc.oneof(
    fc.string({ unit: 'grapheme-ascii', maxLength: 6 }),
    fc.constantFrom('\r', '\n', '\r\n', '\t', '\u007f', '\u001b[A', '\u001b[1;5D', '\u001bOH', '\u001b\u001b[B', '\u001b[200~a\nb\u001b[201~'),
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 20 }), (pieces) => {
      const input = pieces.join('');
      const { keys, rest } = splitKeys(input);
      assert.equal(rest, '');
      const typed = input.split(/(\u001b\[200~[^]*?\u001b\[201~)/).map((part, i) => (i % 2 ? part : part.replace(/\r\n|\n/g, '\r')));
      assert.equal(keys.join(''), typed.join(''));
      for (const k of keys) if (!k.startsWith('\u001b')) assert.ok([...k].length === 1 || k === '\r', JSON.stringify(k));
    }),
  );
});

class FakeTerminal extends EventEmitter {
  raw: boolean[] = [];
  paused = true;
  setRawMode(mode: boolean) {
    this.raw.push(mode);
  }
  setEncoding() {}
  pause() {
    this.paused = true;
  }
  resume() {
    this.paused = false;
  }
}

test('Ink reads one key at a time; the next comes only after the last was read and the deferral ran', () => {
  const terminal = new FakeTerminal();
  const deferred: (() => void)[] = [];
  const afterEsc: boolean[] = [];
  const stdin = new PacedStdin(terminal, (fn, esc) => {
    deferred.push(fn);
    afterEsc.push(esc);
  });
  const reads: string[] = [];
  stdin.on('readable', () => {
    let k: string | null;
    while ((k = stdin.read()) !== null) reads.push(k);
  });
  // Nothing is read from the terminal before Ink asks for raw mode.
  terminal.emit('data', 'ignored');
  assert.equal(deferred.length, 0);
  stdin.setRawMode(true);
  assert.equal(terminal.paused, false);
  terminal.emit('data', 'ab\r\u001b');
  terminal.emit('data', 'c');
  const step = () => (deferred.shift() as () => void)();
  while (deferred.length) step();
  assert.deepEqual(reads, ['a', 'b', '\r', '\u001b', 'c']);
  // The key after an Esc waits out Ink's own Esc delay.
  assert.deepEqual(afterEsc, [false, false, false, false, true]);
  stdin.setRawMode(false);
  assert.equal(terminal.paused, true);
  assert.deepEqual(terminal.raw, [true, false]);
  terminal.emit('data', 'later');
  assert.equal(deferred.length, 0);
});
