// Width-aware string helpers for fixed-size panels (no wrapping, ever).

/** Cuts to `width` columns with an ellipsis. Treats every code point as one column (good enough for our text). */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width === 1) return '…';
  return chars.slice(0, width - 1).join('') + '…';
}

export function padEnd(text: string, width: number): string {
  const t = truncate(text, width);
  return t + ' '.repeat(Math.max(0, width - [...t].length));
}

export function padStart(text: string, width: number): string {
  const t = truncate(text, width);
  return ' '.repeat(Math.max(0, width - [...t].length)) + t;
}

/** Visible window of a list around the selection: [start, end). */
export function visibleWindow(total: number, selected: number, rows: number): [number, number] {
  if (rows <= 0) return [0, 0];
  if (total <= rows) return [0, total];
  const half = Math.floor(rows / 2);
  const start = Math.max(0, Math.min(total - rows, selected - half));
  return [start, start + rows];
}

/** Wraps text to `width` columns, breaking at spaces where it can and inside long words where it must. */
export function wrapText(text: string, width: number): string[] {
  if (width <= 0) return [];
  const out: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(/(?<= )/)) {
      let w = word;
      while ([...line].length + [...w].length > width) {
        if (line.trim()) {
          out.push(line.trimEnd());
          line = '';
          continue;
        }
        const chars = [...w];
        out.push(chars.slice(0, width).join(''));
        w = chars.slice(width).join('');
      }
      line += w;
    }
    out.push(line.trimEnd());
  }
  return out;
}
