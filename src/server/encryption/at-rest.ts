// Encryption at rest for one server: loads --encryption-provider-config, builds the storage
// transformer, serves the KMS health checks and, with --encryption-provider-config-automatic-reload,
// follows the file (upstream: a changed file takes effect without restart; an invalid one is refused,
// logged, and the last good configuration stays).
import { readFile } from 'node:fs/promises';
import { unwatchFile, watchFile } from 'node:fs';
import { createHash } from 'node:crypto';
import { ConfigLoadError, formatLoadProblem, loadServerConfigs } from '../../config/load.js';
import { CompiledEncryption, EncryptionTransformer } from './transformer.js';

export interface EncryptionFlags {
  encryptionProviderConfig?: string;
  encryptionProviderConfigAutomaticReload?: boolean;
}

export interface HealthAnswer {
  ok: boolean;
  body: string;
}

/** How often the file is checked for changes with automatic reload (upstream polls every minute; a stat is cheap). */
const RELOAD_POLL_MS = 1000;

export class EncryptionAtRest {
  private hash = '';
  private reloading = Promise.resolve();
  private readonly onFileChange = () => void this.reload();

  private constructor(
    readonly file: string,
    readonly transformer: EncryptionTransformer,
    private readonly autoReload: boolean,
    private readonly log: (line: string) => void,
  ) {}

  static async start(flags: EncryptionFlags, log: (line: string) => void): Promise<EncryptionAtRest | undefined> {
    const file = flags.encryptionProviderConfig;
    // upstream's flag validation
    if (!file && flags.encryptionProviderConfigAutomaticReload) throw new Error('--encryption-provider-config-automatic-reload must be set with --encryption-provider-config');
    if (!file) return undefined;
    const text = await readFile(file, 'utf8');
    const compiled = await compile(file);
    const self = new EncryptionAtRest(file, new EncryptionTransformer(compiled), flags.encryptionProviderConfigAutomaticReload === true, log);
    self.hash = digest(text);
    self.transformer.start();
    if (self.autoReload) watchFile(file, { interval: RELOAD_POLL_MS, persistent: false }, self.onFileChange);
    return self;
  }

  /** Re-reads the file; a valid changed configuration replaces the current one. Resolves when done. */
  reload(): Promise<void> {
    this.reloading = this.reloading.then(() => this.reloadNow());
    return this.reloading;
  }

  private async reloadNow(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      this.log(`encryption config reload: ${(e as Error).message}; keeping the current configuration`);
      return;
    }
    const hash = digest(text);
    if (hash === this.hash) return;
    let next: CompiledEncryption;
    try {
      next = await compile(this.file);
    } catch (e) {
      this.log(`encryption config reload refused, keeping the last good configuration: ${(e as Error).message}`);
      return;
    }
    try {
      await next.checkKms(); // upstream: new KMS plugins must be healthy before the new config is used
    } catch (e) {
      next.close();
      this.log(`encryption config reload refused, keeping the last good configuration: ${(e as Error).message}`);
      return;
    }
    this.hash = hash;
    this.transformer.swap(next);
    this.log(`encryption config reloaded from ${this.file}`);
  }

  /**
   * Upstream's KMS checks: with automatic reload one check `kms-providers` covering every plugin,
   * otherwise `kms-provider-<i>` per plugin. Part of /healthz, /livez and /readyz.
   */
  checks(): Map<string, () => Promise<void>> {
    const out = new Map<string, () => Promise<void>>();
    const kms = this.transformer.compiled.kms;
    if (kms.length === 0) return out;
    if (this.autoReload) out.set('kms-providers', async () => void (await Promise.all(this.transformer.compiled.kms.map((k) => k.check()))));
    else kms.forEach((k, i) => out.set(`kms-provider-${i}`, () => k.check()));
    return out;
  }

  /** Answers a health path when it concerns the KMS checks: a named check, or an aggregate that fails. */
  async health(path: string): Promise<HealthAnswer | undefined> {
    const m = /^\/(healthz|livez|readyz)(?:\/(.*))?$/.exec(path);
    if (!m) return undefined;
    const checks = this.checks();
    if (m[2] !== undefined && m[2] !== '') {
      const check = checks.get(m[2]);
      if (!check) return undefined;
      try {
        await check();
        return { ok: true, body: 'ok' };
      } catch (e) {
        return { ok: false, body: `internal server error: ${(e as Error).message}` };
      }
    }
    const failed: string[] = [];
    for (const [name, check] of checks) await check().catch(() => failed.push(name));
    if (failed.length === 0) return undefined;
    return { ok: false, body: `${failed.map((n) => `[-]${n} failed: reason withheld`).join('\n')}\n${m[1]} check failed` };
  }

  close(): void {
    if (this.autoReload) unwatchFile(this.file, this.onFileChange);
    this.transformer.close();
  }
}

async function compile(file: string): Promise<CompiledEncryption> {
  let loaded;
  try {
    loaded = await loadServerConfigs({ encryptionProviderConfig: file });
  } catch (e) {
    if (e instanceof ConfigLoadError) throw new Error(e.problems.filter((p) => p.severity === 'error').map(formatLoadProblem).join('; '));
    throw e;
  }
  if (!loaded.encryption) throw new Error(`${file}: no EncryptionConfiguration`);
  return new CompiledEncryption(loaded.encryption);
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
