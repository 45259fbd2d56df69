import { describe, expect, it } from 'vitest';
import { ageSince, humanDuration } from './age.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('humanDuration', () => {
  it.each([
    [-5 * s, '<invalid>'],
    [-1 * s, '0s'],
    [0, '0s'],
    [45 * s, '45s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [5 * m + 30 * s, '5m30s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [3 * h + 20 * m, '3h20m'],
    [8 * h + 20 * m, '8h'],
    [47 * h, '47h'],
    [3 * d, '3d'],
    [3 * d + 4 * h, '3d4h'],
    [10 * d + 4 * h, '10d'],
    [2 * 365 * d + 10 * d, '2y10d'],
    [9 * 365 * d, '9y'],
  ])('%d ms -> %s', (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });

  it('ages timestamps, unknown when missing', () => {
    const now = Date.parse('2024-01-01T00:10:00Z');
    expect(ageSince('2024-01-01T00:05:00Z', now)).toBe('5m');
    expect(ageSince(undefined, now)).toBe('<unknown>');
    expect(ageSince('nope', now)).toBe('<unknown>');
  });
});
