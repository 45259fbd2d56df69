// API groups as the server in front of us spells them: a Periscope server serves `*.service.io` and the
// upstream `*.k8s.io` aliases, a real cluster only `*.k8s.io`. Every explorer request names a group
// through discovery, never a spelling written here.
import { sameGroup, type ApiResource, type Discovery } from '../../client/index.js';

/**
 * The served resource `resource` of the group spelled `group` in either spelling (preferred version first;
 * the neutral spelling over its alias when both are served), or undefined when the server does not serve it.
 */
export function servedResource(d: Discovery | undefined, group: string, resource: string): ApiResource | undefined {
  if (!d) return undefined;
  const all = d.resources.filter((r) => r.resource === resource && sameGroup(r.group, group));
  const rank = (r: ApiResource) => (r.preferred ? 0 : 2) + (r.group.endsWith('.k8s.io') ? 1 : 0);
  return all.sort((a, b) => rank(a) - rank(b))[0];
}

/** `/apis/<group>/<version>` (or `/api/v1`) of a served resource. */
export function groupVersionPath(r: Pick<ApiResource, 'group' | 'version'>): string {
  return r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
}

/** `<group>/<version>` (or `v1`) for an apiVersion field. */
export function apiVersionFor(r: Pick<ApiResource, 'group' | 'version'>): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}
