// The authorization.k8s.io/v1 review messages (scripts/add-authorization-proto.mjs) round-trip and
// carry upstream's field numbers.
import { describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject, encodeProtobufRaw } from './codec.js';

describe('authorization/v1 protobuf', () => {
  it('round-trips a SubjectAccessReview with every spec field, in either group spelling', () => {
    for (const group of ['authorization.k8s.io', 'authorization.service.io']) {
      const sar = {
        apiVersion: `${group}/v1`,
        kind: 'SubjectAccessReview',
        metadata: {},
        spec: {
          resourceAttributes: { namespace: 'ns', verb: 'get', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', name: 'web' },
          user: 'alice',
          groups: ['dev', 'system:authenticated'],
          extra: { scopes: ['a', 'b'] },
          uid: 'u-1',
        },
        status: { allowed: false, denied: true, reason: 'no', evaluationError: 'oops' },
      };
      expect(decodeProtobufObject(encodeProtobufObject(sar))).toEqual(sar);
    }
  });

  it('keeps allowed=false and incomplete=false visible, and encodes upstream field numbers', () => {
    const ssrr = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', metadata: {}, spec: { namespace: 'ns' }, status: { resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api'] }], incomplete: false } };
    expect(decodeProtobufObject(encodeProtobufObject(ssrr))).toEqual(ssrr);
    const ssar = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: {}, spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } }, status: { allowed: false } };
    expect(decodeProtobufObject(encodeProtobufObject(ssar))).toEqual(ssar);
    // SelfSubjectAccessReview: metadata=1, spec=2 { nonResourceAttributes=2 { path=1, verb=2 } }, status=3 { allowed=1 }
    const raw = Buffer.from(encodeProtobufRaw(ssar)).toString('hex');
    expect(raw).toBe('0a00' + '1211' + '120f' + '0a082f6865616c74687a' + '1203676574' + '1a02' + '0800');
  });
});
