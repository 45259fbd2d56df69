// The "Access" tab. On a Role or ClusterRole: its rules and who is bound to it. On a binding: its
// subjects and the rules they get. On any other object: who can edit or delete it, asked per user
// or group named in the bindings that apply (SubjectAccessReview, which needs the right to ask).
import type { ApiResource, Discovery, KubeObject, ResourceRef } from '../../client/index.js';
import { ErrorState, LoadingState } from '../components/ErrorState.js';
import { EDIT_VERBS, subjectLabel, useAllowsEverything, useBindingRole, useRoleBindings, useWhoCanEdit, type Binding, type Rule, type Subject } from '../data/access.js';
import { sameGroup } from '../../client/index.js';

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

function RoleAccess({ role, discovery }: { role: KubeObject; discovery: Discovery | undefined }) {
  const q = useRoleBindings(discovery, role);
  const rows = (q.data ?? [])
    .filter((b) => b.roleRef?.kind === role.kind && b.roleRef?.name === role.metadata?.name)
    .flatMap((b) => (b.subjects ?? []).map((subject) => ({ subject, via: bindingLabel(b) })));
  return (
    <div className="access-panel" data-testid="access-panel">
      <AlwaysAllowNote discovery={discovery} />
      <h3>Who holds this role</h3>
      {q.isError ? <ErrorState error={q.error} compact /> : q.isLoading ? <LoadingState label="Reading bindings…" /> : <SubjectsTable rows={rows} />}
      <h3>What it grants</h3>
      <RulesTable rules={((role as { rules?: Rule[] }).rules ?? []) as Rule[]} />
    </div>
  );
}

function BindingAccess({ binding, discovery }: { binding: Binding; discovery: Discovery | undefined }) {
  const ref = binding.roleRef;
  const ns = binding.metadata?.namespace ?? '';
  const q = useBindingRole(discovery, binding);
  return (
    <div className="access-panel" data-testid="access-panel">
      <AlwaysAllowNote discovery={discovery} />
      <h3>Subjects</h3>
      <SubjectsTable rows={(binding.subjects ?? []).map((subject) => ({ subject, via: `${ref?.kind} ${ref?.name}${ns ? ` in ${ns}` : ''}` }))} />
      <h3>
        What they get ({ref?.kind} {ref?.name})
      </h3>
      {q.isError ? <ErrorState error={q.error} compact /> : q.isLoading ? <LoadingState label="Reading the role…" /> : <RulesTable rules={q.data?.rules ?? []} />}
    </div>
  );
}

/** Says so when the server authorizes every request (AlwaysAllow): no table of bindings means anything then. */
function AlwaysAllowNote({ discovery }: { discovery: Discovery | undefined }) {
  const all = useAllowsEverything(discovery);
  if (all.data !== true) return null;
  return (
    <p className="callout warn" role="note" data-testid="always-allow">
      <strong>Authorization is AlwaysAllow.</strong> This server allows every request, including unauthenticated ones (the answer to a SubjectAccessReview for system:anonymous asking an invented verb on an invented resource was
      “allowed”). Roles and bindings below are not enforced.
    </p>
  );
}

function WhoCanEdit({ objectRef, discovery }: { objectRef: ResourceRef; discovery: Discovery | undefined }) {
  const q = useWhoCanEdit(discovery, objectRef);
  return (
    <div className="access-panel" data-testid="access-panel">
      <AlwaysAllowNote discovery={discovery} />
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

export function AccessPanel({ object, objectRef, info, discovery }: { object: KubeObject; objectRef: ResourceRef; info?: ApiResource; discovery?: Discovery }) {
  const rbac = !!info && sameGroup(info.group, 'rbac.authorization.k8s.io');
  if (rbac && (info?.kind === 'Role' || info?.kind === 'ClusterRole')) return <RoleAccess role={{ ...object, kind: info.kind }} discovery={discovery} />;
  if (rbac && (info?.kind === 'RoleBinding' || info?.kind === 'ClusterRoleBinding')) return <BindingAccess binding={object as Binding} discovery={discovery} />;
  return <WhoCanEdit objectRef={objectRef} discovery={discovery} />;
}
