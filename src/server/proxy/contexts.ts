// The contexts of a kubeconfig, for the explorer's context picker in proxy mode: names and where each
// points, never credentials.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { KubeconfigError } from './kubeconfig.js';

export interface ContextInfo {
  name: string;
  cluster?: string;
  user?: string;
  namespace?: string;
  /** The cluster's server URL. */
  server?: string;
}

type Dict = Record<string, unknown>;
const dict = (v: unknown): Dict => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Dict) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

export function kubeconfigContexts(path: string): ContextInfo[] {
  let doc: Dict;
  try {
    doc = dict(parse(readFileSync(path, 'utf8')));
  } catch (e) {
    throw new KubeconfigError(`cannot read kubeconfig ${path}: ${(e as Error).message}`);
  }
  const clusters = new Map((Array.isArray(doc.clusters) ? doc.clusters : []).map((c) => [str(dict(c).name), dict(dict(c).cluster)]));
  return (Array.isArray(doc.contexts) ? doc.contexts : [])
    .map((c) => {
      const ctx = dict(dict(c).context);
      const cluster = str(ctx.cluster);
      return { name: str(dict(c).name) ?? '', cluster, user: str(ctx.user), namespace: str(ctx.namespace), server: cluster ? str(clusters.get(cluster)?.server) : undefined };
    })
    .filter((c) => c.name);
}
