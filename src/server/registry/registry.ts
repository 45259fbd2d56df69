// The set of served resource types, looked up by URL spelling (canonical group or its upstream alias).
import { canonicalGroup } from './names.js';
import type { ResourceType } from './types.js';

export interface GroupVersionEntry {
  group: string;
  version: string;
  types: ResourceType[];
}

type Listener = () => void;

export class TypeRegistry {
  /** key: `${group}/${version}/${plural}` with canonical group */
  private byPath = new Map<string, ResourceType>();
  private listeners = new Set<Listener>();
  private generation = 0;

  constructor(types: ResourceType[] = []) {
    for (const t of types) this.byPath.set(pathKey(t.group, t.version, t.plural), t);
  }

  /** Changes whenever types are added or removed (cache key for discovery and OpenAPI). */
  get version(): number {
    return this.generation;
  }

  onChange(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Replaces every type whose group+plural match (all versions of a CRD) with `types`. */
  replaceGroupResource(group: string, plural: string, types: ResourceType[]): void {
    for (const [k, t] of this.byPath) if (t.group === group && t.plural === plural) this.byPath.delete(k);
    for (const t of types) this.byPath.set(pathKey(t.group, t.version, t.plural), t);
    this.changed();
  }

  /** Looks up by URL group (either spelling), version and plural. */
  lookup(urlGroup: string, version: string, plural: string): ResourceType | undefined {
    return this.byPath.get(pathKey(canonicalGroup(urlGroup), version, plural));
  }

  /** All versions of one group/resource. */
  versionsOf(group: string, plural: string): ResourceType[] {
    return [...this.byPath.values()].filter((t) => t.group === group && t.plural === plural);
  }

  all(): ResourceType[] {
    return [...this.byPath.values()];
  }

  /** Group → versions → types, sorted: core first, then built-in groups, then CRD groups by name. */
  groups(): Map<string, Map<string, ResourceType[]>> {
    const out = new Map<string, Map<string, ResourceType[]>>();
    const sorted = this.all().sort((a, b) => Number(a.custom) - Number(b.custom) || 0);
    for (const t of sorted) {
      if (!t.served) continue;
      let versions = out.get(t.group);
      if (!versions) out.set(t.group, (versions = new Map()));
      let list = versions.get(t.version);
      if (!list) versions.set(t.version, (list = []));
      list.push(t);
    }
    return out;
  }

  private changed(): void {
    this.generation++;
    for (const l of this.listeners) l();
  }
}

function pathKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}

/** Upstream version priority: GA > beta > alpha, higher numbers first, then other names alphabetically. */
export function compareVersions(a: string, b: string): number {
  const pa = parseKubeVersion(a);
  const pb = parseKubeVersion(b);
  if (pa && pb) {
    if (pa.stage !== pb.stage) return pb.stage - pa.stage;
    if (pa.major !== pb.major) return pb.major - pa.major;
    return pb.minor - pa.minor;
  }
  if (pa) return -1;
  if (pb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function parseKubeVersion(v: string): { major: number; stage: number; minor: number } | undefined {
  const m = v.match(/^v(\d+)(?:(alpha|beta)(\d+))?$/);
  if (!m) return undefined;
  return { major: Number(m[1]), stage: m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1, minor: Number(m[3] ?? 0) };
}
