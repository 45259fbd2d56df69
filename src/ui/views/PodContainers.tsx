// A pod's containers as someone debugging it reads them: init containers, sidecars (init containers
// with restartPolicy Always) and regular ones, each with its image, state, last state, restarts,
// readiness, resources, ports, environment (linked to the ConfigMap/Secret keys it comes from), mounts
// (linked to their volumes and the objects behind them) and probes.
import type { KubeObject } from '../../client/index.js';
import { ageOf, useNow } from '../lib/age.js';
import { Link, href, objectPath, type TypeRef } from '../router.js';

type Obj = Record<string, any>;

const CORE = (resource: string): TypeRef => ({ group: '', version: 'v1', resource });

export type ContainerRole = 'init' | 'sidecar' | 'container' | 'ephemeral';

export interface ContainerView {
  role: ContainerRole;
  spec: Obj;
  status: Obj | undefined;
}

/** Every container of a pod in start order, with its status. */
export function podContainers(pod: KubeObject): ContainerView[] {
  const spec = ((pod as Obj).spec ?? {}) as Obj;
  const st = ((pod as Obj).status ?? {}) as Obj;
  const byName = (list: Obj[] | undefined) => new Map((list ?? []).map((s) => [s.name as string, s]));
  const init = byName(st.initContainerStatuses);
  const main = byName(st.containerStatuses);
  const eph = byName(st.ephemeralContainerStatuses);
  return [
    ...((spec.initContainers ?? []) as Obj[]).map((c) => ({ role: (c.restartPolicy === 'Always' ? 'sidecar' : 'init') as ContainerRole, spec: c, status: init.get(c.name) })),
    ...((spec.containers ?? []) as Obj[]).map((c) => ({ role: 'container' as const, spec: c, status: main.get(c.name) })),
    ...((spec.ephemeralContainers ?? []) as Obj[]).map((c) => ({ role: 'ephemeral' as const, spec: c, status: eph.get(c.name) })),
  ];
}

/** One line for a container state: `Running since …`, `Waiting: CrashLoopBackOff`, `Terminated: Error (exit 1)`. */
export function stateText(state: Obj | undefined, now: number): { tone: 'ok' | 'bad' | 'progress' | 'muted'; text: string; message?: string } {
  if (!state || !Object.keys(state).length) return { tone: 'muted', text: 'unknown' };
  if (state.running) return { tone: 'ok', text: `Running${state.running.startedAt ? ` for ${ageOf(state.running.startedAt, now)}` : ''}` };
  if (state.waiting) {
    const r = state.waiting.reason ?? 'Waiting';
    return { tone: /BackOff|Err|Invalid/.test(r) ? 'bad' : 'progress', text: `Waiting: ${r}`, message: state.waiting.message };
  }
  const t = state.terminated ?? {};
  const when = t.finishedAt ? `, ${ageOf(t.finishedAt, now)} ago` : '';
  return { tone: t.exitCode === 0 ? 'muted' : 'bad', text: `Terminated: ${t.reason ?? 'exited'} (exit code ${t.exitCode ?? '?'}${t.signal ? `, signal ${t.signal}` : ''})${when}`, message: t.message };
}

function probeText(p: Obj | undefined): string | undefined {
  if (!p) return undefined;
  let how = '';
  if (p.httpGet) how = `GET ${p.httpGet.scheme === 'HTTPS' ? 'https' : 'http'}://:${p.httpGet.port}${p.httpGet.path ?? '/'}`;
  else if (p.tcpSocket) how = `tcp :${p.tcpSocket.port}`;
  else if (p.grpc) how = `grpc :${p.grpc.port}${p.grpc.service ? ` ${p.grpc.service}` : ''}`;
  else if (p.exec) how = `exec ${(p.exec.command ?? []).join(' ')}`;
  const opts = [
    p.initialDelaySeconds ? `delay ${p.initialDelaySeconds}s` : '',
    `every ${p.periodSeconds ?? 10}s`,
    `timeout ${p.timeoutSeconds ?? 1}s`,
    `#failure ${p.failureThreshold ?? 3}`,
    p.successThreshold && p.successThreshold !== 1 ? `#success ${p.successThreshold}` : '',
  ].filter(Boolean);
  return `${how} (${opts.join(', ')})`;
}

function Resources({ r }: { r: Obj | undefined }) {
  const keys = [...new Set([...Object.keys(r?.requests ?? {}), ...Object.keys(r?.limits ?? {})])];
  if (!keys.length) return <span className="muted">none set</span>;
  return (
    <span className="mono small">
      {keys.map((k) => `${k} ${r?.requests?.[k] ?? '–'} / ${r?.limits?.[k] ?? '–'}`).join(' · ')}
      <span className="muted"> (request / limit)</span>
    </span>
  );
}

function ObjLink({ resource, namespace, name, children, testid }: { resource: string; namespace?: string; name: string; children: React.ReactNode; testid?: string }) {
  return (
    <Link href={href(objectPath(CORE(resource), resource === 'nodes' || resource === 'persistentvolumes' ? undefined : namespace, name))} data-testid={testid}>
      {children}
    </Link>
  );
}

function EnvList({ c, ns }: { c: Obj; ns?: string }) {
  const env = (c.env ?? []) as Obj[];
  const envFrom = (c.envFrom ?? []) as Obj[];
  if (!env.length && !envFrom.length) return <span className="muted">none</span>;
  return (
    <ul className="plain-list env-list" data-testid="container-env">
      {env.map((e) => {
        const vf = e.valueFrom ?? {};
        let value: React.ReactNode;
        if (vf.configMapKeyRef)
          value = (
            <>
              from ConfigMap{' '}
              <ObjLink resource="configmaps" namespace={ns} name={vf.configMapKeyRef.name} testid="env-configmap-link">
                {vf.configMapKeyRef.name}
              </ObjLink>{' '}
              key <code>{vf.configMapKeyRef.key}</code>
            </>
          );
        else if (vf.secretKeyRef)
          value = (
            <>
              from Secret{' '}
              <ObjLink resource="secrets" namespace={ns} name={vf.secretKeyRef.name} testid="env-secret-link">
                {vf.secretKeyRef.name}
              </ObjLink>{' '}
              key <code>{vf.secretKeyRef.key}</code>
            </>
          );
        else if (vf.fieldRef) value = <span className="muted">field {vf.fieldRef.fieldPath}</span>;
        else if (vf.resourceFieldRef) value = <span className="muted">resource {vf.resourceFieldRef.resource}</span>;
        else value = <code>{String(e.value ?? '')}</code>;
        return (
          <li key={e.name}>
            <code>{e.name}</code> = {value}
          </li>
        );
      })}
      {envFrom.map((f, i) => (
        <li key={`from-${i}`}>
          all keys of{' '}
          {f.configMapRef ? (
            <>
              ConfigMap{' '}
              <ObjLink resource="configmaps" namespace={ns} name={f.configMapRef.name} testid="env-configmap-link">
                {f.configMapRef.name}
              </ObjLink>
            </>
          ) : (
            <>
              Secret{' '}
              <ObjLink resource="secrets" namespace={ns} name={f.secretRef?.name} testid="env-secret-link">
                {f.secretRef?.name}
              </ObjLink>
            </>
          )}
          {f.prefix && <span className="muted"> (prefix {f.prefix})</span>}
        </li>
      ))}
    </ul>
  );
}

function VolumeSource({ v, ns }: { v: Obj | undefined; ns?: string }) {
  if (!v) return <span className="bad small">no such volume</span>;
  if (v.configMap)
    return (
      <>
        ConfigMap <ObjLink resource="configmaps" namespace={ns} name={v.configMap.name}>{v.configMap.name}</ObjLink>
      </>
    );
  if (v.secret)
    return (
      <>
        Secret <ObjLink resource="secrets" namespace={ns} name={v.secret.secretName}>{v.secret.secretName}</ObjLink>
      </>
    );
  if (v.persistentVolumeClaim)
    return (
      <>
        PVC <ObjLink resource="persistentvolumeclaims" namespace={ns} name={v.persistentVolumeClaim.claimName}>{v.persistentVolumeClaim.claimName}</ObjLink>
      </>
    );
  if (v.projected) return <span className="muted">projected ({(v.projected.sources ?? []).map((s: Obj) => Object.keys(s)[0]).join(', ')})</span>;
  const kind = Object.keys(v).find((k) => k !== 'name');
  return <span className="muted">{kind ?? 'volume'}</span>;
}

function Mounts({ c, volumes, ns }: { c: Obj; volumes: Map<string, Obj>; ns?: string }) {
  const mounts = (c.volumeMounts ?? []) as Obj[];
  if (!mounts.length) return <span className="muted">none</span>;
  return (
    <ul className="plain-list" data-testid="container-mounts">
      {mounts.map((m) => (
        <li key={`${m.name}:${m.mountPath}`}>
          <code>{m.mountPath}</code>
          {m.subPath && <span className="muted"> (subPath {m.subPath})</span>}
          {m.readOnly && <span className="pill">ro</span>} ← volume <code>{m.name}</code>: <VolumeSource v={volumes.get(m.name)} ns={ns} />
        </li>
      ))}
    </ul>
  );
}

const ROLE_LABEL: Record<ContainerRole, string> = { init: 'init', sidecar: 'sidecar', container: 'container', ephemeral: 'ephemeral' };

export function PodContainers({ pod }: { pod: KubeObject }) {
  const now = useNow();
  const ns = pod.metadata?.namespace;
  const volumes = new Map((((pod as Obj).spec?.volumes ?? []) as Obj[]).map((v) => [v.name as string, v]));
  const list = podContainers(pod);
  return (
    <section className="panel" data-testid="containers">
      <h3>Containers</h3>
      {list.map(({ role, spec: c, status: s }) => {
        const state = stateText(s?.state, now);
        const last = s?.lastState && Object.keys(s.lastState).length ? stateText(s.lastState, now) : undefined;
        const probes = (['startupProbe', 'livenessProbe', 'readinessProbe'] as const).map((k) => [k.replace('Probe', ''), probeText(c[k])] as const).filter(([, t]) => t);
        return (
          <div key={`${role}:${c.name}`} className="container-card" data-testid={`container-${c.name}`} data-role={role}>
            <div className="container-head">
              <strong>{c.name}</strong> <span className="pill">{ROLE_LABEL[role]}</span>
              <span className={`pill pod-${state.tone}`} data-testid="container-state">
                {state.text}
              </span>
              {s && (
                <span className="muted small">
                  {' '}
                  ready <span data-testid="container-ready">{s.ready ? 'yes' : 'no'}</span> · restarts{' '}
                  <span className={s.restartCount > 0 ? 'restarts' : ''} data-testid="container-restarts">
                    {s.restartCount ?? 0}
                  </span>
                </span>
              )}
            </div>
            <dl className="meta-grid container-grid">
              <dt>Image</dt>
              <dd className="mono small">
                {c.image}
                {s?.imageID && <span className="muted" title={s.imageID}> · {String(s.imageID).slice(-19)}</span>}
              </dd>
              {state.message && (
                <>
                  <dt>Message</dt>
                  <dd className="wrap" data-testid="container-state-message">
                    {state.message}
                  </dd>
                </>
              )}
              {last && (
                <>
                  <dt>Last state</dt>
                  <dd data-testid="container-last-state">
                    <span className={`pill pod-${last.tone}`}>{last.text}</span>
                    {last.message && <span className="wrap small"> {last.message}</span>}
                  </dd>
                </>
              )}
              {(c.command || c.args) && (
                <>
                  <dt>Command</dt>
                  <dd className="mono small">{[...(c.command ?? []), ...(c.args ?? [])].join(' ')}</dd>
                </>
              )}
              <dt>Resources</dt>
              <dd>
                <Resources r={c.resources} />
              </dd>
              {!!c.ports?.length && (
                <>
                  <dt>Ports</dt>
                  <dd className="mono small">{(c.ports as Obj[]).map((p) => `${p.name ? `${p.name}:` : ''}${p.containerPort}/${p.protocol ?? 'TCP'}`).join(', ')}</dd>
                </>
              )}
              <dt>Environment</dt>
              <dd>
                <EnvList c={c} ns={ns} />
              </dd>
              <dt>Mounts</dt>
              <dd>
                <Mounts c={c} volumes={volumes} ns={ns} />
              </dd>
              {probes.length > 0 && (
                <>
                  <dt>Probes</dt>
                  <dd>
                    <ul className="plain-list mono small" data-testid="container-probes">
                      {probes.map(([k, t]) => (
                        <li key={k}>
                          {k}: {t}
                        </li>
                      ))}
                    </ul>
                  </dd>
                </>
              )}
            </dl>
          </div>
        );
      })}
    </section>
  );
}
