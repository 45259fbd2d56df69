import { describe, expect, it } from 'vitest';
import { flattenFields, ownershipByField } from './managed-fields.js';

describe('managed fields', () => {
  it('flattens fieldsV1 sets into paths', () => {
    const f = {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {} } }, 'f:ports': { 'i:0': {} } },
      'f:finalizers': { 'v:"x"': {} },
    };
    expect(flattenFields(f)).toEqual([
      '.metadata.labels',
      '.metadata.labels.app',
      '.spec.containers[name=web]',
      '.spec.containers[name=web].image',
      '.spec.ports[0]',
      '.finalizers[="x"]',
    ]);
  });

  it('groups owners by field', () => {
    const own = ownershipByField([
      { manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } } },
      { manager: 'ctrl', operation: 'Update', subresource: 'status', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } },
    ]);
    expect(own).toEqual([
      { path: '.data.a', managers: [{ manager: 'kubectl', operation: 'Apply', subresource: undefined }, { manager: 'ctrl', operation: 'Update', subresource: 'status' }] },
      { path: '.data.b', managers: [{ manager: 'ctrl', operation: 'Update', subresource: 'status' }] },
    ]);
  });
});
