// The reward marker's edge cases, shared by the differential tests of the marker parser and of the trajectory browser.
import { MARKER_PREFIX } from '../../src/services/marker/marker.js';

const P = MARKER_PREFIX;
const ok = (extra = '') => `{"resolved": true, "fail_to_pass_success": 1, "fail_to_pass_total": 1${extra}}`;
const no = '{"resolved": false, "failure_reason": "fail_to_pass_failure"}';

export type Rec = { stdout?: string; stderr?: string; raw?: string };

/** Edge cases of reward.py's marker reading (line breaks of str.splitlines, raw only, NaN/Infinity, leading space, non-object markers…). */
export const EDGE: Record<string, Rec> = {
  'plain resolved': { stdout: `${P}${ok()}\n` },
  'no marker': { stdout: 'PASSED x\n' },
  empty: {},
  'first marker is an array': { stdout: `${P}[1, 2]\n${P}${ok()}\n` },
  'first marker is a string': { stdout: `${P}"resolved"\n${P}${no}\n` },
  'first marker is null, then true': { stdout: `${P}null\n${P}true\n${P}${ok()}` },
  'only non-object markers': { stdout: `${P}1\n${P}[]\n` },
  'invalid first marker not rescued': { stdout: `${P}{oops\n${P}${ok()}\n` },
  NaN: { stdout: `${P}${ok(', "x": NaN')}\n` },
  Infinity: { stdout: `${P}${ok(', "x": Infinity, "y": -Infinity')}\n` },
  'resolved is NaN': { stdout: `${P}{"resolved": NaN}\n` },
  'nan lower case': { stdout: `${P}${ok(', "x": nan')}\n` },
  'CR line break': { stdout: `noise\r${P}${ok()}\rtail` },
  'CRLF': { stdout: `noise\r\n${P}${ok()}\r\n` },
  'form feed ends the JSON': { stdout: `${P}${ok()}\f more` },
  'form feed inside the JSON': { stdout: `${P}{"resolved": true,\f"a": 1}\n` },
  'vertical tab before marker': { stdout: `x\v${P}${ok()}\n` },
  'U+2028 inside the JSON': { stdout: `${P}{"resolved": true, "m": "a\u2028b"}\n` },
  'U+2029 ends a line': { stdout: `\u2029${P}${ok()}` },
  'U+0085 inside the JSON': { stdout: `${P}{"resolved": true, "m": "a\u0085b"}\n` },
  'x1c–x1e breaks': { stdout: `a\x1c${P}${no}\x1d\x1e` },
  'escaped U+2028 is fine': { stdout: `${P}{"resolved": true, "m": "a\\u2028b"}\n` },
  'marker in stderr': { stdout: 'x', stderr: `${P}${ok()}` },
  'stdout non-object, stderr object': { stdout: `${P}42`, stderr: `${P}${ok()}` },
  'stdout invalid, stderr valid': { stdout: `${P}{`, stderr: `${P}${ok()}` },
  'stdout without newline joins nothing': { stdout: `abc${P}${ok()}`, stderr: `${P}${no}` },
  'raw only': { raw: `${P}${ok()}` },
  'leading space': { stdout: ` ${P}${ok()}\n` },
  'resolved 1 is not True': { stdout: `${P}{"resolved": 1}\n` },
  'resolved "true" is not True': { stdout: `${P}{"resolved": "true"}\n` },
  'trailing spaces and tabs': { stdout: `${P}${ok()} \t \n` },
  'extra data after object': { stdout: `${P}${ok()} x\n` },
  'two objects on a line': { stdout: `${P}${ok()}${ok()}\n` },
  'BOM after prefix': { stdout: `${P}\ufeff${ok()}\n` },
  'duplicate resolved, last wins': { stdout: `${P}{"resolved": true, "resolved": false}\n` },
  '__proto__ key': { stdout: `${P}{"__proto__": {"resolved": true}, "resolved": true}\n` },
  'control char in a string': { stdout: `${P}{"resolved": true, "m": "a\tb"}\n` },
  'bad escape': { stdout: `${P}{"resolved": true, "m": "\\x41"}\n` },
  'surrogate escapes': { stdout: `${P}{"resolved": true, "m": "\\ud83d\\ude00 \\ud800"}\n` },
  'big exponent': { stdout: `${P}{"resolved": true, "n": 1e400, "m": -0.0, "k": 1E+2}\n` },
  'leading zero': { stdout: `${P}{"resolved": true, "n": 01}\n` },
  'trailing comma': { stdout: `${P}{"resolved": true,}\n` },
  'single quotes (python repr) are invalid': { stdout: `${P}{'resolved': True}\n` },
  'empty after prefix': { stdout: `${P}\n${P}${ok()}` },
  'prefix twice': { stdout: `${P}${P}${ok()}\n` },
  'unicode text': { stdout: `ünï ✓\n${P}{"resolved": true, "m": "日本"}\n` },
};

