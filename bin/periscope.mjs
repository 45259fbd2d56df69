#!/usr/bin/env node
// `npx periscope [flags]`: the compiled server (lib/) with the explorer built into the package (dist/),
// the same flags as `npm start` in a checkout.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const explorer = root + 'dist';
// the package's explorer unless the caller names another (a later --static-dir wins)
if (!argv.some((a) => a === '--static-dir' || a.startsWith('--static-dir=')) && existsSync(explorer + '/index.html')) process.argv.splice(2, 0, '--static-dir', explorer);
await import('../lib/server/main.js');
