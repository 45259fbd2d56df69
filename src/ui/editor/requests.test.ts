import { describe, expect, it } from 'vitest';
import { ApiError } from '../../client/index.js';
import { ParseError, applyConfiguration, editableObject, parseText, printObject, withTypeFirst, withoutNoise } from './documents.js';
import { applyConflicts, buildWrite, computePatch, errorText, fieldProblems, isStaleConflict, warningProblems } from './requests.js';

const obj = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '7', generation: 2, creationTimestamp: 't', managedFields: [{ manager: 'm' }] },
  data: { x: '1' },
  status: { s: 1 },
};

describe('documents', () => {
  it('derives what each mode edits and what previews hide', () => {
    expect(editableObject(obj).metadata).not.toHaveProperty('managedFields');
    expect(editableObject(obj).metadata?.resourceVersion).toBe('7');
    expect(applyConfiguration(obj)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { x: '1' } });
    expect(Object.keys(withoutNoise(obj)!.metadata!)).toEqual(['name', 'namespace', 'uid', 'creationTimestamp']);
    expect(Object.keys(withTypeFirst({ metadata: {}, kind: 'X' }, 'g/v1', 'Y'))).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(withTypeFirst({ metadata: {}, kind: 'X' }, 'g/v1', 'Y').kind).toBe('X');
  });

  it('parses YAML and JSON with error positions', () => {
    expect(parseText(printObject(obj, 'yaml'), 'yaml')).toEqual(obj);
    expect(parseText(printObject(obj, 'json'), 'json')).toEqual(obj);
    const y = (() => {
      try {
        parseText('a: 1\nb: [\n', 'yaml');
      } catch (e) {
        return e as ParseError;
      }
    })();
    expect(y).toBeInstanceOf(ParseError);
    expect(y!.line).toBeGreaterThanOrEqual(2);
    expect(() => parseText('a: 1\na: 2\n', 'yaml')).toThrow(/unique/);
  });
});

describe('requests', () => {
  const ref = { group: '', version: 'v1', resource: 'configmaps', namespace: 'ns', name: 'a' };

  it('builds each mode with its method, content type and query', () => {
    expect(buildWrite('apply', ref, 'x', { fieldValidation: 'Strict', force: true })).toMatchObject({
      method: 'PATCH',
      path: '/api/v1/namespaces/ns/configmaps/a',
      contentType: 'application/apply-patch+yaml',
      query: { fieldManager: 'periscope', fieldValidation: 'Strict', force: 'true' },
    });
    expect(buildWrite('merge', ref, '{}', { fieldValidation: 'Warn', force: true }).query.force).toBeUndefined();
    expect(buildWrite('strategic', ref, '{}', { fieldValidation: 'Ignore' }).contentType).toBe('application/strategic-merge-patch+json');
    expect(buildWrite('replace', ref, '{}', { fieldValidation: 'Strict' }).method).toBe('PUT');
    expect(buildWrite('create', ref, '{}', { fieldValidation: 'Strict' })).toMatchObject({ method: 'POST', path: '/api/v1/namespaces/ns/configmaps' });
  });

  it('computes patches locked on the resourceVersion', () => {
    const before = editableObject(obj);
    const after = { ...before, data: { x: '2' } };
    expect(computePatch('merge', before, after, { guardResourceVersion: true })).toEqual({ data: { x: '2' }, metadata: { resourceVersion: '7' } });
    expect(computePatch('merge', before, before, { guardResourceVersion: true })).toEqual({});
    expect(computePatch('json', before, after, { guardResourceVersion: true })).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '7' },
      { op: 'test', path: '/data/x', value: '1' },
      { op: 'replace', path: '/data/x', value: '2' },
    ]);
    expect(computePatch('strategic', before, after, { guardResourceVersion: false })).toEqual({ data: { x: '2' } });
  });

  it('reads apply conflicts, stale writes and field problems from errors', () => {
    const conflict = new ApiError(409, 'Apply failed with 2 conflicts', {
      details: {
        causes: [
          { reason: 'FieldManagerConflict', message: 'conflict with "deployer" using apps/v1', field: '.spec.replicas' },
          { reason: 'FieldManagerConflict', message: 'conflict with "hpa" with subresource "scale" using apps/v1', field: '.spec.replicas' },
        ],
      },
    });
    expect(applyConflicts(conflict)).toEqual([
      { field: '.spec.replicas', manager: 'deployer', apiVersion: 'apps/v1', subresource: undefined, message: 'conflict with "deployer" using apps/v1' },
      { field: '.spec.replicas', manager: 'hpa', apiVersion: 'apps/v1', subresource: 'scale', message: 'conflict with "hpa" with subresource "scale" using apps/v1' },
    ]);
    expect(isStaleConflict(conflict)).toBe(false);
    expect(isStaleConflict(new ApiError(409, 'the object has been modified'))).toBe(true);
    const testFailed = new ApiError(422, 'invalid', { details: { causes: [{ reason: 'FieldValueInvalid', field: 'patch[0]', message: 'Invalid value: "test": test operation failed at /metadata/resourceVersion' }] } });
    expect(isStaleConflict(testFailed)).toBe(true);
    expect(fieldProblems(testFailed).patchOps).toEqual([{ index: 0, message: expect.stringContaining('test operation failed') }]);

    const invalid = new ApiError(422, 'invalid', { details: { causes: [{ reason: 'FieldValueRequired', field: 'spec.template.spec.containers[0].image', message: 'Required value' }] } });
    expect(fieldProblems(invalid).object).toEqual([{ field: 'spec.template.spec.containers[0].image', message: 'Required value', severity: 'error' }]);
    const strict = new ApiError(400, 'strict decoding error: unknown field "spec.x", unknown field "spec.y"');
    expect(fieldProblems(strict).object.map((p) => p.field)).toEqual(['spec.x', 'spec.y']);
    // a patch's strict error: 422 on the field `patch` (upstream), its fields read from the message
    const patchStrict = new ApiError(422, ' "" is invalid: patch: ...', {
      details: { causes: [{ reason: 'FieldValueInvalid', field: 'patch', message: 'Invalid value: "map[spec:map[x:1]]": strict decoding error: unknown field "spec.x"' }] },
    });
    expect(fieldProblems(patchStrict).object).toEqual([{ field: 'spec.x', message: 'unknown field "spec.x"', severity: 'error' }]);
    expect(errorText(patchStrict)).toBe('patch: strict decoding error: unknown field "spec.x"');
    expect(errorText(strict)).toBe('strict decoding error: unknown field "spec.x", unknown field "spec.y"');
    const undeclared = new ApiError(400, 'failed to create typed patch object (ns/a; apps/v1, Kind=Deployment): .spec.colour: field not declared in schema');
    expect(fieldProblems(undeclared).object).toEqual([{ field: 'spec.colour', message: 'field not declared in schema', severity: 'error' }]);
    expect(warningProblems(['unknown field "spec.z"', 'something else'])).toEqual([{ field: 'spec.z', message: 'unknown field "spec.z"', severity: 'warning' }]);
  });
});
