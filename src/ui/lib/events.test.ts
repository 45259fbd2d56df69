import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/index.js';
import { eventRow, eventRows } from './events.js';

const ev = (x: Record<string, unknown>) => x as unknown as KubeObject;

describe('events', () => {
  it('reads both shapes: core (count, lastTimestamp) and events.k8s.io (series, regarding, note)', () => {
    expect(eventRow(ev({ metadata: { uid: 'a' }, type: 'Warning', reason: 'BackOff', message: 'm', count: 7, lastTimestamp: '2026-01-01T00:00:00Z', involvedObject: { kind: 'Pod', name: 'p' } }))).toMatchObject({
      count: 7,
      type: 'Warning',
      object: { kind: 'Pod', name: 'p' },
      last: Date.parse('2026-01-01T00:00:00Z'),
    });
    expect(eventRow(ev({ metadata: { uid: 'b' }, reason: 'Scheduled', note: 'n', series: { count: 3, lastObservedTime: '2026-01-02T00:00:00Z' }, regarding: { kind: 'Pod', name: 'q' } }))).toMatchObject({ count: 3, type: 'Normal', message: 'n', object: { name: 'q' } });
  });
  it('newest first, filtered by type and reason', () => {
    const rows = eventRows([
      ev({ metadata: { uid: 'old' }, type: 'Warning', reason: 'A', lastTimestamp: '2026-01-01T00:00:00Z' }),
      ev({ metadata: { uid: 'new' }, type: 'Warning', reason: 'B', lastTimestamp: '2026-01-03T00:00:00Z' }),
      ev({ metadata: { uid: 'normal' }, type: 'Normal', reason: 'A', lastTimestamp: '2026-01-02T00:00:00Z' }),
    ]);
    expect(rows.map((r) => r.uid)).toEqual(['new', 'normal', 'old']);
    expect(eventRows([ev({ metadata: { uid: 'x' }, type: 'Warning', reason: 'A' }), ev({ metadata: { uid: 'y' }, type: 'Normal', reason: 'A' })], { type: 'Warning' }).map((r) => r.uid)).toEqual(['x']);
    expect(eventRows([ev({ metadata: { uid: 'x' }, reason: 'A' }), ev({ metadata: { uid: 'y' }, reason: 'B' })], { reason: 'B' }).map((r) => r.uid)).toEqual(['y']);
  });
});
