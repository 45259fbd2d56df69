// --use-service-account-credentials for the controller manager as its own process: as upstream's
// SAControllerClientBuilder, each controller gets its own client whose token is its service account's, minted
// with TokenRequest (POST serviceaccounts/<name>/token) by the controller manager's own credential after making
// the account if it is missing; the token is requested again before it expires.
import { ApiClient, ApiError, type ClientOptions } from '../../client/index.js';

/** Token lifetime asked for (upstream's client builder asks for one hour and renews at 80%). */
const EXPIRATION_SECONDS = 3600;

const SA_USER = /^system:serviceaccount:([^:]+):([^:]+)$/;

export class ServiceAccountClients {
  private clients = new Map<string, ApiClient>();

  constructor(
    /** The controller manager's own client (its kubeconfig credential). */
    private readonly own: ApiClient,
    private readonly options: Omit<ClientOptions, 'token'>,
    private readonly log: (l: string) => void,
  ) {}

  /** The client of `user`: a service account's own token for system:serviceaccount:<ns>:<name>, else the manager's. */
  clientFor(user: string): ApiClient {
    const m = SA_USER.exec(user);
    if (!m) return this.own;
    let c = this.clients.get(user);
    if (!c) this.clients.set(user, (c = new ApiClient({ ...this.options, token: this.tokenSource(m[1]!, m[2]!) })));
    return c;
  }

  private tokenSource(namespace: string, name: string): () => Promise<string> {
    let token = '';
    let renewAt = 0;
    let pending: Promise<string> | undefined;
    const mint = async (): Promise<string> => {
      const base = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts`;
      await this.own.request('POST', base, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } } }).catch((e: unknown) => {
        if (!(e instanceof ApiError && e.code === 409)) throw e;
      });
      const r = await this.own.request<{ status?: { token?: string; expirationTimestamp?: string } }>('POST', `${base}/${encodeURIComponent(name)}/token`, {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: EXPIRATION_SECONDS } },
      });
      const t = r.body.status?.token;
      if (!t) throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);
      const expires = Date.parse(r.body.status?.expirationTimestamp ?? '') || Date.now() + EXPIRATION_SECONDS * 1000;
      token = t;
      renewAt = Date.now() + 0.8 * (expires - Date.now());
      return t;
    };
    return async () => {
      if (token && Date.now() < renewAt) return token;
      pending ??= mint()
        .catch((e) => {
          this.log(`token for service account ${namespace}/${name}: ${(e as Error).message}`);
          throw e;
        })
        .finally(() => (pending = undefined));
      return pending;
    };
  }
}
