// Services: defaults (type, ports, cluster IP and node port allocation), validation and columns.
import { type Obj, ageColumn, arr, col, ensure, obj, orNone, setDefault, str } from './builtin-helpers.js';
import * as fe from './schema/field-errors.js';
import type { FieldError, KubeObject, Strategy, TableColumn } from './types.js';

const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];

/**
 * Random free addresses from a range. In-process bookkeeping only: callers that load stored
 * services at startup can mark their addresses used with markUsed().
 */
export class IPAllocator {
  private readonly used = new Set<number>();
  private base = 0;
  private size = 0;

  constructor(cidr: string) {
    this.setRange(cidr);
  }

  /** The range new addresses come from (--service-cluster-ip-range); addresses held stay held. */
  setRange(cidr: string): void {
    const [ip, bits] = cidr.split('/');
    this.base = ipToInt(ip!);
    this.size = 2 ** (32 - Number(bits));
  }

  /** The range's first usable address (the `kubernetes` Service's, as upstream's). */
  firstAddress(): string {
    return intToIp(this.base + 1);
  }

  contains(ip: string): boolean {
    const n = ipToInt(ip);
    return n > this.base && n < this.base + this.size - 1;
  }

  markUsed(ip: string): void {
    if (/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) this.used.add(ipToInt(ip));
  }

  isUsed(ip: string): boolean {
    return this.used.has(ipToInt(ip));
  }

  release(ip: string): void {
    this.used.delete(ipToInt(ip));
  }

  allocate(): string {
    for (let i = 0; i < 1000; i++) {
      // skip the network address and the first (kubernetes service) address, and broadcast
      const n = this.base + 2 + Math.floor(Math.random() * (this.size - 3));
      if (!this.used.has(n)) {
        this.used.add(n);
        return intToIp(n);
      }
    }
    throw new Error('service IP range exhausted');
  }
}

function ipToInt(ip: string): number {
  return ip.split('.').reduce((acc, p) => acc * 256 + Number(p), 0);
}

function intToIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

/** Service specs whose cluster IP the defaults picked (not the client): the allocator may pick again. */
const autoAllocated = new WeakSet<object>();

export function clusterIPWasPicked(spec: unknown): boolean {
  return typeof spec === 'object' && spec !== null && autoAllocated.has(spec);
}

export const DEFAULT_SERVICE_CIDR = '10.96.0.0/12';
export const SERVICE_CIDR = DEFAULT_SERVICE_CIDR;
export const serviceIPs = new IPAllocator(DEFAULT_SERVICE_CIDR);

const NODE_PORT_MIN = 30000;
const NODE_PORT_MAX = 32767;
const usedNodePorts = new Set<number>();

/** Records the addresses and node ports a stored service holds (at startup, so restarts never hand them out twice). */
export function rememberServiceAllocations(svc: KubeObject): void {
  const spec = (svc.spec ?? {}) as { clusterIP?: unknown; clusterIPs?: unknown; ports?: unknown };
  for (const ip of [spec.clusterIP, ...(Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [])]) if (typeof ip === 'string' && ip !== 'None') serviceIPs.markUsed(ip);
  if (Array.isArray(spec.ports)) for (const p of spec.ports) if (typeof p?.nodePort === 'number') usedNodePorts.add(p.nodePort);
}

function allocateNodePort(): number {
  for (let i = 0; i < 1000; i++) {
    const p = NODE_PORT_MIN + Math.floor(Math.random() * (NODE_PORT_MAX - NODE_PORT_MIN + 1));
    if (!usedNodePorts.has(p)) {
      usedNodePorts.add(p);
      return p;
    }
  }
  throw new Error('node port range exhausted');
}

function defaultService(o: KubeObject, old?: KubeObject): void {
  const spec = ensure(o as Obj, 'spec');
  const prev = old ? obj(old.spec) : {};
  setDefault(spec, 'type', 'ClusterIP');
  setDefault(spec, 'sessionAffinity', 'None');
  const type = str(spec.type);
  const ports = arr(spec.ports).map(obj);
  for (const p of ports) {
    setDefault(p, 'protocol', 'TCP');
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (type === 'ExternalName') return;
  // allocated values survive updates that omit them (as upstream's update path keeps them)
  if ((spec.clusterIP === undefined || spec.clusterIP === '') && typeof prev.clusterIP === 'string' && prev.clusterIP) {
    spec.clusterIP = prev.clusterIP;
    if (prev.clusterIPs !== undefined) spec.clusterIPs = prev.clusterIPs;
  }
  if (spec.clusterIP === undefined || spec.clusterIP === '') {
    const ips = arr(spec.clusterIPs);
    if (typeof ips[0] === 'string' && ips[0]) spec.clusterIP = ips[0];
    else {
      spec.clusterIP = serviceIPs.allocate();
      autoAllocated.add(spec);
    }
  } else if (typeof spec.clusterIP === 'string') {
    serviceIPs.markUsed(spec.clusterIP);
  }
  if (spec.clusterIPs === undefined) spec.clusterIPs = [spec.clusterIP];
  // headless services with a selector get families too (their endpoints carry pod IPs); selectorless ones do not
  if (spec.clusterIP !== 'None' || Object.keys(obj(spec.selector)).length > 0) {
    setDefault(spec, 'ipFamilies', ['IPv4']);
    setDefault(spec, 'ipFamilyPolicy', 'SingleStack');
  }
  setDefault(spec, 'internalTrafficPolicy', 'Cluster');
  if (type === 'LoadBalancer') setDefault(spec, 'allocateLoadBalancerNodePorts', true);
  if (type === 'NodePort' || type === 'LoadBalancer') {
    setDefault(spec, 'externalTrafficPolicy', 'Cluster');
    const prevPorts = arr(prev.ports).map(obj);
    for (const p of ports) {
      if (p.nodePort === undefined || p.nodePort === 0) {
        const same = prevPorts.find((q) => q.port === p.port && (q.protocol ?? 'TCP') === p.protocol && q.nodePort);
        p.nodePort = same ? same.nodePort : allocateNodePort();
      } else if (typeof p.nodePort === 'number') usedNodePorts.add(p.nodePort);
    }
  }
  const st = ensure(o as Obj, 'status');
  setDefault(st, 'loadBalancer', {});
}

export const DNS1035_LABEL_ERROR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

function validateService(o: KubeObject, old?: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  // service names are DNS-1035 labels: the 'label' name check does the rest
  const name = o.metadata?.name;
  if (typeof name === 'string' && name && !/^[a-z]/.test(name)) errs.push(fe.invalid('metadata.name', name, DNS1035_LABEL_ERROR));
  const spec = obj(o.spec);
  const type = str(spec.type) || 'ClusterIP';
  if (!SERVICE_TYPES.includes(type)) errs.push(fe.notSupported('spec.type', type, [...SERVICE_TYPES].sort()));
  // 1.33: PreferClose only (PreferSameZone/PreferSameNode are behind the alpha PreferSameTrafficDistribution gate)
  if (spec.trafficDistribution !== undefined && spec.trafficDistribution !== null && spec.trafficDistribution !== 'PreferClose')
    errs.push(fe.notSupported('spec.trafficDistribution', spec.trafficDistribution, ['PreferClose']));
  const ports = arr(spec.ports).map(obj);
  if (type === 'ExternalName') {
    if (!str(spec.externalName)) errs.push(fe.required('spec.externalName'));
  } else if (ports.length === 0 && spec.clusterIP !== 'None') {
    errs.push(fe.required('spec.ports'));
  }
  const names = new Set<string>();
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const path = `spec.ports[${i}]`;
    const name = str(p.name);
    if (ports.length > 1 && !name) errs.push(fe.required(`${path}.name`));
    if (name) {
      if (names.has(name)) errs.push(fe.duplicate(`${path}.name`, name));
      names.add(name);
    }
    if (!validPort(p.port)) errs.push(fe.invalid(`${path}.port`, p.port ?? 0, 'must be between 1 and 65535, inclusive'));
    const key = `${p.port}/${p.protocol ?? 'TCP'}`;
    if (seen.has(key)) errs.push(fe.duplicate(path, { port: p.port, protocol: p.protocol ?? 'TCP' }));
    seen.add(key);
    if (typeof p.targetPort === 'number' && !validPort(p.targetPort))
      errs.push(fe.invalid(`${path}.targetPort`, p.targetPort, 'must be between 1 and 65535, inclusive'));
    // a named target port is an IANA service name (upstream validation.IsValidPortName)
    else if (typeof p.targetPort === 'string') for (const e of portNameErrors(p.targetPort)) errs.push(fe.invalid(`${path}.targetPort`, p.targetPort, e));
    if (p.nodePort !== undefined && p.nodePort !== 0) {
      if (type !== 'NodePort' && type !== 'LoadBalancer') errs.push(fe.forbidden(`${path}.nodePort`, 'may not be used when `type` is \'ClusterIP\''));
      else if (typeof p.nodePort !== 'number' || p.nodePort < NODE_PORT_MIN || p.nodePort > NODE_PORT_MAX)
        errs.push(fe.invalid(`${path}.nodePort`, p.nodePort, `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_MIN}-${NODE_PORT_MAX}`));
    }
  });
  const ip = spec.clusterIP;
  if (typeof ip === 'string' && ip !== '' && ip !== 'None' && !/^\d{1,3}(\.\d{1,3}){3}$/.test(ip))
    errs.push(fe.invalid('spec.clusterIPs[0]', ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
  if (old) {
    const prevIP = obj(old.spec).clusterIP;
    if (typeof prevIP === 'string' && prevIP && type !== 'ExternalName' && str(obj(old.spec).type) !== 'ExternalName' && ip !== prevIP)
      errs.push(fe.invalid('spec.clusterIPs[0]', ip ?? '', 'may not change once set'));
  }
  return errs;
}

/** IsValidPortName: 1-15 characters, lower case alphanumerics and '-', at least one letter, no '--', no '-' at either end. */
export function portNameErrors(name: string): string[] {
  const out: string[] = [];
  if (name.length < 1 || name.length > 15) out.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) out.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(name)) out.push('must contain at least one letter (a-z)');
  if (name.includes('--')) out.push("must not contain consecutive hyphens");
  if (name.length > 0 && (name.startsWith('-') || name.endsWith('-'))) out.push("must not begin or end with a hyphen");
  return out;
}

function validPort(p: unknown): boolean {
  return typeof p === 'number' && Number.isInteger(p) && p >= 1 && p <= 65535;
}

function externalIP(o: KubeObject): string {
  const spec = obj(o.spec);
  const external = arr(spec.externalIPs).map(str);
  switch (str(spec.type)) {
    case 'ClusterIP':
    case 'NodePort':
    case '':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = arr(obj(obj(obj(o.status).loadBalancer)).ingress).map((i) => str(obj(i).ip) || str(obj(i).hostname)).filter(Boolean);
      const all = [...ingress, ...external];
      return all.length ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
  }
  return '<unknown>';
}

function portsCell(o: KubeObject): string {
  const ports = arr(obj(o.spec).ports).map(obj);
  if (!ports.length) return '<none>';
  return ports.map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${str(p.protocol) || 'TCP'}` : `${p.port}/${str(p.protocol) || 'TCP'}`)).join(',');
}

const serviceColumns: TableColumn[] = [
  col('Type', (o) => str(obj(o.spec).type), { description: 'The type of the service.' }),
  col('Cluster-IP', (o) => orNone(str(obj(o.spec).clusterIP)), { description: 'The IP address of the service.' }),
  col('External-IP', externalIP, { description: 'External IP addresses of the service.' }),
  col('Port(s)', portsCell, { description: 'The ports exposed by the service.' }),
  ageColumn,
  col(
    'Selector',
    (o) => {
      const sel = obj(obj(o.spec).selector);
      const keys = Object.keys(sel).sort();
      return keys.length ? keys.map((k) => `${k}=${str(sel[k])}`).join(',') : '<none>';
    },
    { priority: 1, description: 'The label selector of the service.' },
  ),
];

export const serviceStrategy: Strategy = {
  defaults: defaultService,
  defaultsAllocate: true,
  validate: validateService,
  nameValidation: 'label',
  fieldSelectors: {
    'spec.clusterIP': (o) => str(obj(o.spec).clusterIP),
    'spec.type': (o) => str(obj(o.spec).type),
  },
};

export { serviceColumns };
