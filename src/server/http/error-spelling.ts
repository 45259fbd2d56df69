// Errors in the request's spelling of its group (GUIDE: responses use the request's spelling). Statuses are built
// with the canonical group (registry types know no other); a request made in the upstream spelling gets its
// GroupResource/GroupKind names and details.group back in that spelling, as upstream (the only spelling it has)
// would write them: `roles.rbac.authorization.k8s.io "nope" not found`.
import { StatusError } from '../../api/status.js';
import { canonicalGroup, isAliasGroup } from '../registry/names.js';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The error with the request's group spelling, when the request named an upstream alias; otherwise as is. */
export function inRequestSpelling(e: unknown, requestGroup: string): unknown {
  if (!(e instanceof StatusError) || !isAliasGroup(requestGroup)) return e;
  const canon = canonicalGroup(requestGroup);
  if (canon === requestGroup) return e;
  const st = e.status;
  if (st.details?.group === canon) st.details.group = requestGroup;
  // `<resource or Kind>.<group>` names only: a quoted value or a list of supported values is the user's text
  const respell = (m: string) =>
    m
      .replace(new RegExp(`(?<=[A-Za-z0-9])\\.${escape(canon)}(?![A-Za-z0-9.-])`, 'g'), `.${requestGroup}`)
      // an apply conflict's manager `using <group>/<version>` (upstream prints the managedFields apiVersion)
      .replace(new RegExp(`(?<=using )${escape(canon)}(?=/)`, 'g'), requestGroup);
  if (st.message) st.message = respell(st.message);
  for (const c of st.details?.causes ?? []) if (c.message) c.message = respell(c.message);
  return e;
}
