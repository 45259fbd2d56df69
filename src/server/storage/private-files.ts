// The store's files hold every object, Secrets included: only the server's user may read them.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * Creates the data directory 0700 (or tightens one the server owns), and creates or tightens the
 * database file 0600 before SQLite opens it: SQLite gives its -wal and -shm files the database
 * file's permissions. A sticky shared directory (such as /tmp) is never changed.
 */
export function preparePrivateDataDir(dir: string, files: string[]): void {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const st = statSync(dir);
  const ownedByUs = process.getuid === undefined || st.uid === process.getuid();
  const sticky = (st.mode & 0o1000) !== 0;
  if (ownedByUs && !sticky && (st.mode & 0o077) !== 0) chmodSync(dir, DIR_MODE);
  const [main, ...companions] = files;
  if (main !== undefined) {
    if (!existsSync(main)) closeSync(openSync(main, 'a', FILE_MODE));
    else tighten(main);
  }
  for (const f of companions) if (existsSync(f)) tighten(f);
}

function tighten(file: string): void {
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, FILE_MODE);
}
