// Browser-safe entry point of the configuration model (everything except load.ts, which uses node:fs).

export * from './types.js';
export * from './model.js';
export * from './problems.js';
export * from './validate.js';
export * from './defaults.js';
export * from './schema.js';
export * from './parse.js';
export * from './cel.js';
export * from './admission-plugins.js';
export * from './encryption-resources.js';
export { parseDuration, base64DecodedLength } from './formats.js';
export { ANONYMOUS_FLAG_CONFLICT } from './rules-authentication.js';
