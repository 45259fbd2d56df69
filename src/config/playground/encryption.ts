// Which providers of an EncryptionConfiguration protect a resource, resolved as the server does:
// an exact entry (`secrets`, `deployments.apps`) first, then the group wildcard (`*.apps`, `*.` for
// core), then `*.*`; otherwise the resource is stored as is. The first provider of the first entry
// listing the winning name writes; reads try every provider of every entry listing that same name,
// in order. Also lists the entries that overlap, are masked, or only add read fallbacks.

import { ANY_GROUP_ANY_RESOURCE, groupResourceCovers, groupResourceString, parseGroupResource, sameGroupResource, type GroupResource } from '../encryption-resources.js';
import { encryptionPrefix } from '../encryption-prefix.js';
import { child, index } from '../problems.js';
import { asList, asObject, asString } from '../structural.js';
import type { ProviderName } from '../types.js';

const PROVIDER_NAMES: readonly ProviderName[] = ['aesgcm', 'aescbc', 'secretbox', 'identity', 'kms'];

export interface ProviderStep {
  /** Entry in `resources` and provider position inside it. */
  entry: number;
  provider: number;
  path: string;
  type: ProviderName | 'unknown';
  /** Key names (AES, secretbox) or the KMS plugin name. */
  keys: string[];
  description: string;
  /** The exact stored prefix per key (KMS: per plugin), in key order; [''] for identity (stored as is). */
  prefixes: string[];
}

export interface EncryptionExplanation {
  input: string;
  resource: GroupResource;
  /** Canonical spelling (`secrets`, `deployments.apps`). */
  display: string;
  /** Why the input cannot be a resource name, when it cannot. */
  invalid?: string;
  /** The configured name that applies and the entries listing it, in order. */
  match?: { via: 'exact' | 'group' | 'all'; pattern: string; entries: number[] };
  write?: ProviderStep;
  reads: ProviderStep[];
  /** True when new writes are encrypted (the writing provider is not identity). */
  encrypted: boolean;
  notes: string[];
}

function describe(type: ProviderName | 'unknown', keys: string[]): string {
  switch (type) {
    case 'identity':
      return 'identity (stored unencrypted)';
    case 'kms':
      return `kms plugin ${keys[0] ?? '(unnamed)'}`;
    case 'unknown':
      return 'unknown provider';
    default:
      return `${type} with key ${keys.length > 0 ? keys.map((k) => JSON.stringify(k)).join(', ') : '(none)'}`;
  }
}

function providerSteps(config: unknown, entry: number): ProviderStep[] {
  const e = asObject(asList(asObject(config)?.resources)[entry]);
  return asList(e?.providers).map((item, j) => {
    const p = asObject(item) ?? {};
    const type = PROVIDER_NAMES.find((n) => p[n] !== undefined && p[n] !== null) ?? 'unknown';
    const cfg = asObject(p[type]) ?? {};
    const keys =
      type === 'kms'
        ? [asString(cfg.name) ?? '']
        : asList(cfg.keys)
            .map((k) => asString(asObject(k)?.name))
            .filter((n): n is string => !!n);
    const prefixes =
      type === 'unknown' ? [] : type === 'identity' ? [''] : keys.map((k) => encryptionPrefix(type, k, asString(cfg.apiVersion) === 'v2' ? 'v2' : 'v1'));
    // For the writer only the first key matters; reads try them all.
    return { entry, provider: j, path: index(child(index('resources', entry), 'providers'), j), type, keys, description: describe(type, keys), prefixes };
  });
}

/** Every valid-looking name in each entry, in order. */
function entryNames(config: unknown): GroupResource[][] {
  return asList(asObject(config)?.resources).map((item) =>
    asList(asObject(item)?.resources)
      .filter((r): r is string => typeof r === 'string' && r !== '')
      .map(parseGroupResource),
  );
}

function invalidName(text: string): string | undefined {
  if (text === '') return 'type a resource such as secrets, deployments.apps or crontabs.stable.example.com';
  if (text !== text.toLowerCase()) return 'resource names are lowercase (the plural, such as secrets)';
  if (/\s/.test(text)) return 'resource names contain no spaces';
  const gr = parseGroupResource(text);
  if (gr.resource === '*' || gr.group === '*') return 'type a concrete resource, not a wildcard';
  if (gr.resource === '') return 'the resource name is missing before the group';
  return undefined;
}

/** Explains which providers write and read one resource (`secrets`, `deployments.apps`, `crontabs.stable.example.com`). */
export function explainEncryption(config: unknown, resourceText: string): EncryptionExplanation {
  const input = resourceText.trim();
  const resource = parseGroupResource(input);
  const display = groupResourceString(resource);
  const base: EncryptionExplanation = { input, resource, display, reads: [], encrypted: false, notes: [] };
  const bad = invalidName(input);
  if (bad) return { ...base, invalid: bad };

  const names = entryNames(config);
  const candidates: Array<{ via: 'exact' | 'group' | 'all'; gr: GroupResource }> = [
    { via: 'exact', gr: resource },
    { via: 'group', gr: { group: resource.group, resource: '*' } },
    { via: 'all', gr: ANY_GROUP_ANY_RESOURCE },
  ];
  for (const c of candidates) {
    const entries = names.flatMap((list, i) => (list.some((n) => sameGroupResource(n, c.gr)) ? [i] : []));
    if (entries.length === 0) continue;
    const reads = entries.flatMap((i) => providerSteps(config, i));
    const write = reads[0];
    const notes: string[] = [];
    const pattern = groupResourceString(c.gr);
    if (c.via !== 'exact') notes.push(`no entry names ${display} itself; the wildcard ${pattern} covers it`);
    if (entries.length > 1) notes.push(`${pattern} is listed in ${entries.length} entries: the first one writes, the others only add providers tried on reads`);
    if (write?.type === 'identity') {
      notes.push(reads.length > 1 ? 'new writes are stored unencrypted; the other providers still decrypt existing data (decryption during a rollback or migration)' : 'stored unencrypted');
    } else if (write && reads.some((r) => r.type === 'identity')) {
      notes.push('identity is listed for reads, so data written before encryption was turned on stays readable');
    }
    if (write && write.type !== 'identity' && write.type !== 'kms' && write.keys.length > 1) {
      notes.push(`key ${JSON.stringify(write.keys[0])} encrypts; ${write.keys.slice(1).map((k) => JSON.stringify(k)).join(', ')} only decrypt (key rotation)`);
    }
    return { ...base, match: { via: c.via, pattern, entries }, write, reads, encrypted: !!write && write.type !== 'identity', notes };
  }
  return { ...base, notes: ['no entry covers this resource: it is stored unencrypted (identity)'] };
}

export type EncryptionFlagKind = 'duplicate' | 'overlap' | 'masked' | 'reads-only' | 'narrowed' | 'ineffective';

export interface EncryptionFlag {
  path: string;
  kind: EncryptionFlagKind;
  severity: 'error' | 'warning' | 'info';
  message: string;
}

/**
 * Entries and names that do not do what they seem to: duplicates and overlapping wildcards in one
 * list, names masked by an earlier wildcard, names listed again later (read fallbacks only),
 * wildcards whose reach earlier entries narrow, and entries none of whose names take effect.
 */
export function encryptionFlags(config: unknown): EncryptionFlag[] {
  const out: EncryptionFlag[] = [];
  const names = entryNames(config);
  const firstListed = new Map<string, number>();
  names.forEach((list, i) => {
    const listPath = child(index('resources', i), 'resources');
    list.forEach((gr, j) => {
      list.forEach((other, k) => {
        if (k >= j) return;
        if (sameGroupResource(gr, other)) out.push({ path: index(listPath, j), kind: 'duplicate', severity: 'error', message: `${groupResourceString(gr)} is listed twice in this entry` });
        else if (groupResourceCovers(other, gr) || groupResourceCovers(gr, other)) {
          out.push({
            path: index(listPath, j),
            kind: 'overlap',
            severity: 'error',
            message: `${groupResourceString(gr)} overlaps ${groupResourceString(other)} in the same list, so one of them is ineffective`,
          });
        }
      });
    });
    let effective = 0;
    list.forEach((gr, j) => {
      const p = index(listPath, j);
      const shown = groupResourceString(gr);
      const masker = [{ group: gr.group, resource: '*' }, ANY_GROUP_ANY_RESOURCE].find((m) => !sameGroupResource(m, gr) && firstListed.has(groupResourceString(m)));
      if (masker) {
        const m = groupResourceString(masker);
        out.push({ path: p, kind: 'masked', severity: 'error', message: `${shown} is masked by ${m} in resources[${firstListed.get(m)}], which comes first` });
        return;
      }
      const earlier = firstListed.get(shown);
      if (earlier !== undefined && earlier !== i) {
        out.push({ path: p, kind: 'reads-only', severity: 'warning', message: `${shown} is first listed in resources[${earlier}], which writes it; this entry only adds providers tried on reads` });
        effective++;
        return;
      }
      effective++;
      if (gr.resource === '*') {
        const taken = [...firstListed.keys()].map(parseGroupResource).filter((n) => n.resource !== '*' && groupResourceCovers(gr, n));
        if (taken.length > 0) {
          out.push({
            path: p,
            kind: 'narrowed',
            severity: 'info',
            message: `${shown} does not apply to ${taken.map(groupResourceString).join(', ')}, which earlier entries configure`,
          });
        }
      }
    });
    if (list.length > 0 && effective === 0) {
      out.push({ path: index('resources', i), kind: 'ineffective', severity: 'warning', message: `no resource of resources[${i}] takes effect: every name is masked by an earlier entry` });
    }
    for (const gr of list) {
      const key = groupResourceString(gr);
      if (!firstListed.has(key)) firstListed.set(key, i);
    }
  });
  return out;
}
