// The authentication kinds on the Protobuf wire (what kubectl sends): upstream field numbers.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/api/protobuf/index.js';
import type { ApiServer } from '../../src/server/app.js';
import { client, testServer } from '../helpers/server.js';

const PB = 'application/vnd.kubernetes.protobuf';
let s: ApiServer;
beforeAll(async () => (s = await testServer({}, { adminToken: 'adm' })));
afterAll(() => s.close());

async function post(path: string, obj: Record<string, unknown>, headers: Record<string, string> = {}) {
  const r = await fetch(s.url + path, { method: 'POST', headers: { 'Content-Type': PB, Accept: PB, ...headers }, body: Buffer.from(encodeProtobufObject(obj)) });
  expect(r.headers.get('content-type')).toBe(PB);
  return { status: r.status, obj: decodeProtobufObject(new Uint8Array(await r.arrayBuffer())) as any };
}

describe('authentication.k8s.io/v1 in Protobuf', () => {
  test('SelfSubjectReview round trip, extra values as string lists', async () => {
    const r = await post('/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} }, {
      Authorization: 'Bearer adm',
      'Impersonate-User': 'dana',
      'Impersonate-Uid': 'u1',
      'Impersonate-Extra-Team': 'blue',
    });
    expect(r.status).toBe(201);
    expect(r.obj).toMatchObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', status: { userInfo: { username: 'dana', uid: 'u1', groups: ['system:authenticated'], extra: { team: ['blue'] } } } });
  });

  test('TokenRequest and TokenReview round trip', async () => {
    const c = client(s.url);
    await c.post('/api/v1/namespaces', { metadata: { name: 'pb' } });
    await c.post('/api/v1/namespaces/pb/serviceaccounts', { metadata: { name: 'bot' } });
    const tr = await post('/api/v1/namespaces/pb/serviceaccounts/bot/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: {}, spec: { audiences: ['https://kubernetes.default.svc.cluster.local'], expirationSeconds: 900 } });
    expect(tr.status).toBe(201);
    expect(tr.obj).toMatchObject({ kind: 'TokenRequest', spec: { expirationSeconds: 900 }, status: { token: expect.stringMatching(/^ey/) } });
    expect(tr.obj.status.expirationTimestamp).toMatch(/Z$/);
    const review = await post('/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec: { token: tr.obj.status.token } });
    expect(review.obj.status).toMatchObject({ authenticated: true, user: { username: 'system:serviceaccount:pb:bot' }, audiences: ['https://kubernetes.default.svc.cluster.local'] });
  });
});
