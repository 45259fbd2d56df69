import { describe, expect, it } from 'vitest';
import { checkJSONPath, evaluateJSONPath, firstJSONPath } from './jsonpath.js';

const obj = {
  metadata: { name: 'a', labels: { app: 'web', 'app.kubernetes.io/name': 'shop' } },
  spec: { replicas: 3, containers: [{ name: 'c1', image: 'i1' }, { name: 'c2', image: 'i2' }] },
  status: {
    conditions: [
      { type: 'Available', status: 'False' },
      { type: 'Ready', status: 'True', count: 2 },
    ],
  },
};

describe('jsonpath', () => {
  it.each([
    ['.spec.replicas', [3]],
    ['{.spec.replicas}', [3]],
    ['$.spec.replicas', [3]],
    ['.metadata.labels.app', ['web']],
    [".metadata.labels['app.kubernetes.io/name']", ['shop']],
    ['.metadata.labels.app\\.kubernetes\\.io/name', ['shop']],
    ['.status.conditions[?(@.type=="Ready")].status', ['True']],
    [".status.conditions[?(@.type=='Available')].status", ['False']],
    ['.status.conditions[?(@.count>1)].type', ['Ready']],
    ['.status.conditions[?(@.count)].type', ['Ready']],
    ['.spec.containers[*].name', ['c1', 'c2']],
    ['.spec.containers[1].image', ['i2']],
    ['.spec.containers[-1].image', ['i2']],
    ['.spec.containers[0:1].name', ['c1']],
    ['..image', ['i1', 'i2']],
    ['.spec.missing', []],
    ['.spec.replicas.deeper', []],
  ])('%s', (path, want) => {
    expect(evaluateJSONPath(path, obj)).toEqual(want);
  });

  it('returns the first match', () => {
    expect(firstJSONPath('.spec.containers[*].name', obj)).toBe('c1');
    expect(firstJSONPath('.nope', obj)).toBeUndefined();
  });

  it('reports syntax errors', () => {
    expect(checkJSONPath('.spec.replicas')).toBeUndefined();
    expect(checkJSONPath('.spec[')).toBeTypeOf('string');
    expect(checkJSONPath('.status.conditions[?(@.type=="Ready"].status')).toBeTypeOf('string');
    expect(checkJSONPath('.a..')).toBeTypeOf('string');
  });
});
