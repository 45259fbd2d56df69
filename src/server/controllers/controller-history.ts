// ControllerRevisions of StatefulSets and DaemonSets (upstream's controller history): one revision per pod
// template, named `<owner>-<hash>`, labelled controller.kubernetes.io/hash, holding the template as the strategic
// merge patch `kubectl rollout undo` applies; a template seen again becomes the newest revision again, and the
// oldest unused revisions beyond revisionHistoryLimit (10) are deleted. Acts once apps/v1 ControllerRevision is
// served; `kubectl rollout history sts|ds` reads these.
import type { KubeObject } from '../registry/types.js';
import { isAlreadyExists } from './api-writer.js';
import { intOr, ownerRefTo, spec } from './pod-util.js';
import type { ClusterContext } from './reconciler.js';
import { settle } from './reconciler.js';

type Obj = Record<string, any>;

export const REVISIONS_KIND = 'apps/controllerrevisions';
const HASH_LABEL = 'controller.kubernetes.io/hash';

/** The owner's revision data: its template as a replace patch (upstream's getPatch for both kinds). */
function revisionData(owner: KubeObject): Obj {
  const template = structuredClone(spec(owner).template ?? {});
  template.$patch = 'replace';
  return { spec: { template } };
}

/**
 * Makes sure the owner's current template has the newest revision; returns its number, or undefined when
 * ControllerRevisions are not served.
 */
export async function syncRevisions(ctx: ClusterContext, owner: KubeObject, hash: string, inUse: string[] = []): Promise<number | undefined> {
  if (!ctx.writer.has('apps', 'controllerrevisions')) return undefined;
  const ns = owner.metadata!.namespace;
  const name = `${owner.metadata!.name}-${hash}`;
  const all = ctx.cache.ownedBy(owner.metadata!.uid, REVISIONS_KIND);
  const max = Math.max(0, ...all.map((r) => intOr(r['revision'], 0)));
  const existing = all.find((r) => r.metadata?.name === name);
  let revision: number;
  if (!existing) {
    revision = max + 1;
    try {
      const created = await ctx.writer.create('apps', 'controllerrevisions', ns, {
        metadata: { name, namespace: ns, labels: { ...(spec(owner).selector?.matchLabels ?? {}), [HASH_LABEL]: hash }, ...changeCause(owner), ownerReferences: [ownerRefTo(owner)] },
        data: revisionData(owner),
        revision,
      } as KubeObject);
      await settle(ctx, [created]);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  } else if (intOr(existing['revision'], 0) < max) {
    revision = max + 1;
    const updated = await ctx.writer.mutate('apps', 'controllerrevisions', ns, name, (o) => {
      o['revision'] = revision;
      return true;
    }, { uid: existing.metadata!.uid });
    await settle(ctx, [updated]);
  } else revision = intOr(existing['revision'], 0);
  // history limit: the oldest revisions no pod uses any more
  const limit = intOr(spec(owner).revisionHistoryLimit, 10);
  const keep = new Set([name, ...inUse.map((h) => `${owner.metadata!.name}-${h}`)]);
  const old = ctx.cache
    .ownedBy(owner.metadata!.uid, REVISIONS_KIND)
    .filter((r) => !keep.has(r.metadata!.name!))
    .sort((a, b) => intOr(a['revision'], 0) - intOr(b['revision'], 0));
  for (const r of old.slice(0, Math.max(0, old.length - limit))) await ctx.writer.delete('apps', 'controllerrevisions', ns, r.metadata!.name!, { preconditions: { uid: r.metadata!.uid } });
  return revision;
}

function changeCause(owner: KubeObject): { annotations?: Record<string, string> } {
  const cause = owner.metadata?.annotations?.['kubernetes.io/change-cause'];
  return cause ? { annotations: { 'kubernetes.io/change-cause': cause } } : {};
}
