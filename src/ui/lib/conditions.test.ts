import { describe, expect, it } from 'vitest';
import { conditionTone } from './conditions.js';

describe('conditionTone', () => {
  it('reads pressure conditions as healthy when False', () => {
    for (const t of ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'NetworkUnavailable']) {
      expect(conditionTone(t, 'False')).toBe('ok');
      expect(conditionTone(t, 'True')).toBe('bad');
    }
  });
  it('reads ordinary conditions as healthy when True', () => {
    expect(conditionTone('Ready', 'True')).toBe('ok');
    expect(conditionTone('Ready', 'False')).toBe('bad');
    expect(conditionTone('Available', 'Unknown')).toBe('unknown');
  });
});
