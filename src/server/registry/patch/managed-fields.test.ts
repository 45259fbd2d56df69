import { describe, expect, it } from 'vitest';
import { decodeManagedFields, decodedSetsHeld } from './managed-fields.js';

const entries = (i: number) => [
  { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:phase': {}, [`f:x${i}`]: {} } }, subresource: 'status' },
];

describe('managedFields decoding memo', () => {
  it('reuses the set parsed for the same fieldsV1 object', () => {
    const e = entries(0);
    const a = decodeManagedFields(e).values().next().value!.set;
    const b = decodeManagedFields(e).values().next().value!.set;
    expect(b).toBe(a);
  });

  it('holds a bounded number of parsed sets, however many object versions were decoded', () => {
    // each stored object version has fieldsV1 objects of its own: a memo keyed weakly by them kept a set alive per
    // version the watch cache's history retains
    const kept: unknown[] = [];
    for (let i = 0; i < 5000; i++) {
      const e = entries(i);
      kept.push(e);
      decodeManagedFields(e);
    }
    expect(decodedSetsHeld()).toBeLessThanOrEqual(1024);
    expect(decodedSetsHeld()).toBeGreaterThan(0);
  });
});
