// Storage migration after an encryption key or provider change: rewrites every object of the
// given resources through the API (a GET and an unchanged PUT each, as upstream's
// `kubectl get <r> -A -o json | kubectl replace -f -`). The server rewrites a value read with an
// older key even when the object did not change (stale read), so every object moves to the
// first provider. Usage: npm run storage-migrate -- --resources secrets,deployments.apps [--server URL]
export interface MigrateOptions {
  /** API server URL, e.g. http://127.0.0.1:8080 */
  server: string;
  /** Resources as in an EncryptionConfiguration: `secrets`, `deployments.apps`. */
  resources: string[];
  log?: (line: string) => void;
}

export interface MigrateResult {
  resource: string;
  rewritten: number;
  /** Objects that could not be rewritten (corrupt ones included), with the server's message. */
  failed: { name: string; message: string }[];
}

type Obj = { apiVersion?: string; kind?: string; metadata: { name: string; namespace?: string; resourceVersion?: string } };

export async function migrateStorage(opts: MigrateOptions): Promise<MigrateResult[]> {
  const out: MigrateResult[] = [];
  for (const resource of opts.resources) out.push(await migrateResource(opts, resource));
  return out;
}

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(url, {
    method,
    headers: { Accept: 'application/json', ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: r.status, body: parsed };
}

async function migrateResource(opts: MigrateOptions, resource: string): Promise<MigrateResult> {
  const dot = resource.indexOf('.');
  const plural = dot < 0 ? resource : resource.slice(0, dot);
  const group = dot < 0 ? '' : resource.slice(dot + 1);
  let base: string;
  if (group === '') base = `${opts.server}/api/v1`;
  else {
    const g = await call('GET', `${opts.server}/apis/${group}`);
    if (g.status !== 200) throw new Error(`group ${group}: ${g.body?.message ?? g.status}`);
    base = `${opts.server}/apis/${g.body.preferredVersion.groupVersion}`;
  }
  const result: MigrateResult = { resource, rewritten: 0, failed: [] };
  let cont = '';
  do {
    const l = await call('GET', `${base}/${plural}?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    if (l.status !== 200) throw new Error(`listing ${resource}: ${l.body?.message ?? l.status}`);
    const apiVersion: string = l.body.apiVersion;
    const kind = String(l.body.kind).replace(/List$/, '');
    for (const item of l.body.items as Obj[]) {
      const path = `${base}${item.metadata.namespace ? `/namespaces/${item.metadata.namespace}` : ''}/${plural}/${item.metadata.name}`;
      const message = await rewrite(path, { ...item, apiVersion, kind });
      if (message === undefined) result.rewritten++;
      else result.failed.push({ name: item.metadata.namespace ? `${item.metadata.namespace}/${item.metadata.name}` : item.metadata.name, message });
    }
    cont = l.body.metadata?.continue ?? '';
  } while (cont);
  opts.log?.(`${resource}: rewrote ${result.rewritten} objects${result.failed.length ? `, ${result.failed.length} failed` : ''}`);
  return result;
}

/** PUTs the object back unchanged; on a conflict reads it again and retries. Undefined on success. */
async function rewrite(path: string, obj: Obj): Promise<string | undefined> {
  let current = obj;
  for (let attempt = 0; attempt < 5; attempt++) {
    const p = await call('PUT', path, current);
    if (p.status === 200 || p.status === 201 || p.status === 404) return undefined; // 404: deleted meanwhile
    if (p.status !== 409) return p.body?.message ?? `HTTP ${p.status}`;
    const g = await call('GET', path);
    if (g.status === 404) return undefined;
    if (g.status !== 200) return g.body?.message ?? `HTTP ${g.status}`;
    current = g.body;
  }
  return 'too many conflicts';
}
