import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, testServer } from '../../../test/helpers/server.js';
import type { ApiServer } from '../../server/app.js';
import { kindSchemaName, openApiPath, patchSchemaFor, templateFor, toJsonSchema, type OpenApiDocument } from './openapi-schema.js';

describe('openapi-schema against the server documents', () => {
  let srv: ApiServer;
  let api: ReturnType<typeof client>;
  let apps: OpenApiDocument;
  let core: OpenApiDocument;

  beforeAll(async () => {
    srv = await testServer();
    api = client(srv.url);
    await api.post('/api/v1/namespaces', { metadata: { name: 'default' } });
    apps = (await api.get(openApiPath('apps', 'v1'))).body;
    core = (await api.get(openApiPath('', 'v1'))).body;
  });
  afterAll(async () => {
    await srv?.close();
  });

  it('finds a kind by its group-version-kind', () => {
    expect(kindSchemaName(apps, 'apps', 'v1', 'Deployment')).toBe('io.k8s.api.apps.v1.Deployment');
    expect(kindSchemaName(core, '', 'v1', 'ConfigMap')).toBe('io.k8s.api.core.v1.ConfigMap');
    expect(kindSchemaName(core, '', 'v1', 'Nope')).toBeUndefined();
  });

  it('builds a self-contained JSON Schema with descriptions for hovers', () => {
    const s = toJsonSchema(apps, 'io.k8s.api.apps.v1.Deployment', { apiVersion: 'apps/v1', kind: 'Deployment' }) as any;
    expect(s.properties.kind.enum).toEqual(['Deployment']);
    expect(s.required).toEqual(expect.arrayContaining(['apiVersion', 'kind', 'metadata']));
    expect(s.properties.spec.$ref).toBe('#/definitions/io.k8s.api.apps.v1.DeploymentSpec');
    const spec = s.definitions['io.k8s.api.apps.v1.DeploymentSpec'];
    expect(spec.properties.replicas).toMatchObject({ type: 'integer', description: 'integer (int32)' });
    expect(spec.additionalProperties).toBe(false);
    // every $ref resolves inside the document
    const refs = [...JSON.stringify(s).matchAll(/"\$ref":"#\/definitions\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(10);
    for (const r of refs) expect(s.definitions[r], r).toBeDefined();
    const container = s.definitions['io.k8s.api.core.v1.Container'];
    expect(container.properties.env.description).toBe('list of EnvVar (keyed by name)');
    // quantities accept numbers, int-or-string accepts both
    const reqs = s.definitions['io.k8s.api.core.v1.ResourceRequirements'].properties.requests.additionalProperties;
    expect(reqs.type).toEqual(['string', 'number']);
  });

  it('keeps CRD schema descriptions and leaves preserve-unknown-fields open', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    description: 'What the widget should be.',
                    required: ['size'],
                    properties: { size: { type: 'integer', description: 'How big.', minimum: 1 }, extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
                  },
                },
              },
            },
          },
        ],
      },
    };
    expect((await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    let doc: OpenApiDocument | undefined;
    for (let i = 0; i < 100 && !doc?.components?.schemas; i++) {
      const r = await api.get(openApiPath('example.com', 'v1'));
      if (r.status === 200) doc = r.body;
      else await new Promise((res) => setTimeout(res, 50));
    }
    const name = kindSchemaName(doc!, 'example.com', 'v1', 'Widget')!;
    const s = toJsonSchema(doc!, name, { apiVersion: 'example.com/v1', kind: 'Widget' }) as any;
    // hovers show the field's own words and its type
    expect(s.properties.spec.description).toBe('What the widget should be.\n\nType: object');
    expect(s.properties.spec.properties.size).toMatchObject({ description: 'How big.\n\nType: integer', minimum: 1 });
    expect(s.properties.spec.properties.extra.additionalProperties).toBeUndefined();
    expect(templateFor(doc!, name, { apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default' })).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'example', namespace: 'default' },
      spec: { size: 1 },
    });
    expect(patchSchemaFor(doc!, name)?.field('spec')?.strategies).toEqual([]);
  });

  it('fills templates with required fields; the server accepts the ConfigMap and Deployment ones (image added)', async () => {
    const cm = templateFor(core, 'io.k8s.api.core.v1.ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'tpl' });
    expect(cm).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tpl', namespace: 'default' } });
    expect((await api.post('/api/v1/namespaces/default/configmaps?dryRun=All', cm)).status).toBe(201);

    const dep = templateFor(apps, 'io.k8s.api.apps.v1.Deployment', { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' }) as any;
    expect(dep.spec.selector).toEqual({ matchLabels: { app: 'web' } });
    expect(dep.spec.template.metadata.labels).toEqual({ app: 'web' });
    expect(dep.spec.template.spec.containers).toEqual([{ name: 'web' }]);
    dep.spec.template.spec.containers[0].image = 'nginx';
    const r = await api.post('/apis/apps/v1/namespaces/default/deployments?dryRun=All', dep);
    expect(r.status).toBe(201);
  });

  it('exposes patch strategies and merge keys through $refs', () => {
    const p = patchSchemaFor(apps, 'io.k8s.api.apps.v1.Deployment')!;
    const containers = p.field('spec')?.field('template')?.field('spec')?.field('containers');
    expect(containers).toMatchObject({ strategies: ['merge'], mergeKey: 'name' });
    expect(containers?.items()?.field('env')?.mergeKey).toBe('name');
    expect(p.field('spec')?.field('strategy')?.strategies).toEqual(['retainKeys']);
    expect(p.field('metadata')?.field('finalizers')?.strategies).toEqual(['merge']);
  });
});
