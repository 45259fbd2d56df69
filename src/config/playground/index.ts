// Playground evaluators of the config studio: what a configuration does with a token, a resource
// name or an access review, using the same model, CEL environments and helpers as validation.
export * from './jwt.js';
export * from './cel-eval.js';
export * from './authn.js';
export * from './encryption.js';
export * from './authz.js';
