// The prefix a provider writes before its payload in storage (k8s.io/apiserver value/encrypt):
// `k8s:enc:<provider>:v1:<key name>:`, `k8s:enc:kms:v2:<plugin name>:` (v1 plugins: `kms:v1`),
// nothing for identity. Shared by the server's providers and the config studio's playground.

export const ENCRYPTED_PREFIX = 'k8s:enc:';

export type PrefixedProvider = 'aescbc' | 'aesgcm' | 'secretbox' | 'kms' | 'identity';

/** The stored prefix of one provider key (or KMS plugin); '' for identity. */
export function encryptionPrefix(type: PrefixedProvider, name: string, kmsApiVersion: 'v1' | 'v2' = 'v2'): string {
  if (type === 'identity') return '';
  if (type === 'kms') return `${ENCRYPTED_PREFIX}kms:${kmsApiVersion}:${name}:`;
  return `${ENCRYPTED_PREFIX}${type}:v1:${name}:`;
}
