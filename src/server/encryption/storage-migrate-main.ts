// CLI of the storage migration: npm run storage-migrate -- --resources secrets[,deployments.apps] [--server URL]
import { migrateStorage } from './storage-migrate.js';

async function main(argv: string[]): Promise<number> {
  let server = 'http://127.0.0.1:8080';
  const resources: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split('=', 2) as [string, string | undefined];
    const value = () => inline ?? argv[++i] ?? '';
    if (flag === '--server') server = value();
    else if (flag === '--resources') resources.push(...value().split(',').filter(Boolean));
    else {
      process.stderr.write(`unknown argument ${argv[i]}\nusage: storage-migrate --resources secrets[,deployments.apps] [--server URL]\n`);
      return 2;
    }
  }
  if (resources.length === 0) {
    process.stderr.write('usage: storage-migrate --resources secrets[,deployments.apps] [--server URL]\n');
    return 2;
  }
  const results = await migrateStorage({ server: server.replace(/\/$/, ''), resources, log: (l) => process.stdout.write(`${l}\n`) });
  let failed = 0;
  for (const r of results) for (const f of r.failed) (failed++, process.stderr.write(`${r.resource} ${f.name}: ${f.message}\n`));
  return failed > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`storage-migrate: ${(e as Error).message}\n`);
    process.exit(1);
  },
);
