// The `periscope` package: an embedded control-plane API server for tests and tools.
export { startPeriscope, type Periscope, type PeriscopeOptions } from './server/embedded/start.js';
export { CertificateAuthority } from './server/embedded/certificates.js';
