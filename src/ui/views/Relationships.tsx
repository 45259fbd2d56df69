// How one object relates to others: its owners and dependents (the garbage collector's graph), for a
// Service its EndpointSlices and their Pods, for a Pod what it uses, for a ConfigMap, Secret, PVC or
// ServiceAccount the Pods using it, for a subject or role the bindings. A graph and the same as lists.
import { useQuery } from '@tanstack/react-query';
import { resourceForKind, sameGroup, type ApiResource, type Discovery, type KubeObject } from '../../client/index.js';
import { isAliasGroup, useBrowsableResources } from '../data/discovery.js';
import { keys } from '../data/keys.js';
import { eachLimited, listAll, listPages } from '../data/scan.js';
import { bindsSubject, endpointSlicePods, podSpecRefs, roleOf } from '../lib/references.js';
import { Link, href, objectPath } from '../router.js';

export interface Related {
  relation: string;
  kind: string;
  name: string;
  namespace?: string;
  resource?: ApiResource;
  via?: string;
}

function typeOf(d: Discovery, kind: string, group?: string): ApiResource | undefined {
  // the group in either spelling: a server lists one spelling (Periscope the neutral one, a real cluster k8s.io)
  return d.resources.find((r) => r.kind === kind && r.preferred && !isAliasGroup(d, r.group) && (group === undefined || sameGroup(r.group, group)));
}

function rel(d: Discovery, relation: string, kind: string, name: string, namespace: string | undefined, via?: string, group?: string): Related {
  const resource = typeOf(d, kind, group);
  return { relation, kind, name, namespace: resource?.namespaced ? namespace : undefined, resource, via };
}

const USED_BY_PODS = new Set(['ConfigMap', 'Secret', 'PersistentVolumeClaim', 'ServiceAccount']);

async function findRelated(d: Discovery, kinds: ApiResource[], info: ApiResource, o: KubeObject, signal: AbortSignal): Promise<Related[]> {
  const ns = o.metadata?.namespace;
  const out: Related[] = [];
  for (const owner of o.metadata?.ownerReferences ?? []) {
    const r = resourceForKind(d, owner.apiVersion, owner.kind);
    out.push({ relation: 'owner', kind: owner.kind, name: owner.name, namespace: r?.namespaced ? ns : undefined, resource: r, via: owner.controller ? 'controller' : undefined });
  }
  // dependents: objects naming this one's uid in ownerReferences (namespaced owners only own objects of their namespace)
  const uid = o.metadata?.uid;
  const candidates = kinds.filter((k) => (ns ? k.namespaced : true));
  await eachLimited(
    candidates,
    4,
    async (k) => {
      try {
        for await (const page of listPages(k, { namespace: ns, signal }))
          for (const x of page) if (x.metadata?.ownerReferences?.some((ref) => ref.uid === uid)) out.push({ relation: 'dependent', kind: k.kind, name: x.metadata!.name!, namespace: x.metadata?.namespace, resource: k });
      } catch {
        // a kind we may not list: no dependents shown from it
      }
    },
    signal,
  );
  const spec = (o as { spec?: unknown }).spec;
  if (info.kind === 'Pod') for (const r of podSpecRefs(spec, ns)) out.push(rel(d, 'uses', r.kind, r.name, ns, r.via, ''));
  if (USED_BY_PODS.has(info.kind) && ns) {
    const pods = typeOf(d, 'Pod', '');
    if (pods)
      for (const p of await listAll(pods, { namespace: ns, representation: 'object', signal }))
        for (const r of podSpecRefs((p as { spec?: unknown }).spec, ns)) if (r.kind === info.kind && r.name === o.metadata?.name) out.push({ relation: 'used by', kind: 'Pod', name: p.metadata!.name!, namespace: ns, resource: pods, via: r.via });
  }
  if (info.kind === 'Service' && ns) {
    const slices = typeOf(d, 'EndpointSlice', 'discovery.k8s.io');
    if (slices)
      for (const s of await listAll(slices, { namespace: ns, representation: 'object', labelSelector: `kubernetes.io/service-name=${o.metadata?.name}`, signal })) {
        out.push({ relation: 'endpoints', kind: 'EndpointSlice', name: s.metadata!.name!, namespace: ns, resource: slices });
        for (const p of endpointSlicePods(s)) out.push({ ...rel(d, 'serves', 'Pod', p.name, p.namespace, `via ${s.metadata!.name}`, ''), namespace: p.namespace });
      }
  }
  // bindings: for a subject (ServiceAccount; users and groups are not objects) the roles it is given; for a role its bindings
  const rbacKinds = ['RoleBinding', 'ClusterRoleBinding'].map((k) => d.resources.find((r) => r.kind === k && r.preferred && !isAliasGroup(d, r.group))).filter((r): r is ApiResource => !!r);
  if (info.kind === 'ServiceAccount' || info.kind === 'Role' || info.kind === 'ClusterRole') {
    for (const b of rbacKinds) {
      let items: KubeObject[] = [];
      try {
        items = await listAll(b, { namespace: b.kind === 'RoleBinding' && info.kind === 'Role' ? ns : undefined, representation: 'object', signal });
      } catch {
        continue;
      }
      for (const x of items) {
        const role = roleOf(x);
        if (info.kind === 'ServiceAccount' && bindsSubject(x, { kind: 'ServiceAccount', name: o.metadata!.name!, namespace: ns })) {
          out.push({ relation: 'bound by', kind: b.kind, name: x.metadata!.name!, namespace: x.metadata?.namespace, resource: b });
          if (role) out.push({ ...rel(d, 'has role', role.kind, role.name, role.namespace, `through ${x.metadata!.name}`), namespace: role.namespace });
        } else if (role && role.kind === info.kind && role.name === o.metadata?.name && (info.kind === 'ClusterRole' || role.namespace === ns))
          out.push({ relation: 'granted by', kind: b.kind, name: x.metadata!.name!, namespace: x.metadata?.namespace, resource: b });
      }
    }
  }
  return out;
}

function linkOf(r: Related, listNamespace: string): string | undefined {
  return r.resource ? href(objectPath(r.resource, r.resource.namespaced ? r.namespace : undefined, r.name), { ns: listNamespace || undefined }) : undefined;
}

/** Owners on the left, everything else on the right, this object in the middle: each node a link. */
function Graph({ self, related, listNamespace }: { self: string; related: Related[]; listNamespace: string }) {
  const left = related.filter((r) => r.relation === 'owner');
  const right = related.filter((r) => r.relation !== 'owner').slice(0, 40);
  const rowH = 28;
  const height = Math.max(left.length, right.length, 1) * rowH + 20;
  const cy = height / 2;
  const node = (r: Related, x: number, y: number, i: number) => {
    const label = `${r.kind}/${r.name}`;
    const link = linkOf(r, listNamespace);
    const text = (
      <text x={x} y={y + 4} className="graph-label" textAnchor={x < 300 ? 'end' : 'start'}>
        {label.length > 40 ? `${label.slice(0, 39)}…` : label}
      </text>
    );
    return (
      <g key={`${r.relation}-${i}`}>
        <line x1={x < 300 ? x + 6 : x - 6} y1={y} x2={x < 300 ? 250 : 350} y2={cy} className="graph-edge" />
        <title>{`${r.relation}: ${label}${r.via ? ` (${r.via})` : ''}`}</title>
        {link ? <a href={link} aria-label={`${r.relation} ${label}`}>{text}</a> : text}
      </g>
    );
  };
  return (
    <svg className="relations-graph" role="img" aria-label={`Relationships of ${self}`} viewBox={`0 0 600 ${height}`} width="100%" height={height} data-testid="relations-graph">
      {left.map((r, i) => node(r, 200, 10 + i * rowH + rowH / 2, i))}
      {right.map((r, i) => node(r, 400, 10 + i * rowH + rowH / 2, i))}
      <rect x={250} y={cy - 14} width={100} height={28} rx={6} className="graph-self" />
      <text x={300} y={cy + 4} textAnchor="middle" className="graph-self-label">
        {self.length > 14 ? `${self.slice(0, 13)}…` : self}
      </text>
    </svg>
  );
}

export function Relationships({ info, object, discovery, listNamespace }: { info: ApiResource; object: KubeObject; discovery: Discovery; listNamespace: string }) {
  const kinds = useBrowsableResources(discovery);
  const q = useQuery({
    queryKey: keys.relationships(info.group, info.resource, object.metadata?.namespace, object.metadata?.name, object.metadata?.resourceVersion),
    queryFn: ({ signal }) => findRelated(discovery, kinds, info, object, signal),
    staleTime: 5_000,
  });
  const related = q.data ?? [];
  const groups = [...new Set(related.map((r) => r.relation))];
  return (
    <div className="relationships" data-testid="relationships">
      {q.isLoading && <p className="muted">Looking for related objects…</p>}
      {q.isError && <p className="banner banner-error">{(q.error as Error).message}</p>}
      {q.data && related.length === 0 && <p className="muted">No owners, dependents or references found.</p>}
      {related.length > 0 && <Graph self={object.metadata?.name ?? ''} related={related} listNamespace={listNamespace} />}
      {groups.map((g) => (
        <section key={g} className="panel" aria-label={g}>
          <h3>{g}</h3>
          <ul className="plain-list" data-testid={`related-${g.replace(/\s+/g, '-')}`}>
            {related
              .filter((r) => r.relation === g)
              .map((r, i) => {
                const link = linkOf(r, listNamespace);
                const label = `${r.kind}/${r.namespace && r.namespace !== object.metadata?.namespace ? `${r.namespace}/` : ''}${r.name}`;
                return (
                  <li key={i} data-testid="related-item">
                    {link ? <Link href={link}>{label}</Link> : label}
                    {r.via && <span className="muted small"> {r.via}</span>}
                  </li>
                );
              })}
          </ul>
        </section>
      ))}
    </div>
  );
}
