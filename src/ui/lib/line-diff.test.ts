import { describe, expect, test } from 'vitest';
import { changedHunks, diffLines } from './line-diff.js';

describe('diffLines', () => {
  test('marks changed, added and removed lines', () => {
    expect(diffLines('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual([
      { op: ' ', text: 'a' },
      { op: '-', text: 'b' },
      { op: '+', text: 'B' },
      { op: ' ', text: 'c' },
      { op: '+', text: 'd' },
    ]);
    expect(diffLines('', 'x')).toEqual([{ op: '+', text: 'x' }]);
  });
  test('hunks keep context and mark gaps', () => {
    const before = Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n');
    const after = before.replace('l10', 'L10');
    const h = changedHunks(diffLines(before, after)!, 1);
    expect(h).toEqual([{ op: ' ', text: 'l9' }, { op: '-', text: 'l10' }, { op: '+', text: 'L10' }, { op: ' ', text: 'l11' }, 'gap']);
  });
});
