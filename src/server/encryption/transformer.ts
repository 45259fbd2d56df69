// The EncryptionConfiguration as a storage ValueTransformer (k8s.io/apiserver/pkg/server/options/encryptionconfig):
// - a storage key /registry/<group|core>/<plural>/... names the resource; its providers come from the
//   entries naming it exactly, else `*.<group>`, else `*.*` (upstream's lookup order; entries naming
//   the same resource append their providers, so later entries only add providers tried on reads);
// - writes use the first provider; reads try each provider whose prefix matches, in order, and a value
//   read by any but the first is stale (a rewrite moves it to the first);
// - resources not configured use identity, which refuses encrypted data.
// The configuration can be swapped at run time (automatic reload).
import { canonicalGroup } from '../registry/names.js';
import { StoreError, type ValueTransformer } from '../storage/types.js';
import { parseGroupResource, type GroupResource } from '../../config/encryption-resources.js';
import { parseDuration } from '../../config/formats.js';
import type { EncryptionConfiguration, ProviderConfiguration } from '../../config/types.js';
import { kmsCodecs } from './kms-proto.js';
import { KmsV2Provider } from './kms-v2.js';
import { ENCRYPTED_PREFIX, aescbc, aesgcm, hasPrefix, identity, keyBytes, secretbox, type PrefixTransformer } from './providers.js';

const DEFAULT_KMS_TIMEOUT_MS = 3000;
const textEncoder = new TextEncoder();

interface Prefixed {
  t: PrefixTransformer;
  prefix: Uint8Array;
}

/** A built configuration: providers per configured name, KMS plugins to health-check. */
export class CompiledEncryption {
  private readonly byName = new Map<string, Prefixed[]>();
  private readonly cache = new Map<string, Prefixed[]>();
  readonly kms: KmsV2Provider[] = [];

  constructor(readonly config: EncryptionConfiguration) {
    for (const entry of config.resources ?? []) {
      const transformers = (entry.providers ?? []).flatMap((p) => this.providerTransformers(p));
      for (const name of entry.resources ?? []) {
        const gr = parseGroupResource(name);
        const key = grKey({ group: gr.group === '*' ? '*' : canonicalGroup(gr.group), resource: gr.resource });
        const list = this.byName.get(key) ?? [];
        list.push(...transformers);
        this.byName.set(key, list);
      }
    }
  }

  private providerTransformers(p: ProviderConfiguration): Prefixed[] {
    const out: PrefixTransformer[] = [];
    if (p.aescbc) for (const k of p.aescbc.keys) out.push(aescbc(k.name, keyBytes(k.secret)));
    else if (p.aesgcm) for (const k of p.aesgcm.keys) out.push(aesgcm(k.name, keyBytes(k.secret)));
    else if (p.secretbox) for (const k of p.secretbox.keys) out.push(secretbox(k.name, keyBytes(k.secret)));
    else if (p.identity) out.push(identity);
    else if (p.kms) {
      if ((p.kms.apiVersion ?? 'v1') !== 'v2') {
        throw new Error(`KMS provider ${p.kms.name}: KMSv1 is deprecated and not supported by this server; use apiVersion: v2`);
      }
      const timeoutMs = (p.kms.timeout && parseDuration(p.kms.timeout)) || DEFAULT_KMS_TIMEOUT_MS;
      const kms = new KmsV2Provider({ name: p.kms.name, endpoint: p.kms.endpoint, timeoutMs });
      this.kms.push(kms);
      out.push(kms);
    }
    return out.map((t) => ({ t, prefix: textEncoder.encode(t.prefix) }));
  }

  /** Providers for a storage key; empty when the resource is not configured. */
  providersFor(key: string): Prefixed[] {
    const gr = resourceOfKey(key);
    if (!gr) return [];
    const id = grKey(gr);
    let hit = this.cache.get(id);
    if (!hit) {
      hit = this.byName.get(id) ?? this.byName.get(grKey({ group: gr.group, resource: '*' })) ?? this.byName.get('*.*') ?? [];
      this.cache.set(id, hit);
    }
    return hit;
  }

  /** Checks every KMS plugin once (used before a reloaded configuration takes over). */
  async checkKms(): Promise<void> {
    await Promise.all(this.kms.map((k) => k.check()));
  }

  start(): void {
    for (const k of this.kms) k.start();
  }

  close(): void {
    for (const k of this.kms) k.close();
  }
}

function grKey(gr: GroupResource): string {
  return gr.group === '*' ? '*.*' : `${gr.resource}.${gr.group}`;
}

/** The group/resource of a storage key (/registry/<group|core>/<plural>/...). */
export function resourceOfKey(key: string): GroupResource | undefined {
  if (!key.startsWith('/registry/')) return undefined;
  const slash1 = key.indexOf('/', 10);
  const slash2 = slash1 < 0 ? -1 : key.indexOf('/', slash1 + 1);
  if (slash2 < 0) return undefined;
  const group = key.slice(10, slash1);
  return { group: group === 'core' ? '' : group, resource: key.slice(slash1 + 1, slash2) };
}

export interface AtRestInfo {
  /** Whether the stored bytes carry an encryption prefix. */
  encrypted: boolean;
  /** Provider kind (aescbc, aesgcm, secretbox, kms) or identity. */
  provider: string;
  /** The stored prefix, e.g. k8s:enc:aescbc:v1:key1: ('' for identity). */
  prefix: string;
  /** For KMS v2, the key id recorded with the object. */
  keyID?: string;
}

/** Describes stored bytes without decrypting them. */
export function describeStored(stored: Uint8Array): AtRestInfo {
  const head = new TextDecoder().decode(stored.subarray(0, 256));
  if (!head.startsWith(ENCRYPTED_PREFIX)) return { encrypted: false, provider: 'identity', prefix: '' };
  // k8s:enc:<provider>:<version>:<name>:
  const parts = head.slice(ENCRYPTED_PREFIX.length).split(':');
  const provider = parts[0] ?? '';
  const prefix = parts.length >= 4 ? `${ENCRYPTED_PREFIX}${parts.slice(0, 3).join(':')}:` : ENCRYPTED_PREFIX;
  if (provider === 'kms' && parts[1] === 'v2') {
    try {
      const obj = kmsCodecs.EncryptedObject.decode(stored.subarray(textEncoder.encode(prefix).length));
      return { encrypted: true, provider, prefix, keyID: obj.keyID };
    } catch {
      // not a readable EncryptedObject: report the prefix alone
    }
  }
  return { encrypted: true, provider, prefix };
}

export class EncryptionTransformer implements ValueTransformer {
  private readonly retired = new Set<CompiledEncryption>();
  constructor(private current: CompiledEncryption) {}

  get compiled(): CompiledEncryption {
    return this.current;
  }

  /** Swaps in a new configuration; the old one's plugins are closed once in-flight calls had time to end. */
  swap(next: CompiledEncryption): void {
    const old = this.current;
    this.current = next;
    next.start();
    this.retired.add(old);
    setTimeout(() => {
      this.retired.delete(old);
      old.close();
    }, 30_000).unref();
  }

  start(): void {
    this.current.start();
  }

  close(): void {
    this.current.close();
    for (const old of this.retired) old.close();
    this.retired.clear();
  }

  /** Whether values at this key are written encrypted, and how. */
  writeProvider(key: string): string {
    const first = this.current.providersFor(key)[0];
    return first ? first.t.prefix || 'identity' : 'identity';
  }

  async toStorage(key: string, plain: Uint8Array): Promise<Uint8Array> {
    const first = this.current.providersFor(key)[0];
    return first ? first.t.encrypt(key, plain) : plain;
  }

  async fromStorage(key: string, stored: Uint8Array): Promise<{ value: Uint8Array; stale: boolean }> {
    const providers = this.current.providersFor(key);
    if (providers.length === 0) return { value: (await identity.decrypt(key, stored)).value, stale: false };
    let identityError: Error | undefined;
    for (let i = 0; i < providers.length; i++) {
      const p = providers[i]!;
      if (!hasPrefix(stored, p.prefix)) continue;
      try {
        const r = await p.t.decrypt(key, stored.subarray(p.prefix.length));
        return { value: r.value, stale: i !== 0 || r.stale === true };
      } catch (e) {
        if (e instanceof StoreError) throw e; // e.g. a KMS plugin outage: not a decryption failure
        // upstream: an identity failure (encrypted data) lets later providers try; any other is final
        if (p.prefix.length === 0) {
          identityError = e as Error;
          continue;
        }
        throw new Error(`failed to decrypt with ${p.t.prefix}: ${(e as Error).message}`);
      }
    }
    throw identityError ?? new Error('no matching prefix found');
  }
}

