// Column tracks of the virtual table. Each row is its own grid, so tracks are fixed (ch-based), never
// content-sized. Name and Namespace are the flexible columns: their cells ellipsize with the full text on
// hover, so they give way first when the table is narrow; every other column keeps its content whole (up
// to a cap). The sum of the minimums is bounded by the width the table has: an all-namespaces pod list
// with long names at 1024 px keeps Restarts and Age on screen instead of scrolling them away.
import { cellText, type Row, type ViewColumn } from './table-view.js';

/** A whole column's content is kept up to this many ch; longer texts ellipsize (full text on hover). */
const WHOLE_CAP = 32;
/** Whole text columns give way to this width only when the flexible ones are already at their floor. */
const WHOLE_SQUEEZED = 20;
/** Flexible columns never take more than this at their minimum, nor less than FLEX_FLOOR. */
const FLEX_CAP = 48;
const FLEX_FLOOR = 10;

export const isFlexible = (c: Pick<ViewColumn, 'name'>, index: number): boolean => c.name === 'Name' || c.name === 'Namespace' || (index === 0 && c.name !== 'Namespace');

export interface ColumnWidths {
  /** grid-template-columns */
  template: string;
  /** The minimums' sum, in ch. */
  total: number;
  mins: number[];
}

/**
 * Content width (ch) each column wants from its header and its first rows' cells: the longest cell for a
 * whole column (a status is read whole or not at all), the 90th percentile for a flexible one.
 */
export function wantedWidths(columns: ViewColumn[], rows: readonly Row[]): number[] {
  const sample = rows.slice(0, 200);
  return columns.map((c, i) => {
    let len = c.name.length + 2;
    if (c.timestamp) len = Math.max(len, 7);
    else {
      const lens = sample.map((r) => cellText(c, r, 0).length).sort((a, b) => a - b);
      len = Math.max(len, (isFlexible(c, i) ? lens[Math.floor(lens.length * 0.9)] : lens[lens.length - 1]) ?? 0);
    }
    return Math.max(len + 2, 6);
  });
}

/**
 * Tracks for `columns` given what their content wants and the table's width in ch (`budget`, unknown
 * before the table is laid out: then the flexible columns start at 14ch).
 */
export function columnWidths(columns: ViewColumn[], wanted: number[], budget?: number): ColumnWidths {
  const flex = columns.map((c, i) => isFlexible(c, i));
  const mins = wanted.map((w, i) => (flex[i] ? Math.max(FLEX_FLOOR, Math.min(w, budget === undefined ? 14 : FLEX_CAP)) : Math.min(w, WHOLE_CAP)));
  if (budget !== undefined) {
    let excess = mins.reduce((a, b) => a + b, 0) - budget;
    // first the flexible columns, in proportion to what each can give
    const give = (i: number, floor: number) => Math.max(0, mins[i]! - floor);
    for (const [pick, floor] of [
      [(i: number) => flex[i]!, FLEX_FLOOR],
      [(i: number) => !flex[i] && !columns[i]!.numeric && !columns[i]!.timestamp, WHOLE_SQUEEZED],
    ] as const) {
      if (excess <= 0) break;
      const idx = columns.map((_, i) => i).filter(pick);
      const can = idx.reduce((a, i) => a + give(i, floor), 0);
      if (can <= 0) continue;
      const share = Math.min(1, excess / can);
      for (const i of idx) {
        const cut = Math.ceil(give(i, floor) * share);
        mins[i]! -= Math.min(cut, give(i, floor));
      }
      excess = mins.reduce((a, b) => a + b, 0) - budget;
    }
  }
  const template = columns
    .map((c, i) => (c.numeric || c.timestamp ? `${mins[i]}ch` : `minmax(${mins[i]}ch, ${Math.max(1, Math.min(wanted[i]!, 60) / 10).toFixed(1)}fr)`))
    .join(' ');
  return { template, total: mins.reduce((a, b) => a + b, 0), mins };
}
