// Benchmark child for cold starts: the API server on a SQLite store in the given directory, on the
// given port (so the parent can poll /readyz from the first moment). Prints `URL <url>` once started.
import { startServer } from '../src/server/app.js';

const [dataDir, port] = [process.argv[2]!, Number(process.argv[3])];
const server = await startServer({ port, store: 'sqlite', dataDir, demoData: false, requestLog: false, staticDir: '', compactionIntervalMs: 0 });
process.stdout.write(`URL ${server.url}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
