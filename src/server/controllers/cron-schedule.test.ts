import { describe, expect, it } from 'vitest';
import { CronError, mostRecentSchedule, nextSchedule, parseCron } from './cron-schedule.js';

const at = (s: string) => Date.parse(s);

describe('cron schedules', () => {
  it('finds the next and the most recent times, with steps, ranges, lists and names', () => {
    const every15 = parseCron('*/15 * * * *');
    expect(new Date(nextSchedule(every15, undefined, at('2026-03-01T10:07:30Z'))!).toISOString()).toBe('2026-03-01T10:15:00.000Z');
    const weekdays = parseCron('30 9 * * mon-fri');
    // 2026-03-01 is a Sunday
    expect(new Date(nextSchedule(weekdays, undefined, at('2026-03-01T00:00:00Z'))!).toISOString()).toBe('2026-03-02T09:30:00.000Z');
    const r = mostRecentSchedule(parseCron('0 * * * *'), undefined, at('2026-03-01T07:30:00Z'), at('2026-03-01T10:10:00Z'));
    expect([new Date(r.time!).toISOString(), r.missed]).toEqual(['2026-03-01T10:00:00.000Z', 3]);
    expect(parseCron('@daily').sets[1]).toEqual(new Set([0]));
    expect(parseCron('0 0 1,15 jan,jul *').sets[3]).toEqual(new Set([1, 7]));
  });

  it('evaluates in spec.timeZone', () => {
    const nineInTokyo = parseCron('0 9 * * *');
    expect(new Date(nextSchedule(nineInTokyo, 'Asia/Tokyo', at('2026-03-01T00:30:00Z'))!).toISOString()).toBe('2026-03-02T00:00:00.000Z');
  });

  it('rejects malformed schedules with robfig/cron-like messages', () => {
    expect(() => parseCron('* * * *')).toThrow(CronError);
    expect(() => parseCron('61 * * * *')).toThrow(/above maximum/);
    expect(() => parseCron('*/0 * * * *')).toThrow(/step/);
    expect(() => parseCron('x * * * *')).toThrow(/failed to parse int/);
  });
});
