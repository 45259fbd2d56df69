// Cold-start ceiling: open the store's database and read every current row's bytes, nothing else.
import Database from 'better-sqlite3';
import { join } from 'node:path';

const db = new Database(join(process.argv[2]!, 'periscope.db'), { readonly: true });
let bytes = 0;
for (const row of db.prepare('SELECT l.value AS value FROM current c JOIN log l ON l.revision = c.revision').iterate() as Iterable<{ value: Buffer }>) bytes += row.value.length;
db.close();
if (bytes === 0) process.exitCode = 1;
