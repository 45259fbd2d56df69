// resourcequota-controller (pkg/controller/resourcequota upstream): keeps each ResourceQuota's status.hard
// (spec.hard) and status.used (the namespace's usage of those resources) current. Re-syncs a namespace's
// quotas when a tracked object there changes, and every quota periodically (upstream
// --resource-quota-sync-period, 5m; shorter here so `count/<any resource>` quotas stay fresh).
import { obj } from '../registry/builtin-helpers.js';
import { canonicalQuantity, formatNanos, isBinaryQuantity } from '../registry/schema/quantity.js';
import type { TypeRegistry } from '../registry/registry.js';
import type { RevisionedStore } from '../storage/types.js';
import { namespaceUsage } from '../admission/quota-usage.js';
import { storageGroupLookup } from '../admission/resource-quota.js';
import { Reconciler, splitKey, type ClusterContext } from './reconciler.js';

const QUOTA_KIND = 'core/resourcequotas';
/** Kinds whose changes move the common quota resources at once. */
const TRACKED = ['core/pods', 'core/services', 'core/configmaps', 'core/secrets', 'core/persistentvolumeclaims', 'core/replicationcontrollers'];
const RESYNC_MS = 30_000;

export class ResourceQuotaController extends Reconciler {
  private timer: NodeJS.Timeout;
  private storageGroupOf: (group: string, plural: string) => string | undefined;

  constructor(
    ctx: ClusterContext,
    private store: RevisionedStore,
    types: TypeRegistry,
  ) {
    super('resourcequota-controller', ctx);
    this.storageGroupOf = storageGroupLookup(types);
    ctx.cache.on(QUOTA_KIND, ({ obj: q }) => this.enqueue(q.metadata?.namespace, q.metadata?.name));
    const touch = ({ obj: o }: { obj: { metadata?: { namespace?: string } } }) => {
      for (const q of ctx.cache.list(QUOTA_KIND, o.metadata?.namespace ?? '')) this.enqueue(q.metadata?.namespace, q.metadata?.name);
    };
    for (const kind of TRACKED) ctx.cache.on(kind, touch);
    this.timer = setInterval(() => {
      for (const q of ctx.cache.list(QUOTA_KIND)) this.enqueue(q.metadata?.namespace, q.metadata?.name);
    }, RESYNC_MS);
    this.timer.unref();
  }

  protected async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const q = this.ctx.cache.get(QUOTA_KIND, ns, name);
    if (!q || q.metadata?.deletionTimestamp) return;
    const hardSpec = obj(obj(q.spec).hard);
    const names = Object.keys(hardSpec);
    const used = await namespaceUsage(this.store, q, names, this.storageGroupOf);
    const hard: Record<string, string> = {};
    const usedOut: Record<string, string> = {};
    for (const n of names) {
      hard[n] = canonicalQuantity(hardSpec[n]);
      usedOut[n] = formatNanos(used.get(n) ?? 0n, isBinaryQuantity(hardSpec[n]));
    }
    const same = (a: unknown, b: Record<string, string>) => JSON.stringify(sortKeys(obj(a))) === JSON.stringify(sortKeys(b));
    await this.ctx.writer.mutate('', 'resourcequotas', ns, name, (o) => {
      const st = obj(o.status);
      if (same(st.hard, hard) && same(st.used, usedOut)) return false;
      o.status = { ...st, hard, used: usedOut };
      return true;
    }, { subresource: 'status', uid: q.metadata?.uid });
  }

  override stop(): Promise<void> {
    clearInterval(this.timer);
    return super.stop();
  }
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}
