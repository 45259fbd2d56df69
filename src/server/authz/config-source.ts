// Builds the authorizer list from --authorization-mode or an AuthorizationConfiguration, and reloads the
// configuration file when it changes (a valid new version replaces the chain; an invalid one is logged and
// the last good chain stays, as upstream).
import { createHash } from 'node:crypto';
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { ConfigLoadError, formatLoadProblem, loadServerConfigs } from '../../config/load.js';
import type { AuthorizationConfiguration } from '../../config/types.js';
import type { Authorizer } from './attributes.js';
import type { RbacAuthorizer } from './rbac.js';
import { alwaysAllow, alwaysDeny } from './union.js';
import { endpointFromKubeconfig, inClusterEndpoint, WebhookAuthorizer } from './webhook.js';

/** Modes of --authorization-mode (upstream pkg/kubeapiserver/authorizer/modes; ABAC is not served). */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC', 'Webhook'] as const;

export class AuthorizationSetupError extends Error {}

export interface ChainParts {
  rbac: RbacAuthorizer;
  /** The Node authorizer (mode Node, authorizer type Node). */
  node: Authorizer;
  log(line: string): void;
  /** Legacy --authorization-webhook-* flags for the Webhook mode. */
  webhook?: { configFile?: string; version?: string; authorizedTTL?: string; unauthorizedTTL?: string; timeout?: string };
}

export function authorizersFromModes(modes: string[], p: ChainParts): Authorizer[] {
  const seen = new Set<string>();
  return modes.map((m) => {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) throw new AuthorizationSetupError(`authorization-mode "${m}" is not a valid mode (valid: ${AUTHORIZATION_MODES.join(', ')})`);
    if (seen.has(m)) throw new AuthorizationSetupError(`authorization-mode "${m}" has mode specified more than once`);
    seen.add(m);
    switch (m) {
      case 'AlwaysAllow':
        return alwaysAllow;
      case 'AlwaysDeny':
        return alwaysDeny;
      case 'RBAC':
        return p.rbac;
      case 'Node':
        return p.node;
      default: {
        const w = p.webhook ?? {};
        if (!w.configFile) throw new AuthorizationSetupError('authorization-mode Webhook needs --authorization-webhook-config-file');
        return new WebhookAuthorizer({
          name: 'webhook',
          endpoint: endpointFromKubeconfig(w.configFile),
          log: p.log,
          config: {
            // upstream legacy flag defaults: 5m authorized, 30s unauthorized, v1beta1
            authorizedTTL: w.authorizedTTL ?? '5m',
            unauthorizedTTL: w.unauthorizedTTL ?? '30s',
            timeout: w.timeout ?? '30s',
            subjectAccessReviewVersion: (w.version ?? 'v1beta1') as 'v1',
            matchConditionSubjectAccessReviewVersion: 'v1',
            failurePolicy: 'NoOpinion',
            connectionInfo: { type: 'ServiceConfig', serviceConfigFile: w.configFile },
            matchConditions: [],
          },
        });
      }
    }
  });
}

export function authorizersFromConfig(cfg: AuthorizationConfiguration, p: ChainParts): Authorizer[] {
  return cfg.authorizers.map((a) => {
    switch (a.type) {
      case 'AlwaysAllow':
        return alwaysAllow;
      case 'AlwaysDeny':
        return alwaysDeny;
      case 'RBAC':
        return p.rbac;
      case 'Node':
        return p.node;
      case 'Webhook': {
        const conn = a.webhook.connectionInfo as { type: string; serviceConfigFile?: string; kubeConfigFile?: string };
        const endpoint =
          conn.type === 'InClusterConfig' ? inClusterEndpoint((f) => readFileSync(f)) : endpointFromKubeconfig((conn.serviceConfigFile ?? conn.kubeConfigFile)!);
        return new WebhookAuthorizer({ name: a.name, config: a.webhook, endpoint, log: p.log });
      }
      default:
        throw new AuthorizationSetupError(`authorizer type "${a.type}" (authorizers "${a.name}") is not served by this server`);
    }
  });
}

export async function loadAuthorizationConfig(file: string): Promise<AuthorizationConfiguration> {
  const loaded = await loadServerConfigs({ authorizationConfig: file });
  return loaded.authorization!;
}

/** Watches the configuration file; `apply` gets each valid changed version. */
export class AuthorizationConfigReloader {
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;
  private lastHash = '';
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly file: string,
    private readonly apply: (cfg: AuthorizationConfiguration) => void,
    private readonly log: (l: string) => void,
  ) {}

  async start(): Promise<void> {
    this.lastHash = await this.hash();
    try {
      this.watcher = watch(dirname(this.file), (_e, name) => {
        if (name !== null && name !== basename(this.file) && !String(name).startsWith('..')) return;
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.reload(), 50);
      });
      this.watcher.on('error', (e) => this.log(`authorization config watch: ${e.message}`));
    } catch (e) {
      this.log(`cannot watch ${this.file}: ${(e as Error).message}; it is not reloaded`);
    }
  }

  private async hash(): Promise<string> {
    try {
      return createHash('sha256').update(await readFile(this.file)).digest('hex');
    } catch {
      return '';
    }
  }

  /** Reloads when the content changed; resolves once applied or rejected. */
  reload(): Promise<void> {
    this.running = this.running.then(async () => {
      const h = await this.hash();
      if (h === '' || h === this.lastHash) return;
      this.lastHash = h;
      try {
        this.apply(await loadAuthorizationConfig(this.file));
        this.log(`reloaded AuthorizationConfiguration from ${this.file}`);
      } catch (e) {
        const detail = e instanceof ConfigLoadError ? e.problems.filter((p) => p.severity === 'error').map((p) => `  ${formatLoadProblem(p)}`).join('\n') : `  ${(e as Error).message}`;
        this.log(`error reloading AuthorizationConfiguration from ${this.file}; keeping the previous configuration:\n${detail}`);
      }
    });
    return this.running;
  }

  close(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
  }
}
