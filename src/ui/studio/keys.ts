// Encryption keys for the studio: random bytes of the size each provider takes, base64 encoded.
import { PROVIDER_KEY_SIZES } from '../../config/index.js';
import type { Path } from './paths.js';

export type KeyedProvider = keyof typeof PROVIDER_KEY_SIZES;

export function randomKeyBase64(bytes: number): string {
  const buf = new Uint8Array(bytes);
  crypto.getRandomValues(buf);
  let bin = '';
  for (const b of buf) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** The provider a key path belongs to: `resources[0].providers[1].aesgcm.keys[0]` → aesgcm. */
export function providerOfKeyPath(path: Path): KeyedProvider | undefined {
  const i = path.lastIndexOf('keys');
  const p = i > 0 ? path[i - 1] : undefined;
  return p === 'aescbc' || p === 'aesgcm' || p === 'secretbox' ? p : undefined;
}

/** Accepted sizes in bytes, the preferred (largest) last. */
export function keySizes(provider: KeyedProvider | undefined): readonly number[] {
  return provider ? PROVIDER_KEY_SIZES[provider] : [32];
}

export function newKey(provider: KeyedProvider | undefined, name: string, bytes?: number): { name: string; secret: string } {
  const sizes = keySizes(provider);
  return { name, secret: randomKeyBase64(bytes ?? sizes[sizes.length - 1]!) };
}
