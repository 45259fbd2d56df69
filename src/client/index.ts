// The Periscope API client: framework-free, for browsers and Node.
export * from './types.js';
export * from './errors.js';
export * from './warnings.js';
export * from './paths.js';
export * from './media.js';
export * from './http.js';
export * from './discovery.js';
export * from './pager.js';
export * from './stream-decoders.js';
export * from './watch.js';
export * from './table.js';
export * from './backoff.js';
export * from './informer.js';
export * from './metrics.js';
