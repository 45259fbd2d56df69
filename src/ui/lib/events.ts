// Events as a person reads them: newest first, in either API's shape (core v1 involvedObject/count/
// lastTimestamp; events.k8s.io regarding/series/eventTime), one row per event with its series count.
import type { KubeObject } from '../../client/index.js';

type Obj = Record<string, any>;

export interface EventRow {
  uid: string;
  namespace?: string;
  type: string;
  reason: string;
  message: string;
  /** How many times it happened (series count, or the deprecated count). */
  count: number;
  /** When it last happened (ms since the epoch; 0 when unknown). */
  last: number;
  lastText?: string;
  object?: { kind?: string; name?: string; namespace?: string; apiVersion?: string };
  source?: string;
}

export function eventRow(e: KubeObject): EventRow {
  const o = e as Obj;
  const lastText: string | undefined = o.series?.lastObservedTime ?? o.lastTimestamp ?? o.eventTime ?? o.deprecatedLastTimestamp ?? e.metadata?.creationTimestamp;
  return {
    uid: e.metadata?.uid ?? `${e.metadata?.namespace}/${e.metadata?.name}`,
    namespace: e.metadata?.namespace,
    type: o.type ?? 'Normal',
    reason: o.reason ?? '',
    message: o.message ?? o.note ?? '',
    count: o.series?.count ?? o.count ?? o.deprecatedCount ?? 1,
    last: (lastText && Date.parse(lastText)) || 0,
    lastText,
    object: o.involvedObject ?? o.regarding,
    source: o.source?.component ?? o.reportingController ?? o.reportingComponent,
  };
}

/** Newest first; type and reason filters ('' = any). */
export function eventRows(events: readonly KubeObject[], filter: { type?: string; reason?: string } = {}): EventRow[] {
  return events
    .map(eventRow)
    .filter((r) => (!filter.type || r.type === filter.type) && (!filter.reason || r.reason === filter.reason))
    .sort((a, b) => b.last - a.last || a.uid.localeCompare(b.uid));
}
