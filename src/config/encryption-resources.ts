// Resource names in an EncryptionConfiguration: `secrets` (core group), `deployments.apps`,
// `*.apps` (every resource of a group), `*.` (every core resource) and `*.*` (everything).

export interface GroupResource {
  group: string;
  resource: string;
}

/** Splits at the first dot: the resource comes before it, the group after (`*.` is the core wildcard). */
export function parseGroupResource(text: string): GroupResource {
  const dot = text.indexOf('.');
  return dot < 0 ? { group: '', resource: text } : { group: text.slice(dot + 1), resource: text.slice(0, dot) };
}

/** The spelling used in messages, with `*.` for the core-group wildcard. */
export function groupResourceString(gr: GroupResource): string {
  if (gr.group === '' && gr.resource === '*') return '*.';
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

export const ANY_GROUP_ANY_RESOURCE: GroupResource = { group: '*', resource: '*' };

export function sameGroupResource(a: GroupResource, b: GroupResource): boolean {
  return a.group === b.group && a.resource === b.resource;
}

/** Whether a configured entry covers a concrete resource (`secrets`, `deployments.apps`). */
export function groupResourceCovers(pattern: GroupResource, target: GroupResource): boolean {
  if (pattern.group === '*' && pattern.resource === '*') return true;
  if (pattern.group !== target.group) return false;
  return pattern.resource === '*' || pattern.resource === target.resource;
}
