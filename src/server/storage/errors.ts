// StoreError constructors shared by the backends (messages follow etcd's wording).
import { StoreError } from './types.js';

export function compactedError(compacted: number): StoreError {
  return new StoreError('Compacted', 'mvcc: required revision has been compacted', compacted);
}

export function futureRevisionError(current: number): StoreError {
  return new StoreError('FutureRevision', 'mvcc: required revision is a future revision', current);
}

export function keyExistsError(key: string): StoreError {
  return new StoreError('KeyExists', `key already exists: ${key}`, undefined, key);
}

export function keyNotFoundError(key: string): StoreError {
  return new StoreError('KeyNotFound', `key not found: ${key}`, undefined, key);
}

export function conflictError(key: string, expected: number, actual: number): StoreError {
  return new StoreError(
    'Conflict',
    `revision mismatch for ${key}: expected ${expected}, found ${actual}`,
    actual,
    key,
  );
}

export function unavailableError(message: string): StoreError {
  return new StoreError('Unavailable', message);
}

export function checkKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) {
    throw new TypeError('store key must be a non-empty string');
  }
}

/** Normalises a read revision: undefined or 0 means current. */
export function checkReadRevision(revision: number | undefined, current: number, compacted: number): number {
  if (revision === undefined || revision === 0) return current;
  if (!Number.isSafeInteger(revision) || revision < 0) {
    throw new RangeError(`invalid revision ${revision}`);
  }
  if (revision > current) throw futureRevisionError(current);
  if (revision < compacted) throw compactedError(compacted);
  return revision;
}
