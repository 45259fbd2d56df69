// The schema of one kind from the server's /openapi/v3 (built-ins and CRDs): a JSON Schema registered
// for the YAML editor, the patch strategies for strategic merge patches, and new-object templates.
import { useEffect, useMemo } from 'react';
import type { ApiResource } from '../../client/index.js';
import { apiVersionOf } from '../../client/index.js';
import { useOpenApi } from '../data/queries.js';
import { useCollection } from '../data/informers.js';
import { kindSchemaName, patchSchemaFor, templateFor, toJsonSchema } from '../lib/openapi-schema.js';
import type { PatchSchema } from '../lib/patches.js';
import { registerYamlSchema } from '../monaco/index.js';

export interface KindSchema {
  /** For MonacoEditor's schemaUri (registered with monaco-yaml). */
  uri: string;
  jsonSchema: Record<string, unknown>;
  patchSchema: PatchSchema | undefined;
  template(opts: { name?: string; namespace?: string }): Record<string, unknown>;
}


export function useKindSchema(info: ApiResource | undefined): { schema?: KindSchema; error: unknown; loading: boolean } {
  const q = useOpenApi(info?.group ?? '', info?.version ?? '');
  const schema = useMemo(() => {
    if (!info || !q.data) return undefined;
    const name = kindSchemaName(q.data, info.group, info.version, info.kind);
    if (!name) return undefined;
    const apiVersion = apiVersionOf(info.group, info.version);
    return {
      uri: `inmemory://periscope/schemas/${info.group || 'core'}/${info.version}/${info.kind}.json`,
      jsonSchema: toJsonSchema(q.data, name, { apiVersion, kind: info.kind }),
      patchSchema: patchSchemaFor(q.data, name),
      template: (o: { name?: string; namespace?: string }) => templateFor(q.data, name, { apiVersion, kind: info.kind, ...o }),
    } satisfies KindSchema;
  }, [info, q.data]);
  useEffect(() => {
    if (schema) registerYamlSchema(schema.uri, [], schema.jsonSchema);
  }, [schema]);
  return { schema, error: q.error, loading: q.isLoading };
}

/**
 * Whether a type comes from a CustomResourceDefinition: the server refuses strategic merge patches
 * for those (415). Known from the CRD objects (metadata only, shared with live discovery).
 */
export function useIsCustomResource(info: ApiResource | undefined, crdTypes: ApiResource[]): boolean | undefined {
  const crdType = crdTypes.find((r) => r.group.endsWith('.service.io')) ?? crdTypes[0];
  const crds = useCollection<{ metadata?: { name?: string } }>(crdType ? { group: crdType.group, version: crdType.version, resource: crdType.resource, representation: 'metadata' } : undefined);
  if (!info) return undefined;
  if (!crdType) return false;
  if (!crds.data) return undefined;
  return crds.data.items.some((c) => (c as { metadata?: { name?: string } }).metadata?.name === `${info.resource}.${info.group}`);
}
