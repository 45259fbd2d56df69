import { describe, expect, it } from 'vitest';
import type { TableRow } from '../../client/index.js';
import { cellText, parseShortDuration, tableColumns } from './table-view.js';

describe('Restarts column', () => {
  const cols = tableColumns(
    [
      { name: 'Name', type: 'string', format: 'name', description: '', priority: 0 },
      { name: 'Restarts', type: 'string', format: '', description: '', priority: 0 },
    ],
    { allNamespaces: false, wide: false },
  );
  const restarts = cols[1]!;

  it('parses kubectl durations', () => {
    expect(parseShortDuration('95s')).toBe(95_000);
    expect(parseShortDuration('3m2s')).toBe(182_000);
    expect(parseShortDuration('4h')).toBe(4 * 3_600_000);
    expect(parseShortDuration('4x')).toBeUndefined();
  });

  it('keeps "(95s ago)" ticking with the clock', () => {
    expect(restarts.ticking).toBe(true);
    const row: TableRow = { cells: ['p', '3 (95s ago)'] };
    const t0 = 1_000_000;
    expect(cellText(restarts, row, t0)).toBe('3 (1m35s ago)');
    expect(cellText(restarts, row, t0 + 30_000)).toBe('3 (2m5s ago)');
    expect(cellText(restarts, { cells: ['p', '0'] }, t0)).toBe('0');
  });
});
