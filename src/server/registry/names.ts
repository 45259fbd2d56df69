// The one alias table between upstream spellings (*.k8s.io, kubernetes media types) and the
// canonical `service` spellings we put on the wire. Both are accepted on input.
// scripts/derive-schemas.mjs parses GROUP_ALIASES from this file: keep it a flat literal.

/** upstream group -> canonical group */
export const GROUP_ALIASES: Record<string, string> = {
  'authorization.k8s.io': 'authorization.service.io',
  'coordination.k8s.io': 'coordination.service.io',
  'rbac.authorization.k8s.io': 'rbac.authorization.service.io',
  'apiextensions.k8s.io': 'apiextensions.service.io',
  'meta.k8s.io': 'meta.service.io',
  'apidiscovery.k8s.io': 'apidiscovery.service.io',
  'authentication.k8s.io': 'authentication.service.io',
  'admissionregistration.k8s.io': 'admissionregistration.service.io',
  'admission.k8s.io': 'admission.service.io',
  'networking.k8s.io': 'networking.service.io',
  'storage.k8s.io': 'storage.service.io',
  'scheduling.k8s.io': 'scheduling.service.io',
  'discovery.k8s.io': 'discovery.service.io',
  'events.k8s.io': 'events.service.io',
  'node.k8s.io': 'node.service.io',
  'certificates.k8s.io': 'certificates.service.io',
  'apiregistration.k8s.io': 'apiregistration.service.io',
  'flowcontrol.apiserver.k8s.io': 'flowcontrol.apiserver.service.io',
  'metrics.k8s.io': 'metrics.service.io',
};

const CANONICAL_TO_UPSTREAM: Record<string, string> = Object.fromEntries(
  Object.entries(GROUP_ALIASES).map(([up, canon]) => [canon, up]),
);

/** Canonical spelling of a group (identity for groups without an alias, e.g. 'policy', 'apps'). */
export function canonicalGroup(group: string): string {
  return GROUP_ALIASES[group] ?? group;
}

/** Upstream spelling of a group (identity for groups without an alias). */
export function upstreamGroup(group: string): string {
  return CANONICAL_TO_UPSTREAM[group] ?? group;
}

/** True when the group (either spelling) has two spellings. */
export function isAliasGroup(group: string): boolean {
  return group in GROUP_ALIASES || group in CANONICAL_TO_UPSTREAM;
}

/**
 * A group in the spelling family of `reference` (a group the request named, e.g. the apidiscovery group it
 * negotiated): upstream's when `reference` is an upstream spelling, canonical otherwise.
 */
export function groupSpelledLike(group: string, reference: string): string {
  const canon = canonicalGroup(group);
  return reference in GROUP_ALIASES ? upstreamGroup(canon) : canon;
}

/** Both spellings of a group, canonical first (one entry for groups without an alias). */
export function groupSpellings(group: string): string[] {
  const canon = canonicalGroup(group);
  const up = upstreamGroup(canon);
  return up === canon ? [canon] : [canon, up];
}

/** Canonical apiVersion string for a group/version ('v1' for core). */
export function canonicalApiVersion(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return apiVersion;
  return `${canonicalGroup(apiVersion.slice(0, slash))}${apiVersion.slice(slash)}`;
}

/** Upstream apiVersion string for a group/version ('v1' for core). */
export function upstreamApiVersion(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return apiVersion;
  return `${upstreamGroup(apiVersion.slice(0, slash))}${apiVersion.slice(slash)}`;
}

/**
 * The object as security decisions outside the server see it (authorization and admission webhooks, admission
 * policies): apiVersion in upstream's spelling, what policy engines are written against. A shallow copy; the
 * object itself is not changed.
 */
export function inUpstreamSpelling<T extends { apiVersion?: unknown }>(o: T): T {
  if (typeof o.apiVersion !== 'string') return o;
  const up = upstreamApiVersion(o.apiVersion);
  return up === o.apiVersion ? o : { ...o, apiVersion: up };
}

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.service.protobuf';
export const PROTOBUF_MEDIA_TYPE_UPSTREAM = 'application/vnd.kubernetes.protobuf';

/** Canonical spelling of a media type (parameters are kept). */
export function canonicalMediaType(mediaType: string): string {
  return mediaType.startsWith(PROTOBUF_MEDIA_TYPE_UPSTREAM)
    ? PROTOBUF_MEDIA_TYPE + mediaType.slice(PROTOBUF_MEDIA_TYPE_UPSTREAM.length)
    : mediaType;
}

export const INITIAL_EVENTS_END_ANNOTATION = 'service.io/initial-events-end';
export const INITIAL_EVENTS_END_ANNOTATION_UPSTREAM = 'k8s.io/initial-events-end';

/** Canonical spelling of an annotation key with an upstream alias. */
export function canonicalAnnotation(key: string): string {
  return key === INITIAL_EVENTS_END_ANNOTATION_UPSTREAM ? INITIAL_EVENTS_END_ANNOTATION : key;
}
