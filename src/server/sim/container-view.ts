// What a process inside a simulated container sees, derived from the pod's spec as a kubelet would build it:
// its environment (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables: envFrom, then env with $(VAR)
// expansion, fieldRefs, resourceFieldRefs, ConfigMap and Secret keys, then service links) and the files of
// its mounted ConfigMap, Secret, downwardAPI, projected (service-account token included) and emptyDir volumes.
import { quantityNanos } from '../registry/schema/quantity.js';
import type { KubeObject } from '../registry/types.js';

type Obj = Record<string, any>;

export interface ObjectReader {
  get(plural: 'configmaps' | 'secrets' | 'services' | 'nodes' | 'serviceaccounts', namespace: string | undefined, name: string): KubeObject | undefined;
  list(plural: 'services', namespace: string): KubeObject[];
  /** a bound service-account token for the pod (the kubelet asks TokenRequest for one) */
  token(pod: KubeObject, audience: string | undefined, expirationSeconds: number): Promise<string | undefined>;
}

const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);

export function findContainer(pod: KubeObject, name: string): Obj | undefined {
  const s = obj(pod['spec']);
  return [...arr(s.initContainers), ...arr(s.containers), ...arr(s.ephemeralContainers)].map(obj).find((c) => c.name === name);
}

export function podHostname(pod: KubeObject): string {
  const s = obj(pod['spec']);
  return String(s.hostname || pod.metadata?.name || '').slice(0, 63);
}

/** A downward-API field (pkg/fieldpath ExtractFieldPathAsString, kubelet podFieldSelectorRuntimeValue). */
function fieldValue(pod: KubeObject, path: string): string {
  const m = pod.metadata ?? {};
  const st = obj(pod['status']);
  const sp = obj(pod['spec']);
  const mapText = (o: Record<string, unknown> | undefined) =>
    Object.keys(o ?? {})
      .sort()
      .map((k) => `${k}=${JSON.stringify(String(o![k]))}`)
      .join('\n');
  const sub = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(path);
  if (sub) return String(((sub[1] === 'labels' ? m.labels : m.annotations) as Record<string, unknown> | undefined)?.[sub[2]!] ?? '');
  switch (path) {
    case 'metadata.name':
      return m.name ?? '';
    case 'metadata.namespace':
      return m.namespace ?? '';
    case 'metadata.uid':
      return m.uid ?? '';
    case 'metadata.labels':
      return mapText(m.labels as Record<string, unknown>);
    case 'metadata.annotations':
      return mapText(m.annotations as Record<string, unknown>);
    case 'spec.nodeName':
      return sp.nodeName ?? '';
    case 'spec.serviceAccountName':
      return sp.serviceAccountName ?? '';
    case 'status.hostIP':
      return st.hostIP ?? '';
    case 'status.hostIPs':
      return arr(st.hostIPs).map((x) => obj(x).ip).join(',');
    case 'status.podIP':
      return st.podIP ?? '';
    case 'status.podIPs':
      return arr(st.podIPs).map((x) => obj(x).ip).join(',');
    default:
      return '';
  }
}

/** A resourceFieldRef: the container's limit or request over the divisor, rounded up; unset limits are the node's allocatable. */
function resourceValue(pod: KubeObject, ref: Obj, defaultContainer: string, node: KubeObject | undefined): string {
  const c = findContainer(pod, String(ref.containerName || defaultContainer)) ?? {};
  const [kind, res] = String(ref.resource ?? '').split(/\.(.*)/s) as [string, string];
  const r = obj(obj(c.resources)[kind === 'limits' ? 'limits' : 'requests']);
  let q = quantityNanos(r[res]);
  if (q === undefined && kind === 'limits') q = quantityNanos(obj(obj(node?.['status']).allocatable)[res]);
  if (q === undefined) q = 0n;
  const divisor = quantityNanos(ref.divisor ?? '1') || 1_000_000_000n;
  return String((q + divisor - 1n) / divisor);
}

/** $(VAR) references, as kubelet's expansion (third_party/forked/golang/expansion): $$ escapes, unknown names stay. */
export function expand(s: string, vars: Map<string, string>): string {
  return s.replace(/\$\$|\$\(([^)]*)\)/g, (all, name: string | undefined) => {
    if (all === '$$') return '$';
    return name !== undefined && vars.has(name) ? vars.get(name)! : all;
  });
}

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

function keyData(o: KubeObject | undefined, secret: boolean): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  if (!o) return out;
  for (const [k, v] of Object.entries(obj(o['data']))) out.set(k, secret ? Buffer.from(String(v), 'base64') : Buffer.from(String(v)));
  if (!secret) for (const [k, v] of Object.entries(obj(o['binaryData']))) out.set(k, Buffer.from(String(v), 'base64'));
  if (secret) for (const [k, v] of Object.entries(obj(o['stringData']))) out.set(k, Buffer.from(String(v)));
  return out;
}

/** Service links (pkg/kubelet/envvars): FOO_SERVICE_HOST, FOO_SERVICE_PORT and the docker-link style FOO_PORT_* variables. */
function serviceEnv(pod: KubeObject, read: ObjectReader): [string, string][] {
  const ns = pod.metadata?.namespace ?? '';
  const links = obj(pod['spec']).enableServiceLinks !== false;
  const services = [...(links ? read.list('services', ns) : []), ...(ns === 'default' && links ? [] : [read.get('services', 'default', 'kubernetes')].filter((s): s is KubeObject => !!s))];
  const out: [string, string][] = [];
  for (const svc of services) {
    const sp = obj(svc['spec']);
    const ip = sp.clusterIP;
    if (!ip || ip === 'None') continue;
    const name = String(svc.metadata?.name ?? '').toUpperCase().replace(/-/g, '_');
    const ports = arr(sp.ports).map(obj);
    if (ports.length === 0) continue;
    out.push([`${name}_SERVICE_HOST`, ip], [`${name}_SERVICE_PORT`, String(ports[0]!.port)]);
    for (const p of ports) if (p.name) out.push([`${name}_SERVICE_PORT_${String(p.name).toUpperCase().replace(/-/g, '_')}`, String(p.port)]);
    const proto0 = String(ports[0]!.protocol ?? 'TCP').toLowerCase();
    out.push([`${name}_PORT`, `${proto0}://${ip}:${ports[0]!.port}`]);
    for (const p of ports) {
      const proto = String(p.protocol ?? 'TCP');
      const pre = `${name}_PORT_${p.port}_${proto.toUpperCase()}`;
      out.push([pre, `${proto.toLowerCase()}://${ip}:${p.port}`], [`${pre}_PROTO`, proto.toLowerCase()], [`${pre}_PORT`, String(p.port)], [`${pre}_ADDR`, ip]);
    }
  }
  return out;
}

/** The environment of a process started in the container, in the order `env` prints it. */
export function containerEnv(pod: KubeObject, container: string, read: ObjectReader): [string, string][] {
  const c = findContainer(pod, container) ?? {};
  const ns = pod.metadata?.namespace;
  const vars = new Map<string, string>();
  for (const from of arr(c.envFrom).map(obj)) {
    const prefix = String(from.prefix ?? '');
    const cm = from.configMapRef ? read.get('configmaps', ns, String(obj(from.configMapRef).name)) : undefined;
    const sec = from.secretRef ? read.get('secrets', ns, String(obj(from.secretRef).name)) : undefined;
    const data = from.configMapRef ? keyData(cm, false) : keyData(sec, true);
    for (const [k, v] of data) if (ENV_NAME.test(prefix + k)) vars.set(prefix + k, v.toString('utf8'));
  }
  const services = serviceEnv(pod, read);
  const svcVars = new Map(services);
  const node = obj(pod['spec']).nodeName ? read.get('nodes', undefined, String(obj(pod['spec']).nodeName)) : undefined;
  for (const e of arr(c.env).map(obj)) {
    const name = String(e.name ?? '');
    if (!name) continue;
    const vf = obj(e.valueFrom);
    let value: string | undefined;
    if (e.value !== undefined) value = expand(String(e.value), new Map([...svcVars, ...vars]));
    else if (vf.fieldRef) value = fieldValue(pod, String(obj(vf.fieldRef).fieldPath ?? ''));
    else if (vf.resourceFieldRef) value = resourceValue(pod, obj(vf.resourceFieldRef), container, node);
    else if (vf.configMapKeyRef) value = keyData(read.get('configmaps', ns, String(obj(vf.configMapKeyRef).name)), false).get(String(obj(vf.configMapKeyRef).key))?.toString('utf8');
    else if (vf.secretKeyRef) value = keyData(read.get('secrets', ns, String(obj(vf.secretKeyRef).name)), true).get(String(obj(vf.secretKeyRef).key))?.toString('utf8');
    else value = '';
    // a missing optional key leaves the variable unset (a required one would have kept the container from starting)
    if (value !== undefined) vars.set(name, value);
  }
  for (const [k, v] of services) if (!vars.has(k)) vars.set(k, v);
  const out: [string, string][] = [
    ['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
    ['HOSTNAME', podHostname(pod)],
  ];
  for (const [k, v] of vars) if (k !== 'PATH' && k !== 'HOSTNAME') out.push([k, v]);
  else out[k === 'PATH' ? 0 : 1] = [k, v];
  if (!vars.has('HOME')) out.push(['HOME', '/root']);
  return out;
}

/** A file tree: absolute path → contents; directories are the paths with entries below them, plus `dirs`. */
export interface FileTree {
  files: Map<string, Buffer>;
  dirs: Set<string>;
}

function normalize(p: string): string {
  const parts: string[] = [];
  for (const s of p.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') parts.pop();
    else parts.push(s);
  }
  return '/' + parts.join('/');
}

export function resolvePath(cwd: string, p: string): string {
  return normalize(p.startsWith('/') ? p : `${cwd}/${p}`);
}

/** The files one volume holds, relative to its root. */
async function volumeFiles(pod: KubeObject, container: string, vol: Obj, read: ObjectReader): Promise<Map<string, Buffer> | undefined> {
  const ns = pod.metadata?.namespace;
  const node = obj(pod['spec']).nodeName ? read.get('nodes', undefined, String(obj(pod['spec']).nodeName)) : undefined;
  const keyed = (data: Map<string, Buffer>, items: Obj[] | undefined) => {
    const out = new Map<string, Buffer>();
    if (items && items.length) {
      for (const it of items) if (data.has(String(it.key))) out.set(String(it.path ?? it.key), data.get(String(it.key))!);
    } else for (const [k, v] of data) out.set(k, v);
    return out;
  };
  const downward = (items: Obj[]) => {
    const out = new Map<string, Buffer>();
    for (const it of items) {
      if (it.fieldRef) out.set(String(it.path), Buffer.from(fieldValue(pod, String(obj(it.fieldRef).fieldPath ?? ''))));
      else if (it.resourceFieldRef) out.set(String(it.path), Buffer.from(resourceValue(pod, obj(it.resourceFieldRef), container, node)));
    }
    return out;
  };
  if (vol.configMap) return keyed(keyData(read.get('configmaps', ns, String(obj(vol.configMap).name)), false), arr(obj(vol.configMap).items).map(obj));
  if (vol.secret) return keyed(keyData(read.get('secrets', ns, String(obj(vol.secret).secretName)), true), arr(obj(vol.secret).items).map(obj));
  if (vol.downwardAPI) return downward(arr(obj(vol.downwardAPI).items).map(obj));
  if (vol.projected) {
    const out = new Map<string, Buffer>();
    for (const src of arr(obj(vol.projected).sources).map(obj)) {
      let part: Map<string, Buffer> | undefined;
      if (src.configMap) part = keyed(keyData(read.get('configmaps', ns, String(obj(src.configMap).name)), false), arr(obj(src.configMap).items).map(obj));
      else if (src.secret) part = keyed(keyData(read.get('secrets', ns, String(obj(src.secret).name)), true), arr(obj(src.secret).items).map(obj));
      else if (src.downwardAPI) part = downward(arr(obj(src.downwardAPI).items).map(obj));
      else if (src.serviceAccountToken) {
        const t = obj(src.serviceAccountToken);
        const token = await read.token(pod, t.audience ? String(t.audience) : undefined, Number(t.expirationSeconds ?? 3607));
        if (token !== undefined) part = new Map([[String(t.path ?? 'token'), Buffer.from(token)]]);
      }
      for (const [k, v] of part ?? []) out.set(k, v);
    }
    return out;
  }
  // emptyDir, hostPath, persistent volumes: an empty directory (nothing of the host is shown)
  return new Map();
}

/** The mounted files of a container (plus /etc/hostname), as the paths a process inside would open. */
export async function containerFiles(pod: KubeObject, container: string, read: ObjectReader): Promise<FileTree> {
  const tree: FileTree = { files: new Map(), dirs: new Set(['/', '/etc']) };
  tree.files.set('/etc/hostname', Buffer.from(podHostname(pod) + '\n'));
  const c = findContainer(pod, container) ?? {};
  const vols = new Map(arr(obj(pod['spec']).volumes).map(obj).map((v) => [String(v.name), v]));
  for (const m of arr(c.volumeMounts).map(obj)) {
    const vol = vols.get(String(m.name));
    if (!vol) continue;
    const files = await volumeFiles(pod, container, vol, read);
    if (!files) continue;
    const mount = normalize(String(m.mountPath ?? '/'));
    const sub = m.subPath ? normalize(String(m.subPath)).slice(1) : '';
    for (let d = mount; d !== '/'; d = d.slice(0, d.lastIndexOf('/')) || '/') tree.dirs.add(d);
    for (const [rel, data] of files) {
      const r = normalize(rel).slice(1);
      if (sub && r !== sub && !r.startsWith(sub + '/')) continue;
      const path = normalize(`${mount}/${sub ? r.slice(sub.length) : r}`);
      if (path === mount && sub) {
        tree.dirs.delete(mount);
        tree.files.set(mount, data);
        continue;
      }
      tree.files.set(path, data);
      for (let d = path.slice(0, path.lastIndexOf('/')) || '/'; d !== mount && d !== '/'; d = d.slice(0, d.lastIndexOf('/')) || '/') tree.dirs.add(d);
    }
  }
  return tree;
}
