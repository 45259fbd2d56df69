// The "Access" tab. On a Role or ClusterRole: its rules and who is bound to it. On a binding: its
// subjects and the rules they get. On any other object: who can edit or delete it, asked per user
// or group named in the bindings that apply (SubjectAccessReview, which needs the right to ask).
import { useQuery } from '@tanstack/react-query';
import type { ApiResource, Discovery, KubeObject, ResourceRef } from '../../client/index.js';
import { upstreamGroup } from '../../server/registry/names.js';
import { api } from '../api.js';
import { ErrorState, LoadingState } from '../components/ErrorState.js';

const RBAC = 'rbac.authorization.service.io';
const RBAC_PATH = `/apis/${RBAC}/v1`;

interface Rule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}
interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}
interface Binding extends KubeObject {
  roleRef?: { kind: string; name: string };
  subjects?: Subject[];
}

async function list<T>(path: string): Promise<T[]> {
  return (await api.request<{ items?: T[] }>('GET', path)).body.items ?? [];
}

/** ClusterRoleBindings plus the RoleBindings of a namespace ('' = none). */
async function bindings(namespace: string): Promise<Binding[]> {
  const [cluster, local] = await Promise.all([list<Binding>(`${RBAC_PATH}/clusterrolebindings`), namespace ? list<Binding>(`${RBAC_PATH}/namespaces/${encodeURIComponent(namespace)}/rolebindings`) : []]);
  return [...cluster, ...local];
}

const subjectLabel = (s: Subject) => (s.kind === 'ServiceAccount' ? `ServiceAccount ${s.namespace ?? ''}/${s.name}` : `${s.kind} ${s.name}`);

function RulesTable({ rules }: { rules: Rule[] }) {
  if (!rules.length) return <p className="muted">No rules.</p>;
  return (
    <table className="simple" data-testid="access-rules">
      <thead>
        <tr>
          <th>API groups</th>
          <th>Resources / URLs</th>
          <th>Names</th>
          <th>Verbs</th>
        </tr>
      </thead>
      <tbody>
        {rules.map((r, i) => (
          <tr key={i}>
            <td>{r.nonResourceURLs?.length ? '' : (r.apiGroups ?? []).map((g) => (g === '' ? 'core' : g)).join(', ')}</td>
            <td>{(r.nonResourceURLs?.length ? r.nonResourceURLs : (r.resources ?? [])).join(', ')}</td>
            <td>{(r.resourceNames ?? []).join(', ') || <span className="muted">any</span>}</td>
            <td>{(r.verbs ?? []).join(', ')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function SubjectsTable({ rows }: { rows: { subject: Subject; via: string }[] }) {
  if (!rows.length) return <p className="muted">Nobody is bound.</p>;
  return (
    <table className="simple" data-testid="access-subjects">
      <thead>
        <tr>
          <th>Subject</th>
          <th>Through</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) => (
          <tr key={i}>
            <td>{subjectLabel(r.subject)}</td>
            <td className="muted">{r.via}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const bindingLabel = (b: Binding) => `${b.kind ?? (b.metadata?.namespace ? 'RoleBinding' : 'ClusterRoleBinding')} ${b.metadata?.namespace ? `${b.metadata.namespace}/` : ''}${b.metadata?.name}`;

function RoleAccess({ role }: { role: KubeObject }) {
  const ns = role.metadata?.namespace ?? '';
  const isCluster = role.kind === 'ClusterRole';
  const q = useQuery({
    queryKey: ['access-role-bindings', role.kind, ns, role.metadata?.name],
    // a ClusterRole may be bound in any namespace
    queryFn: async () => (isCluster ? [...(await list<Binding>(`${RBAC_PATH}/clusterrolebindings`)), ...(await list<Binding>(`${RBAC_PATH}/rolebindings`))] : bindings(ns)),
    retry: false,
  });
  const rows = (q.data ?? [])
    .filter((b) => b.roleRef?.kind === role.kind && b.roleRef?.name === role.metadata?.name)
    .flatMap((b) => (b.subjects ?? []).map((subject) => ({ subject, via: bindingLabel(b) })));
  return (
    <div className="access-panel" data-testid="access-panel">
      <h3>Who holds this role</h3>
      {q.isError ? <ErrorState error={q.error} compact /> : q.isLoading ? <LoadingState label="Reading bindings…" /> : <SubjectsTable rows={rows} />}
      <h3>What it grants</h3>
      <RulesTable rules={((role as { rules?: Rule[] }).rules ?? []) as Rule[]} />
    </div>
  );
}

function BindingAccess({ binding }: { binding: Binding }) {
  const ref = binding.roleRef;
  const ns = binding.metadata?.namespace ?? '';
  const q = useQuery({
    queryKey: ['access-binding-role', ref?.kind, ns, ref?.name],
    queryFn: async () =>
      (await api.request<KubeObject>('GET', ref?.kind === 'Role' ? `${RBAC_PATH}/namespaces/${encodeURIComponent(ns)}/roles/${encodeURIComponent(ref.name)}` : `${RBAC_PATH}/clusterroles/${encodeURIComponent(ref?.name ?? '')}`)).body,
    retry: false,
    enabled: !!ref,
  });
  return (
    <div className="access-panel" data-testid="access-panel">
      <h3>Subjects</h3>
      <SubjectsTable rows={(binding.subjects ?? []).map((subject) => ({ subject, via: `${ref?.kind} ${ref?.name}${ns ? ` in ${ns}` : ''}` }))} />
      <h3>
        What they get ({ref?.kind} {ref?.name})
      </h3>
      {q.isError ? <ErrorState error={q.error} compact /> : q.isLoading ? <LoadingState label="Reading the role…" /> : <RulesTable rules={((q.data as { rules?: Rule[] })?.rules ?? []) as Rule[]} />}
    </div>
  );
}

const EDIT_VERBS = ['update', 'patch', 'delete'];

/** Users and groups named in the bindings that apply here, each asked about each verb. */
async function whoCanEdit(ref: ResourceRef): Promise<{ subject: Subject; verbs: Record<string, boolean> }[]> {
  const subjects = new Map<string, Subject>();
  for (const b of await bindings(ref.namespace ?? ''))
    for (const s of b.subjects ?? []) if (s.kind === 'User' || s.kind === 'Group' || s.kind === 'ServiceAccount') subjects.set(subjectLabel(s), s);
  const out = [];
  for (const subject of [...subjects.values()].sort((a, b) => subjectLabel(a).localeCompare(subjectLabel(b)))) {
    const spec = subject.kind === 'Group' ? { groups: [subject.name] } : { user: subject.kind === 'ServiceAccount' ? `system:serviceaccount:${subject.namespace}:${subject.name}` : subject.name };
    const verbs: Record<string, boolean> = {};
    await Promise.all(
      EDIT_VERBS.map(async (verb) => {
        const r = await api.request<{ status?: { allowed?: boolean } }>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: { ...spec, resourceAttributes: { verb, group: upstreamGroup(ref.group), version: ref.version, resource: ref.resource, namespace: ref.namespace ?? '', name: ref.name } },
          },
        });
        verbs[verb] = r.body.status?.allowed === true;
      }),
    );
    if (EDIT_VERBS.some((v) => verbs[v])) out.push({ subject, verbs });
  }
  return out;
}

function WhoCanEdit({ objectRef }: { objectRef: ResourceRef }) {
  const q = useQuery({ queryKey: ['access-who', objectRef.group, objectRef.resource, objectRef.namespace ?? '', objectRef.name], queryFn: () => whoCanEdit(objectRef), retry: false, staleTime: 30_000 });
  return (
    <div className="access-panel" data-testid="access-panel">
      <h3>Who can edit this</h3>
      <p className="muted small">Users, groups and service accounts named in the bindings that apply here (members of system:masters can always).</p>
      {q.isError ? (
        <ErrorState error={q.error} compact />
      ) : q.isLoading ? (
        <LoadingState label="Asking the server…" />
      ) : (
        <table className="simple" data-testid="access-who">
          <thead>
            <tr>
              <th>Subject</th>
              {EDIT_VERBS.map((v) => (
                <th key={v}>{v}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {(q.data ?? []).map((r) => (
              <tr key={subjectLabel(r.subject)}>
                <td>{subjectLabel(r.subject)}</td>
                {EDIT_VERBS.map((v) => (
                  <td key={v}>{r.verbs[v] ? 'yes' : <span className="muted">no</span>}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function AccessPanel({ object, objectRef, info }: { object: KubeObject; objectRef: ResourceRef; info?: ApiResource; discovery?: Discovery }) {
  const rbac = info?.group === RBAC || info?.group === 'rbac.authorization.k8s.io';
  if (rbac && (info?.kind === 'Role' || info?.kind === 'ClusterRole')) return <RoleAccess role={{ ...object, kind: info.kind }} />;
  if (rbac && (info?.kind === 'RoleBinding' || info?.kind === 'ClusterRoleBinding')) return <BindingAccess binding={object as Binding} />;
  return <WhoCanEdit objectRef={objectRef} />;
}
