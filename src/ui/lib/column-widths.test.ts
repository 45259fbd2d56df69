import { describe, expect, it } from 'vitest';
import { columnWidths } from './column-widths.js';
import type { ViewColumn } from './table-view.js';

const col = (name: string, extra: Partial<ViewColumn> = {}): ViewColumn => ({ id: name, name, type: 'string', priority: 0, numeric: false, value: () => '', ...extra });

// an all-namespaces pod list: long namespaces and names, then the columns a person reads across
const pods = [col('Namespace'), col('Name'), col('Ready'), col('Status'), col('Restarts', { numeric: false }), col('Age', { timestamp: () => 0 }), col('IP'), col('Node')];
const wanted = [50, 56, 7, 18, 14, 9, 15, 24];

describe('column widths', () => {
  it('without a known width: flexible columns start at 14ch, the others whole', () => {
    const w = columnWidths(pods, wanted);
    expect(w.mins).toEqual([14, 14, 7, 18, 14, 9, 15, 24]);
  });

  it('the minimums fit the width the table has: Name and Namespace give way first', () => {
    const budget = 110;
    const w = columnWidths(pods, wanted, budget);
    expect(w.total).toBeLessThanOrEqual(budget);
    // the columns after Name keep their content whole
    expect(w.mins.slice(2)).toEqual(wanted.slice(2));
    expect(w.mins[0]).toBeGreaterThanOrEqual(10);
    expect(w.mins[1]).toBeGreaterThanOrEqual(10);
  });

  it('with room to spare, Name and Namespace take their content (up to 48ch)', () => {
    expect(columnWidths(pods, wanted, 400).mins).toEqual([48, 48, ...wanted.slice(2)]);
    expect(columnWidths(pods, [30, 40, ...wanted.slice(2)], 400).mins).toEqual([30, 40, ...wanted.slice(2)]);
  });

  it('when even the floors do not fit, wide text columns give way to 20ch, numbers and ages never', () => {
    const wide = [col('Name'), col('Message'), col('Count', { numeric: true }), col('Age', { timestamp: () => 0 })];
    expect(columnWidths(wide, [40, 32, 7, 9], 48).mins).toEqual([10, 22, 7, 9]);
    // past every floor the table scrolls rather than cut a number or an age
    expect(columnWidths(wide, [40, 32, 7, 9], 30).mins).toEqual([10, 20, 7, 9]);
  });

  it('a whole column is capped at 32ch (longer text ellipsizes with its title)', () => {
    expect(columnWidths([col('Name'), col('Message')], [20, 90], 400).mins).toEqual([20, 32]);
  });

  it('tracks: fixed for numbers and ages, growing for text', () => {
    const w = columnWidths([col('Name'), col('Count', { numeric: true }), col('Age', { timestamp: () => 0 })], [20, 7, 9], 200);
    expect(w.template).toBe('minmax(20ch, 2.0fr) 7ch 9ch');
  });
});
