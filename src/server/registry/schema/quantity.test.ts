import { describe, expect, it } from 'vitest';
import { canonicalQuantity, formatNanos, quantityNanos } from './quantity.js';

describe('exact quantities', () => {
  it('parse to nano-units exactly', () => {
    expect(quantityNanos('1')).toBe(10n ** 9n);
    expect(quantityNanos('500m')).toBe(5n * 10n ** 8n);
    expect(quantityNanos('1.5Gi')).toBe(1536n * 1024n * 1024n * 10n ** 9n);
    expect(quantityNanos('1e3')).toBe(10n ** 12n);
    expect(quantityNanos('0.1n')).toBe(1n); // below 1n rounds up, as upstream
    expect(quantityNanos('nope')).toBeUndefined();
  });

  it('print in upstream canonical form', () => {
    expect(canonicalQuantity('1.5Gi')).toBe('1536Mi');
    expect(canonicalQuantity('0.5')).toBe('500m');
    expect(canonicalQuantity('1500m')).toBe('1500m');
    expect(canonicalQuantity('2000')).toBe('2k');
    expect(canonicalQuantity('1024Ki')).toBe('1Mi');
    expect(canonicalQuantity('100Mi')).toBe('100Mi');
    expect(formatNanos(0n)).toBe('0');
    expect(formatNanos(-(10n ** 9n) * 3n)).toBe('-3');
  });
});
