// The CLI's tables, padded in one place (as Shopify cli-kit's renderTable): columns fit their widest cell (or a
// minimum), the last column is never padded, no line ends in spaces. Plain text, no Ink, so that the headless
// commands print through it and a screen may word its rows with the same cells.

export interface TableColumn {
  /** The header; a table prints a header line when any column has one. */
  title?: string;
  /** Numbers read best right-aligned. */
  align?: 'left' | 'right';
  /** The column is at least this wide. */
  minWidth?: number;
}

export interface TableOptions {
  /** Before every line (e.g. two spaces under a heading). */
  indent?: string;
  /** Between columns (default two spaces). */
  gap?: string;
}

/** The table's lines: a header when the columns have titles, then one line per row. */
export function renderTable(columns: readonly TableColumn[], rows: readonly (readonly string[])[], opts: TableOptions = {}): string[] {
  const gap = opts.gap ?? '  ';
  const indent = opts.indent ?? '';
  const header = columns.some((c) => c.title !== undefined) ? [columns.map((c) => c.title ?? '')] : [];
  const all = [...header, ...rows];
  const widths = columns.map((c, i) => Math.max(c.minWidth ?? 0, ...all.map((r) => [...(r[i] ?? '')].length)));
  const last = columns.length - 1;
  return all.map((r) =>
    (
      indent +
      columns
        .map((c, i) => {
          const cell = r[i] ?? '';
          const pad = ' '.repeat(Math.max(0, (widths[i] ?? 0) - [...cell].length));
          if (c.align === 'right') return pad + cell;
          return i === last ? cell : cell + pad;
        })
        .join(gap)
    ).trimEnd(),
  );
}
