// Shared set-up of the authorization tests: a token file with an admin (system:masters) and plain users,
// a server on it (RBAC by default once a token file is given) and per-user JSON clients.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiServer } from '../../src/server/app.js';
import type { ServerFlags } from '../../src/server/flags.js';
import { startServer } from '../../src/server/app.js';
import { client } from '../helpers/server.js';

export const USERS = ['admin', 'alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace'] as const;
export type TestUser = (typeof USERS)[number];

export interface AuthzFixture {
  srv: ApiServer;
  dir: string;
  /** The server's log lines. */
  logs: string[];
  as(user: TestUser): ReturnType<typeof client>;
  close(): Promise<void>;
}

export function tokenFile(dir: string): string {
  const file = join(dir, 'tokens.csv');
  const groups: Record<string, string> = { admin: 'system:masters', alice: 'dev', bob: 'ops' };
  writeFileSync(file, USERS.map((u) => `${u}-token,${u},u-${u},"${groups[u] ?? ''}"`).join('\n') + '\n');
  return file;
}

export async function authzServer(flags: Partial<ServerFlags> = {}, namespaces = ['team']): Promise<AuthzFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-authz-'));
  const logs: string[] = [];
  const srv = await startServer({ port: 0, store: 'memory', demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0, tokenAuthFile: tokenFile(dir), ...flags }, { log: (l) => logs.push(l) });
  const as = (user: TestUser) => {
    const c = client(srv.url);
    const h = (extra?: Record<string, string>) => ({ Authorization: `Bearer ${user}-token`, ...extra });
    return {
      ...c,
      get: (p: string, x?: Record<string, string>) => c.get(p, h(x)),
      post: (p: string, b: unknown, x?: Record<string, string>) => c.post(p, b, h(x)),
      put: (p: string, b: unknown, x?: Record<string, string>) => c.put(p, b, h(x)),
      patch: (p: string, b: unknown, ct: string, x?: Record<string, string>) => c.patch(p, b, ct, h(x)),
      del: (p: string, b?: unknown, x?: Record<string, string>) => c.del(p, b, h(x)),
      call: (m: string, p: string, b?: unknown, x?: Record<string, string>) => c.call(m, p, b, h(x)),
    } as ReturnType<typeof client>;
  };
  for (const ns of namespaces) {
    const r = await as('admin').post('/api/v1/namespaces', { metadata: { name: ns } });
    if (r.status !== 201) throw new Error(`namespace ${ns}: ${r.status} ${r.text}`);
  }
  return {
    srv,
    dir,
    logs,
    as,
    async close() {
      await srv.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

export type Rule = { apiGroups?: string[]; resources?: string[]; verbs: string[]; resourceNames?: string[]; nonResourceURLs?: string[] };

/** Creates (as admin) a Role or ClusterRole and a binding of it to a user. */
export async function grant(f: AuthzFixture, user: string, name: string, rules: Rule[], namespace?: string): Promise<void> {
  const admin = f.as('admin');
  const role = namespace
    ? await admin.post(`${RBAC}/namespaces/${namespace}/roles`, { metadata: { name }, rules })
    : await admin.post(`${RBAC}/clusterroles`, { metadata: { name }, rules });
  if (role.status !== 201) throw new Error(`role ${name}: ${role.status} ${role.text}`);
  await bind(f, user, name, namespace ? 'Role' : 'ClusterRole', namespace);
}

export async function bind(f: AuthzFixture, user: string, role: string, kind: 'Role' | 'ClusterRole', namespace?: string, name = `${role}-${user}`): Promise<void> {
  const body = { metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }] };
  const r = namespace ? await f.as('admin').post(`${RBAC}/namespaces/${namespace}/rolebindings`, body) : await f.as('admin').post(`${RBAC}/clusterrolebindings`, body);
  if (r.status !== 201) throw new Error(`binding ${name}: ${r.status} ${r.text}`);
}

export const forbiddenMessage = (what: string, user: string, verb: string, resource: string, group: string, ns?: string) =>
  `${what} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group "${group}" ${ns ? `in the namespace "${ns}"` : 'at the cluster scope'}`;
