// Content negotiation: Accept headers for the Table and metadata-only forms (neutral and upstream spellings,
// plain JSON as the fallback) and recognising which form came back.

/** The meta group spellings, most preferred first: Periscope's neutral one, then upstream's. */
export const META_GROUPS = ['meta.service.io', 'meta.k8s.io'] as const;
/**
 * Aggregated discovery spellings, most preferred first. A server answers in the spelling negotiated, each aliased
 * group once: Periscope's neutral one first (groups like rbac.authorization.service.io), upstream's for a real
 * cluster, which knows only that one.
 */
export const DISCOVERY_GROUPS = ['apidiscovery.service.io', 'apidiscovery.k8s.io'] as const;

export type Representation = 'object' | 'table' | 'metadata';

/** What a response body turned out to be. */
export type Form = 'object' | 'list' | 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList' | 'Status' | 'unknown';

function alternatives(as: string): string {
  return META_GROUPS.map((g, i) => `application/json;as=${as};v=v1;g=${g}${i ? `;q=0.9` : ''}`).join(',');
}

/** Accept header asking for the given representation, with JSON objects as the fallback. */
export function acceptFor(rep: Representation, opts: { watch?: boolean; list?: boolean } = {}): string {
  if (rep === 'object') return 'application/json';
  if (rep === 'table') return `${alternatives('Table')},application/json;q=0.5`;
  const as = opts.list && !opts.watch ? 'PartialObjectMetadataList' : 'PartialObjectMetadata';
  return `${alternatives(as)},application/json;q=0.5`;
}

export const AGGREGATED_DISCOVERY_ACCEPT =
  DISCOVERY_GROUPS.map((g, i) => `application/json;g=${g};v=v2;as=APIGroupDiscoveryList${i ? ';q=0.9' : ''}`).join(',') + ',application/json;q=0.5';

export function isMetaGroupVersion(apiVersion: unknown): boolean {
  return typeof apiVersion === 'string' && META_GROUPS.some((g) => apiVersion === `${g}/v1`);
}

/** Classifies a decoded body by kind and apiVersion. */
export function formOf(body: unknown): Form {
  if (typeof body !== 'object' || body === null) return 'unknown';
  const { kind, apiVersion } = body as { kind?: unknown; apiVersion?: unknown };
  if (kind === 'Status') return 'Status';
  if (isMetaGroupVersion(apiVersion)) {
    if (kind === 'Table') return 'Table';
    if (kind === 'PartialObjectMetadata') return 'PartialObjectMetadata';
    if (kind === 'PartialObjectMetadataList') return 'PartialObjectMetadataList';
  }
  if (Array.isArray((body as { items?: unknown }).items) && typeof kind === 'string' && kind.endsWith('List')) return 'list';
  if (Array.isArray((body as { items?: unknown }).items)) return 'list';
  return typeof kind === 'string' ? 'object' : 'unknown';
}

export function mediaEssence(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}
