// Child process for the kill -9 durability test: writes to a SqliteStore in
// concurrent bursts and prints each acknowledged write as "ack <key> <revision>".
// It never stops on its own; the test kills it.
import { SqliteStore } from '../../src/server/storage/sqlite.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: burst-writer.ts <dataDir>');

const store = new SqliteStore(dir);
await store.open();
const enc = new TextEncoder();
let counter = await store.create('/burst/counter', enc.encode('0'));
process.stdout.write(`ack ${counter.key} ${counter.modRevision}\n`);

for (let round = 0; ; round++) {
  const writes: Promise<void>[] = [];
  for (let j = 0; j < 20; j++) {
    const key = `/burst/k${String(round * 20 + j).padStart(8, '0')}`;
    writes.push(
      store.create(key, enc.encode(key)).then((kv) => {
        process.stdout.write(`ack ${kv.key} ${kv.modRevision}\n`);
      }),
    );
  }
  writes.push(
    store.update('/burst/counter', enc.encode(String(round + 1)), counter.modRevision).then((kv) => {
      counter = kv;
      process.stdout.write(`ack ${kv.key} ${kv.modRevision}\n`);
    }),
  );
  await Promise.all(writes);
}
