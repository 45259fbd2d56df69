import { describe, expect, it } from 'vitest';
import { ApiError, isExpired } from './errors.js';
import { ApiClient } from './http.js';
import { acceptFor, formOf } from './media.js';
import { objectKey, resourcePath, withQuery } from './paths.js';
import { parseWarnings } from './warnings.js';
import { Backoff } from './backoff.js';

describe('paths', () => {
  it('builds resource paths', () => {
    expect(resourcePath({ group: '', version: 'v1', resource: 'pods' })).toBe('/api/v1/pods');
    expect(resourcePath({ group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'p', subresource: 'status' })).toBe('/api/v1/namespaces/ns/pods/p/status');
    expect(resourcePath({ group: 'apps', version: 'v1', resource: 'deployments', namespace: 'a b' })).toBe('/apis/apps/v1/namespaces/a%20b/deployments');
    expect(resourcePath({ group: '', version: 'v1', resource: 'namespaces', name: 'x' })).toBe('/api/v1/namespaces/x');
    expect(withQuery('/api/v1/pods', { limit: 5, continue: undefined, labelSelector: 'a=b,c' })).toBe('/api/v1/pods?limit=5&labelSelector=a%3Db%2Cc');
    expect(objectKey({ namespace: 'n', name: 'x' })).toBe('n/x');
    expect(objectKey({ name: 'x' })).toBe('x');
  });
});

describe('warnings', () => {
  it('parses one or several warning values', () => {
    expect(parseWarnings('299 - "unknown field \\"spec.x\\""')).toEqual(['unknown field "spec.x"']);
    expect(parseWarnings('299 - "a", 299 - "b, c"')).toEqual(['a', 'b, c']);
    expect(parseWarnings(null)).toEqual([]);
  });
});

describe('media', () => {
  it('asks for metadata lists and watches with the right `as`', () => {
    expect(acceptFor('metadata', { list: true })).toContain('as=PartialObjectMetadataList;v=v1;g=meta.service.io');
    expect(acceptFor('metadata', { watch: true })).toContain('as=PartialObjectMetadata;v=v1;g=meta.k8s.io;q=0.9');
    expect(acceptFor('object')).toBe('application/json');
  });
  it('classifies bodies by kind and apiVersion', () => {
    expect(formOf({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' })).toBe('Table');
    expect(formOf({ kind: 'Table', apiVersion: 'example.com/v1' })).toBe('object');
    expect(formOf({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.service.io/v1', items: [] })).toBe('PartialObjectMetadataList');
    expect(formOf({ kind: 'ConfigMapList', apiVersion: 'v1', items: [] })).toBe('list');
    expect(formOf({ kind: 'Status', code: 404 })).toBe('Status');
  });
});

describe('errors', () => {
  it('reads Status bodies and bare HTTP errors', () => {
    const e = ApiError.from(410, { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' });
    expect([e.code, e.reason, e.message, isExpired(e)]).toEqual([410, 'Expired', 'too old', true]);
    const bare = ApiError.from(502, '<html>bad gateway</html>', 'Bad Gateway');
    expect([bare.code, bare.reason]).toEqual([502, 'InternalError']);
    expect(ApiError.from(403, undefined, 'Forbidden').reason).toBe('Forbidden');
  });
});

describe('backoff', () => {
  it('doubles up to the maximum with jitter, and resets', () => {
    const b = new Backoff(100, 1000, () => 0.5);
    expect([b.next(), b.next(), b.next(), b.next(), b.next()]).toEqual([100, 200, 400, 800, 1000]);
    b.reset();
    expect(b.next()).toBe(100);
  });
});

describe('preload', () => {
  const counting = (fail = false) => {
    const sent: string[] = [];
    const client = new ApiClient({
      fetch: async (input, init) => {
        sent.push(`${(init?.headers as Record<string, string>)?.Accept} ${String(input)}`);
        return fail && sent.length === 1 ? new Response('{"kind":"Status","code":503}', { status: 503, headers: { 'content-type': 'application/json' } }) : new Response(`{"n":${sent.length}}`, { headers: { 'content-type': 'application/json' } });
      },
    });
    return { sent, client };
  };

  it('answers the next identical request once, without asking again', async () => {
    const { sent, client } = counting();
    client.preload('/api/v1/pods', { query: { limit: 200 }, accept: 'application/json;as=Table' });
    const r = await client.request('GET', '/api/v1/pods', { query: { limit: 200, continue: undefined }, accept: 'application/json;as=Table' });
    expect(r.body).toEqual({ n: 1 });
    expect(sent).toHaveLength(1);
    // taken once; another Accept or query is another request
    await client.request('GET', '/api/v1/pods', { query: { limit: 200 }, accept: 'application/json;as=Table' });
    await client.request('GET', '/api/v1/pods', { query: { limit: 200 }, accept: 'application/json' });
    expect(sent).toHaveLength(3);
  });

  it('asks again when the preload failed', async () => {
    const { sent, client } = counting(true);
    client.preload('/api/v1/pods');
    expect((await client.request('GET', '/api/v1/pods')).body).toEqual({ n: 2 });
    expect(sent).toHaveLength(2);
  });
});
