// A test proxy that makes our server look like a real cluster: only the upstream `*.k8s.io` spellings.
// Accept alternatives naming `*.service.io` media groups are dropped (a real kube-apiserver knows only
// meta.k8s.io and apidiscovery.k8s.io), `*.service.io` groups are taken out of discovery and the
// OpenAPI index, and any request to a `/apis/<x>.service.io/...` path is answered 404 as a real
// cluster would. WebSocket upgrades (watches) are piped through. Loopback only.
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

const SERVICE_GROUP = /\.service\.io(?=[/?]|$)/;

/** `/apis/<group>...` naming a service.io group. */
export function isServiceIoPath(path: string): boolean {
  const m = /^\/apis\/([^/?]+)/.exec(path);
  return !!m && SERVICE_GROUP.test(m[1]!);
}

/** Accept without the alternatives a real cluster would not know. */
export function upstreamAccept(accept: string | undefined): string | undefined {
  if (!accept) return accept;
  const kept = accept
    .split(',')
    .map((s) => s.trim())
    .filter((s) => !/g=[a-z.]*\.service\.io/.test(s));
  return kept.length ? kept.join(',') : 'application/json';
}

type Json = Record<string, any>;

/** Discovery and the OpenAPI index without service.io groups. */
export function filterBody(path: string, body: Json): Json {
  if (path === '/apis' || path === '/apis/') {
    if (Array.isArray(body.items)) body.items = body.items.filter((g: Json) => !SERVICE_GROUP.test(`${g.metadata?.name ?? ''}`));
    if (Array.isArray(body.groups)) body.groups = body.groups.filter((g: Json) => !SERVICE_GROUP.test(`${g.name ?? ''}`));
  }
  if (path.startsWith('/openapi/v3') && body.paths && typeof body.paths === 'object') {
    for (const k of Object.keys(body.paths)) if (SERVICE_GROUP.test(k)) delete body.paths[k];
  }
  return body;
}

const notFound = (res: ServerResponse, path: string) => {
  res.writeHead(404, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `the server could not find the requested resource (${path})`, reason: 'NotFound', code: 404 }));
};

export async function startK8sIoOnlyProxy(target: string, port = 0): Promise<{ url: string; server: Server; requests: string[] }> {
  const t = new URL(target);
  const requests: string[] = [];
  const headersFor = (req: IncomingMessage) => {
    const h = { ...req.headers };
    h.host = t.host;
    // the page's origin is this proxy's; the server checks writes come from its own
    if (h.origin) h.origin = t.origin;
    if (h.accept) h.accept = upstreamAccept(h.accept as string);
    return h;
  };
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const path = url.split('?')[0]!;
    requests.push(`${req.method} ${url}`);
    if (isServiceIoPath(path)) return notFound(res, path);
    const filtered = path === '/apis' || path === '/apis/' || path.startsWith('/openapi/v3');
    const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: url, headers: headersFor(req) }, (ur) => {
      if (!filtered || (ur.statusCode ?? 500) >= 300 || !/json/.test(ur.headers['content-type'] ?? '')) {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      ur.on('data', (c: Buffer) => chunks.push(c));
      ur.on('end', () => {
        const body = JSON.stringify(filterBody(path, JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        const headers = { ...ur.headers, 'content-length': String(Buffer.byteLength(body)) };
        delete headers.etag;
        delete headers['content-encoding'];
        res.writeHead(ur.statusCode ?? 200, headers);
        res.end(body);
      });
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  server.on('upgrade', (req, socket, head) => {
    const url = req.url ?? '/';
    requests.push(`UPGRADE ${url}`);
    if (isServiceIoPath(url.split('?')[0]!)) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const up = connect(Number(t.port), t.hostname, () => {
      const h = headersFor(req);
      const lines = [`${req.method} ${url} HTTP/1.1`, ...Object.entries(h).flatMap(([k, v]) => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((x) => `${k}: ${x}`)))];
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests };
}
