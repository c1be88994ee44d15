// Python `repr` of the values slime logs: floats (shortest round-trip digits, exponent form below 1e-4 and
// from 1e16, `nan`/`inf`/`-inf`, always a `.0` on whole numbers), ints, strings, booleans, None, and dicts
// with single-quoted keys — exactly what `print(f"step {n}: {metrics}")` produces.

export type PyLiteral = number | PyInt | string | boolean | null | PyLiteral[] | { [key: string]: PyLiteral };

/** An integer that must print without `.0` (Python int). Plain JS numbers print as Python floats. */
export class PyInt {
  constructor(readonly value: number) {}
}

export const pyInt = (n: number): PyInt => new PyInt(Math.trunc(n));

export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  // toExponential() without an argument gives the shortest digits that round-trip, like Python's repr.
  const exp = x.toExponential();
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(exp);
  if (!m) return String(x);
  const sign = m[1] as string;
  const digits = (m[2] as string) + (m[3] ?? '');
  const e = Number(m[4]);
  if (e < -4 || e >= 16) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const es = Math.abs(e).toString().padStart(2, '0');
    return `${sign}${mant}e${e < 0 ? '-' : '+'}${es}`;
  }
  if (e < 0) return `${sign}0.${'0'.repeat(-e - 1)}${digits}`;
  const intLen = e + 1;
  if (digits.length <= intLen) return `${sign}${digits}${'0'.repeat(intLen - digits.length)}.0`;
  return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
}

function pyStr(s: string): string {
  // Python prefers single quotes; switches to double quotes when the text has a single quote and no double.
  if (s.includes("'") && !s.includes('"')) return `"${s.replace(/\\/g, '\\\\')}"`;
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

export function pyRepr(v: PyLiteral): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return pyFloat(v);
  if (typeof v === 'string') return pyStr(v);
  if (v instanceof PyInt) return String(v.value);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  const parts: string[] = [];
  for (const k of Object.keys(v)) parts.push(`${pyStr(k)}: ${pyRepr(v[k] as PyLiteral)}`);
  return `{${parts.join(', ')}}`;
}
