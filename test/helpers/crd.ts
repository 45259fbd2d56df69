// A schemaless CustomResourceDefinition (one served and stored version keeping unknown fields), for tests.

export interface SimpleCrdOptions {
  group: string;
  plural: string;
  kind: string;
  scope?: 'Namespaced' | 'Cluster';
  shortNames?: string[];
  /** Group spelling of the CRD's own apiVersion (upstream alias or canonical). */
  apiGroup?: 'apiextensions.k8s.io' | 'apiextensions.service.io';
}

export function simpleCrd(o: SimpleCrdOptions) {
  const names: Record<string, unknown> = { plural: o.plural, singular: o.kind.toLowerCase(), kind: o.kind };
  if (o.shortNames) names.shortNames = o.shortNames;
  return {
    apiVersion: `${o.apiGroup ?? 'apiextensions.k8s.io'}/v1`,
    kind: 'CustomResourceDefinition',
    metadata: { name: `${o.plural}.${o.group}` },
    spec: {
      group: o.group,
      scope: o.scope ?? 'Namespaced',
      names,
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}
