// Where our keys live in etcd. Store keys start with a root (the API server's is /registry);
// in etcd that root is replaced by the configured prefix, so with the default prefix
// /registry the layout is upstream's (/registry/<group>/<resource>/...) and with
// --etcd-prefix /team-a our /registry/core/pods/ns/p is stored as /team-a/core/pods/ns/p.
import { checkKey } from './errors.js';
import { keyBytes, prefixRangeEnd } from './etcd-rpc.js';

export interface KeyRange {
  key: Buffer;
  rangeEnd: Buffer;
}

export class EtcdKeyMapping {
  readonly prefixBytes: Buffer;
  private readonly prefixLength: number;

  constructor(
    /** Our key root that the prefix stands in for ('' = prepend the prefix to every key). */
    readonly root: string,
    /** etcd prefix, without a trailing slash. */
    readonly prefix: string,
  ) {
    this.prefixBytes = keyBytes(prefix);
    this.prefixLength = this.prefixBytes.length;
  }

  toEtcd(key: string): Buffer {
    checkKey(key);
    if (!key.startsWith(this.root)) throw new TypeError(`etcd store: key ${key} is outside ${this.root}`);
    return keyBytes(this.prefix + key.slice(this.root.length));
  }

  /** Our key for an etcd key, or undefined when it lies outside the prefix. */
  fromEtcd(key: Buffer): string | undefined {
    if (key.length < this.prefixLength || key.compare(this.prefixBytes, 0, this.prefixLength, 0, this.prefixLength) !== 0) return undefined;
    return this.root + key.toString('utf8', this.prefixLength);
  }

  /**
   * The etcd range holding our keys that start with prefix and sort at or after startKey;
   * undefined when no key of ours can start with prefix.
   */
  range(prefix: string, startKey?: string): KeyRange | undefined {
    let etcdPrefix: Buffer;
    if (prefix.startsWith(this.root)) etcdPrefix = keyBytes(this.prefix + prefix.slice(this.root.length));
    else if (this.root.startsWith(prefix)) etcdPrefix = this.prefixBytes; // every key of ours
    else return undefined;
    const rangeEnd = prefixRangeEnd(etcdPrefix);
    let key = etcdPrefix.length > 0 ? etcdPrefix : Buffer.from([0]);
    if (startKey !== undefined && startKey.startsWith(this.root)) {
      const start = keyBytes(this.prefix + startKey.slice(this.root.length));
      if (Buffer.compare(start, key) > 0) key = start;
    }
    return { key, rangeEnd };
  }
}
