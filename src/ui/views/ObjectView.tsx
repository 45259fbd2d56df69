// One object, live: summary (metadata, owners, finalizers, deletion state, conditions), YAML/JSON,
// related Events and managed fields.
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { apiVersionOf, resourceForKind, sameGroup, type ApiResource, type Discovery, type KubeObject, type OwnerReference, type ResourceRef } from '../../client/index.js';
import { ErrorState, EmptyState, LoadingState } from '../components/ErrorState.js';
import { ManifestViewer, type ManifestFormat } from '../components/ManifestViewer.js';
import { manifestText } from '../components/manifest-text.js';
import { DeleteDialog } from '../editor/DeleteDialog.js';
import { EditorView } from '../editor/EditorView.js';
import { FinalizerList } from '../editor/Finalizers.js';
import { useCollection, useObject } from '../data/informers.js';
import { useAccess, type Access } from '../data/permissions.js';
import { AccessPanel } from './AccessPanel.js';
import { ageOf, useNow } from '../lib/age.js';
import { conditionTone } from '../lib/conditions.js';
import { AtRestHint } from './AtRestHint.js';
import { Relationships } from './Relationships.js';
import { Timeline } from './Timeline.js';
import { PodContainers } from './PodContainers.js';
import { SecretData } from './SecretData.js';
import { LogsView } from './LogsView.js';
import { hasActions, isScalable, ObjectActions } from './ObjectActions.js';

// xterm.js loads with the first terminal opened
const TerminalView = lazy(() => import('./TerminalView.js'));
import { NamespaceChanges } from './NamespaceChanges.js';
import { ownershipByField } from '../lib/managed-fields.js';
import { Link, href, listPath, navigate, objectPath, type ObjectTab, type TypeRef } from '../router.js';
import { isWorkload, podState, WorkloadPanel } from './WorkloadPanels.js';

function isTypingTarget(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  return !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable || !!el.closest?.('.monaco-editor, .xterm'));
}

interface Props {
  type: TypeRef;
  namespace?: string;
  name: string;
  tab: ObjectTab;
  discovery: Discovery | undefined;
  listNamespace: string;
}

const TAB_LABEL: Record<ObjectTab, string> = { summary: 'Summary', yaml: 'YAML', json: 'JSON', events: 'Events', fields: 'Managed fields', edit: 'Edit', access: 'Access', history: 'History', related: 'Related', logs: 'Logs', shell: 'Terminal' };
const TAB_KEY: Partial<Record<ObjectTab, string>> = { logs: 'l', shell: 'x' };

/** Tabs an object has: logs on pods and workloads with pods, a terminal on pods. */
function tabsFor(kind: string | undefined): ObjectTab[] {
  return (Object.keys(TAB_LABEL) as ObjectTab[]).filter((t) => (t === 'logs' ? kind === 'Pod' || hasPodLogs(kind) : t === 'shell' ? kind === 'Pod' : true));
}
const hasPodLogs = (kind: string | undefined) => !!kind && ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'ReplicationController'].includes(kind);

export function ObjectView({ type, namespace, name, tab, discovery, listNamespace }: Props) {
  const info = discovery?.resources.find((r) => sameGroup(r.group, type.group) && r.version === type.version && r.resource === type.resource);
  const live = useObject({ ...type, namespace, name });
  const { data, isError, error, refetch } = live;
  // list items may omit kind and apiVersion; the type is known from the route
  const object = useMemo(
    () => (live.object && !live.object.kind && info ? { apiVersion: apiVersionOf(info.group, info.version), kind: info.kind, ...live.object } : live.object),
    [live.object, info],
  );
  const events = useRelatedEvents(discovery, object, info);
  const tabHref = (t: ObjectTab) => href(objectPath(type, namespace, name, t), { ns: listNamespace || undefined });
  const back = href(listPath(type), { ns: listNamespace || undefined });
  const [deleting, setDeleting] = useState(false);
  const [scaling, setScaling] = useState(false);
  // action keys: e edit, l logs, x terminal, s scale, d delete (before the app's own keys: s is search elsewhere)
  const kind = info?.kind ?? live.object?.kind;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTypingTarget(e.target) || document.querySelector('.overlay')) return;
      const go = (t: ObjectTab) => navigate(tabHref(t), { replace: true });
      let handled = true;
      if (e.key === 'e') go('edit');
      else if (e.key === 'l' && (kind === 'Pod' || hasPodLogs(kind))) go('logs');
      else if (e.key === 'x' && kind === 'Pod') go('shell');
      else if (e.key === 's' && isScalable(kind) && live.object) setScaling(true);
      else if (e.key === 'd' && live.object && info?.verbs.includes('delete')) setDeleting(true);
      else handled = false;
      if (handled) e.preventDefault();
    };
    document.addEventListener('keydown', onKey, true);
    return () => document.removeEventListener('keydown', onKey, true);
  });
  const objectRef = { ...type, namespace, name };
  const access = useAccess(info, namespace);
  const canDelete = access.can('delete', { name });
  // editing applies (patch) or replaces (update): either will do
  const canEdit = access.can('patch', { name }) === false && access.can('update', { name }) === false ? false : undefined;

  let body;
  if (isError) body = <ErrorState error={error} onRetry={() => void refetch()} />;
  else if (!data) body = <LoadingState label={`Reading ${type.resource}/${name}…`} />;
  else if (!object && tab === 'history') body = <Timeline objectRef={objectRef} object={undefined} />;
  else if (!object)
    body = (
      <EmptyState title={`${info?.kind ?? type.resource} "${name}" not found${namespace ? ` in ${namespace}` : ''}`}>
        It does not exist (or was deleted). This view is watching: it fills in if the object is created.{' '}
        <Link href={tabHref('history')} data-testid="deleted-history">
          Its history
        </Link>{' '}
        shows the versions the server still retains, and can restore one.
      </EmptyState>
    );
  else if (tab === 'yaml' || tab === 'json') body = <Manifest object={object} format={tab} />;
  else if (tab === 'edit' && canEdit === false)
    body = (
      <EmptyState title="Read-only for you">
        <span data-testid="edit-forbidden">{access.missing('update', { name })} (or "patch").</span>
      </EmptyState>
    );
  else if (tab === 'access') body = <AccessPanel object={object} objectRef={objectRef} info={info} discovery={discovery} />;
  else if (tab === 'edit')
    body = info && discovery ? <EditorView key={object.metadata?.uid ?? name} info={info} object={object} discovery={discovery} /> : <LoadingState label="Discovering API types…" />;
  else if (tab === 'logs' && (object.kind === 'Pod' || hasPodLogs(object.kind))) body = <LogsView key={object.metadata?.uid} object={object} />;
  else if (tab === 'shell' && object.kind === 'Pod')
    body = (
      <Suspense fallback={<LoadingState label="Loading the terminal…" />}>
        <TerminalView key={object.metadata?.uid} pod={object} info={info} />
      </Suspense>
    );
  else if (tab === 'events') body = <EventsPanel events={events.items} error={events.error} />;
  else if (tab === 'fields') body = <ManagedFieldsPanel object={object} />;
  else if (tab === 'history')
    body = (
      <>
        {info?.kind === 'Namespace' && !info.group && discovery && <NamespaceChanges namespace={name} discovery={discovery} />}
        <Timeline objectRef={objectRef} object={object} />
      </>
    );
  else if (tab === 'related') body = info && discovery ? <Relationships info={info} object={object} discovery={discovery} listNamespace={listNamespace} /> : <LoadingState label="Discovering API types…" />;
  else body = <Summary object={object} objectRef={objectRef} discovery={discovery} eventsCount={events.items.length} eventsHref={tabHref('events')} listNamespace={listNamespace} access={access} />;

  return (
    <div className="object-view" data-testid="object-view">
      <div className="toolbar">
        <div className="crumbs">
          <Link href={back} data-testid="back-to-list">
            {type.resource}
          </Link>
          {namespace && <span className="muted"> / {namespace}</span>}
          <span className="muted"> / </span>
        </div>
        <h2 className="title" data-testid="object-title">
          {name}
          <span className="muted small"> {info?.kind ?? type.resource}</span>
          {object?.metadata?.deletionTimestamp && (
            <span className="pill state-deleting" data-testid="deleting">
              deleting
            </span>
          )}
          {data && <span className={`pill state-${data.state}`}>{data.state}</span>}
          <span className="spacer" />
          {object && hasActions(object.kind) && <ObjectActions object={object} objectRef={objectRef} access={access} scaleOpen={scaling} setScaleOpen={setScaling} />}
          {object && info && discovery && info.verbs.includes('delete') && (
            <button
              className="btn small danger"
              data-testid="delete-button"
              disabled={canDelete === false}
              title={canDelete === false ? access.missing('delete', { name }) : undefined}
              onClick={() => setDeleting(true)}
            >
              Delete…
            </button>
          )}
        </h2>
        <div className="tabs" role="tablist">
          {tabsFor(info?.kind ?? object?.kind).map((t, i) =>
            t === 'edit' && canEdit === false ? (
              <span key={t} role="tab" aria-disabled="true" className="tab disabled" data-testid="tab-edit" title={access.missing('update', { name })}>
                {TAB_LABEL[t]}
              </span>
            ) : (
            <Link key={t} role="tab" aria-selected={t === tab} className={t === tab ? 'tab active' : 'tab'} href={tabHref(t)} replace data-testid={`tab-${t}`} title={`${TAB_LABEL[t]} (${TAB_KEY[t] ?? i + 1})`}>
              {TAB_LABEL[t]}
              {t === 'events' && events.items.length > 0 && <span className="badge">{events.items.length}</span>}
            </Link>
            ),
          )}
        </div>
      </div>
      {/* the tab's panel scrolls: focusable, so the keyboard can scroll it (axe scrollable-region-focusable) */}
      <div role="tabpanel" tabIndex={0} aria-label={TAB_LABEL[tab]} className={tab === 'edit' ? 'object-body editing' : 'object-body'}>
        {body}
      </div>
      {deleting && object && info && discovery && (
        <DeleteDialog info={info} object={object} discovery={discovery} listNamespace={listNamespace} onClose={() => setDeleting(false)} onDeleted={(gone) => (gone || !object.metadata?.finalizers?.length ? navigate(back) : setDeleting(false))} />
      )}
    </div>
  );
}

function Manifest({ object, format }: { object: KubeObject; format: ManifestFormat }) {
  const [showManaged, setShowManaged] = useState(false);
  const text = useMemo(() => manifestText(object, format, !showManaged), [object, format, showManaged]);
  return (
    <div className="manifest-wrap">
      <div className="manifest-tools">
        <label className="check">
          <input type="checkbox" checked={showManaged} onChange={(e) => setShowManaged(e.target.checked)} /> show managedFields
        </label>
        <button className="btn small" onClick={() => void navigator.clipboard?.writeText(text)}>
          Copy
        </button>
        <span className="muted small">read-only · resourceVersion {object.metadata?.resourceVersion}</span>
      </div>
      <ManifestViewer object={object} format={format} text={text} />
    </div>
  );
}

function KeyValues({ values, testid }: { values: Record<string, string> | undefined; testid: string }) {
  const entries = Object.entries(values ?? {});
  if (!entries.length) return <span className="muted">none</span>;
  return (
    <ul className="kv" data-testid={testid}>
      {entries.map(([k, v]) => (
        <li key={k} className="chip" title={v}>
          <span className="chip-key">{k}</span>
          {v !== '' && <span className="chip-value">{v.length > 120 ? `${v.slice(0, 120)}…` : v}</span>}
        </li>
      ))}
    </ul>
  );
}

function OwnerLink({ owner, namespace, discovery, listNamespace }: { owner: OwnerReference; namespace?: string; discovery?: Discovery; listNamespace: string }) {
  const r = discovery ? resourceForKind(discovery, owner.apiVersion, owner.kind) : undefined;
  const label = `${owner.kind}/${owner.name}`;
  return (
    <li>
      {r ? (
        <Link href={href(objectPath(r, r.namespaced ? namespace : undefined, owner.name), { ns: listNamespace || undefined })} data-testid="owner-link">
          {label}
        </Link>
      ) : (
        <span>{label}</span>
      )}
      {owner.controller && <span className="pill">controller</span>}
      {owner.blockOwnerDeletion && <span className="pill muted">blocks deletion</span>}
    </li>
  );
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
}

function Summary({ object, objectRef, discovery, eventsCount, eventsHref, listNamespace, access }: { object: KubeObject; objectRef: ResourceRef; discovery?: Discovery; eventsCount: number; eventsHref: string; listNamespace: string; access: Access }) {
  const finalizersReadOnly = access.can('patch', { name: objectRef.name }) === false;
  const now = useNow();
  const m = object.metadata ?? {};
  const conditions = ((object.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).filter((c) => c && typeof c === 'object');
  return (
    <div className="summary" data-testid="summary">
      {m.deletionTimestamp && (
        <div className="banner banner-deleting" data-testid="deletion-state">
          Being deleted since {m.deletionTimestamp} ({ageOf(m.deletionTimestamp, now)} ago)
          {m.deletionGracePeriodSeconds !== undefined && `, grace period ${m.deletionGracePeriodSeconds}s`}
          {m.finalizers?.length ? ` — waiting for finalizers: ${m.finalizers.join(', ')}` : ''}
        </div>
      )}
      <section className="panel">
        <h3>Metadata</h3>
        <dl className="meta-grid">
          <dt>Name</dt>
          <dd>{m.name}</dd>
          {m.namespace && (
            <>
              <dt>Namespace</dt>
              <dd>{m.namespace}</dd>
            </>
          )}
          <dt>Created</dt>
          <dd title={m.creationTimestamp}>
            {m.creationTimestamp} <span className="muted">({ageOf(m.creationTimestamp, now)} ago)</span>
          </dd>
          <dt>UID</dt>
          <dd className="mono">{m.uid}</dd>
          <dt>Resource version</dt>
          <dd className="mono" data-testid="resource-version">
            {m.resourceVersion}
          </dd>
          <AtRestHint objectRef={objectRef} resourceVersion={m.resourceVersion} />
          {m.generation !== undefined && (
            <>
              <dt>Generation</dt>
              <dd>{m.generation}</dd>
            </>
          )}
          <dt>Labels</dt>
          <dd>
            <KeyValues values={m.labels} testid="labels" />
          </dd>
          <dt>Annotations</dt>
          <dd>
            <KeyValues values={m.annotations} testid="annotations" />
          </dd>
          <dt>Owners</dt>
          <dd>
            {m.ownerReferences?.length ? (
              <ul className="plain-list">
                {m.ownerReferences.map((o) => (
                  <OwnerLink key={o.uid || o.name} owner={o} namespace={m.namespace} discovery={discovery} listNamespace={listNamespace} />
                ))}
              </ul>
            ) : (
              <span className="muted">none</span>
            )}
          </dd>
          <dt>Finalizers</dt>
          <dd data-testid="finalizers">
            <FinalizerList object={object} objectRef={objectRef} readOnly={finalizersReadOnly} readOnlyReason={finalizersReadOnly ? access.missing('patch', { name: objectRef.name }) : undefined} />
          </dd>
          <dt>Events</dt>
          <dd>
            <Link href={eventsHref} replace>
              {eventsCount} related event{eventsCount === 1 ? '' : 's'}
            </Link>
          </dd>
        </dl>
      </section>
      {isWorkload(object) && <WorkloadPanel object={object} />}
      {object.kind === 'Pod' && <PodLine pod={object} listNamespace={listNamespace} />}
      {object.kind === 'Pod' && <PodContainers pod={object} />}
      {object.kind === 'Secret' && !(object.apiVersion ?? 'v1').includes('/') && <SecretData secret={object} />}
      <section className="panel">
        <h3>Conditions</h3>
        {conditions.length === 0 ? (
          <span className="muted">This object reports no status conditions.</span>
        ) : (
          <table className="simple" data-testid="conditions">
            <thead>
              <tr>
                <th>Type</th>
                <th>Status</th>
                <th>Reason</th>
                <th>Message</th>
                <th>Last transition</th>
              </tr>
            </thead>
            <tbody>
              {conditions.map((c, i) => (
                <tr key={c.type ?? i} className={`cond-${conditionTone(c.type, c.status)}`}>
                  <td>{c.type}</td>
                  <td>
                    <span className={`pill cond-${conditionTone(c.type, c.status)}`} data-testid={`condition-${c.type}`}>
                      {c.status}
                    </span>
                  </td>
                  <td>{c.reason}</td>
                  <td className="wrap">{c.message}</td>
                  <td title={c.lastTransitionTime ?? c.lastUpdateTime}>{ageOf(c.lastTransitionTime ?? c.lastUpdateTime, now)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}

/** A pod's phase (or waiting reason), readiness and restarts, coloured as in the workload views. */
function PodLine({ pod, listNamespace }: { pod: KubeObject; listNamespace: string }) {
  const s = podState(pod);
  const node = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
  return (
    <section className="panel" data-testid="pod-state">
      <h3>State</h3>
      <span className={`pill pod-${s.tone}`} data-testid="pod-phase">
        {s.phase}
      </span>{' '}
      ready {s.ready} · restarts <span className={s.restarts > 0 ? 'restarts' : ''}>{s.restarts}</span>
      {node && (
        <span className="muted">
          {' '}
          · on node{' '}
          <Link href={href(objectPath({ group: '', version: 'v1', resource: 'nodes' }, undefined, node), { ns: listNamespace || undefined })} data-testid="node-link">
            {node}
          </Link>
        </span>
      )}
    </section>
  );
}

interface EventObj extends KubeObject {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  lastTimestamp?: string;
  eventTime?: string;
  firstTimestamp?: string;
  source?: { component?: string };
  reportingComponent?: string;
}

/** Events whose involvedObject is this object (field selectors), kept live. */
function useRelatedEvents(discovery: Discovery | undefined, object: KubeObject | undefined, info: ApiResource | undefined) {
  const eventsType = discovery?.resources.find((r) => r.group === '' && r.resource === 'events');
  const m = object?.metadata;
  const fieldSelector = m?.name && object?.kind ? [`involvedObject.name=${m.name}`, `involvedObject.kind=${object.kind}`, ...(m.namespace ? [`involvedObject.namespace=${m.namespace}`] : [])].join(',') : undefined;
  const c = useCollection<EventObj>(
    eventsType && fieldSelector && info
      ? { group: '', version: eventsType.version, resource: 'events', namespace: m?.namespace, representation: 'object', fieldSelector }
      : undefined,
  );
  const items = useMemo(() => {
    const list = [...(c.data?.items ?? [])];
    const t = (e: EventObj) => Date.parse(e.lastTimestamp || e.eventTime || e.firstTimestamp || e.metadata?.creationTimestamp || '') || 0;
    return list.sort((a, b) => t(b) - t(a));
  }, [c.data?.items, c.data?.version]); // eslint-disable-line react-hooks/exhaustive-deps
  return { items, error: c.error };
}

function EventsPanel({ events, error }: { events: EventObj[]; error: unknown }) {
  const now = useNow();
  if (error) return <ErrorState error={error} compact />;
  if (!events.length) return <EmptyState title="No events for this object">Events recorded about it will appear here live.</EmptyState>;
  return (
    <table className="simple" data-testid="events">
      <thead>
        <tr>
          <th>Type</th>
          <th>Reason</th>
          <th>Age</th>
          <th>From</th>
          <th>Count</th>
          <th>Message</th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => (
          <tr key={e.metadata?.uid ?? e.metadata?.name} className={e.type === 'Warning' ? 'warn' : ''}>
            <td>{e.type}</td>
            <td>{e.reason}</td>
            <td>{ageOf(e.lastTimestamp || e.eventTime || e.metadata?.creationTimestamp, now)}</td>
            <td>{e.source?.component || e.reportingComponent}</td>
            <td className="num">{e.count ?? 1}</td>
            <td className="wrap">{e.message}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ManagedFieldsPanel({ object }: { object: KubeObject }) {
  const now = useNow();
  const entries = object.metadata?.managedFields ?? [];
  const byField = useMemo(() => ownershipByField(entries), [entries]);
  if (!entries.length)
    return <EmptyState title="No managed fields recorded">The server records field ownership on writes that carry a field manager (server-side apply, updates).</EmptyState>;
  return (
    <div className="managed" data-testid="managed-fields">
      <section className="panel">
        <h3>Managers</h3>
        <table className="simple">
          <thead>
            <tr>
              <th>Manager</th>
              <th>Operation</th>
              <th>Subresource</th>
              <th>API version</th>
              <th>When</th>
              <th>Fields</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e, i) => (
              <tr key={i}>
                <td>{e.manager}</td>
                <td>{e.operation}</td>
                <td>{e.subresource ?? ''}</td>
                <td>{e.apiVersion}</td>
                <td title={e.time}>{ageOf(e.time, now)}</td>
                <td className="num">{byField.filter((f) => f.managers.some((m) => m.manager === e.manager && m.operation === e.operation)).length}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="panel">
        <h3>Who owns what</h3>
        <table className="simple">
          <thead>
            <tr>
              <th>Field</th>
              <th>Owners</th>
            </tr>
          </thead>
          <tbody>
            {byField.map((f) => (
              <tr key={f.path} className={f.managers.length > 1 ? 'shared' : ''}>
                <td className="mono">{f.path}</td>
                <td>
                  {f.managers.map((m, i) => (
                    <span key={i} className="pill" title={`${m.operation}${m.subresource ? ` (${m.subresource})` : ''}`}>
                      {m.manager}
                    </span>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </div>
  );
}
