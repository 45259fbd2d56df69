// ClusterRole aggregation (upstream pkg/controller/clusterroleaggregation): a ClusterRole with an
// aggregationRule holds the rules of every ClusterRole its selectors match, in name order, without
// duplicates. Any ClusterRole change re-runs the aggregation of every aggregated role.
import type { RbacSource } from '../authz/rbac.js';
import { selectorMatches } from '../registry/builtin-helpers.js';
import type { WriteTarget } from '../registry/pipeline/context.js';
import { controllerContext, type WriteAuthorizer } from './identities.js';
import type { KubeObject } from '../registry/types.js';
import type { StoreWatch } from '../storage/types.js';
import { mutateObject } from './controller-support.js';
import { WorkQueue } from './work-queue.js';

type Source = RbacSource & { allClusterRoles(): Iterable<KubeObject> };

const selectorsOf = (o: KubeObject): unknown[] | undefined => {
  const rule = (o as { aggregationRule?: { clusterRoleSelectors?: unknown } }).aggregationRule;
  return rule && Array.isArray(rule.clusterRoleSelectors) ? rule.clusterRoleSelectors : undefined;
};

/** The rules an aggregated role should hold (upstream: sorted by role name, exact duplicates dropped). */
export function aggregatedRules(role: KubeObject, all: Iterable<KubeObject>): unknown[] {
  const selectors = selectorsOf(role) ?? [];
  const name = role.metadata?.name;
  const sources = [...all]
    .filter((o) => o.metadata?.name !== name && selectors.some((s) => selectorMatches(s, (o.metadata?.labels ?? {}) as Record<string, unknown>)))
    .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  const out: unknown[] = [];
  const seen = new Set<string>();
  for (const s of sources) {
    const rules = (s as { rules?: unknown }).rules;
    for (const r of Array.isArray(rules) ? rules : []) {
      const k = JSON.stringify(r);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(structuredClone(r));
    }
  }
  return out;
}

export class AggregationController {
  private readonly queue: WorkQueue;
  private watch?: StoreWatch;

  constructor(
    private readonly source: Source,
    private readonly roles: WriteTarget,
    private readonly log: (l: string) => void,
    /** The server's authorizer: the controller writes as its service account, authorized as any client. */
    private readonly authorizer?: WriteAuthorizer,
  ) {
    this.queue = new WorkQueue(
      () => this.sync(),
      (_k, e) => this.log(`clusterrole aggregation: ${(e as Error).message}`),
    );
  }

  async start(): Promise<void> {
    try {
      await this.sync();
    } catch (e) {
      // refused (its service account lacks its role, or an authorizer denies everything): logged and retried with
      // backoff, as upstream's controller; the server starts anyway
      this.log(`clusterrole aggregation: ${(e as Error).message}`);
      this.queue.add('all');
    }
    const rev = await this.roles.rs.store.currentRevision();
    const watchFrom = (from: number) => {
      this.watch = this.roles.rs.store.watch(this.roles.rs.prefix(), from, {
        onEvents: () => this.queue.add('all'),
        onError: () => {
          // history gone or store restarted: aggregate again from the current state
          this.queue.add('all');
          void this.roles.rs.store.currentRevision().then(watchFrom, () => undefined);
        },
      });
    };
    watchFrom(rev);
  }

  /** Brings every aggregated ClusterRole up to date. */
  async sync(): Promise<void> {
    await this.source.sync();
    const all = [...this.source.allClusterRoles()];
    for (const role of all) {
      if (!selectorsOf(role)) continue;
      const want = aggregatedRules(role, all);
      if (JSON.stringify((role as { rules?: unknown }).rules ?? []) === JSON.stringify(want)) continue;
      await mutateObject(this.roles, controllerContext({ authorizer: this.authorizer }, 'clusterrole-aggregation-controller'), undefined, role.metadata!.name!, role.metadata?.uid, (o) => {
        (o as { rules?: unknown }).rules = want;
        return true;
      });
    }
  }

  async stop(): Promise<void> {
    this.watch?.stop();
    await this.queue.stop();
  }
}
