// Benchmark ceilings: a page of the benchmark build only (bench/vite.bench.config.ts), never shipped in the
// explorer's build. /bench/static/index.html?n=10000&updates=500: the collection table rendering a static array of rows shaped like the
// live ones, with no network, parsing or informer.
// /bench/static/index.html?fetch=/api/v1/namespaces/x/configmaps: the same table over every row of that collection got
// the fastest way there is: one unpaged Table request, parsed by the browser, no informer.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { acceptFor, type TableRow } from '../../src/client/index.js';
import { VirtualTable } from '../../src/ui/components/VirtualTable.js';
import { objectOfRow, tableColumns, type Row } from '../../src/ui/lib/table-view.js';

const COLUMNS = [
  { name: 'Name', type: 'string', format: 'name', priority: 0 },
  { name: 'Data', type: 'integer', format: '', priority: 0 },
  { name: 'Age', type: 'string', format: '', priority: 0 },
];

function makeRows(n: number): TableRow[] {
  const width = String(n).length;
  const created = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  return Array.from({ length: n }, (_, i) => {
    const name = `cm-${String(i).padStart(width, '0')}`;
    return {
      cells: [name, 1, '1h'],
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.service.io/v1', metadata: { name, namespace: 'bench', creationTimestamp: created, resourceVersion: String(i + 2) } },
    };
  });
}

/** The ?fetch= parameter when it is an API path of this origin: a link must not make the page ask anything else. */
export function benchFetchPath(asked: string | null): string | null {
  return asked && /^\/apis?\/[a-z0-9]/.test(asked) && !asked.includes('//') && !asked.includes('\\') ? asked : null;
}

export function StaticBench({ query }: { query: URLSearchParams }) {
  const fetchPath = benchFetchPath(query.get('fetch'));
  const n = Number(query.get('n') ?? 10000);
  const rate = Number(query.get('updates') ?? 0);
  const [rows, setRows] = useState(() => (fetchPath ? [] : makeRows(n)));
  const [version, setVersion] = useState(0);
  const [selected, setSelected] = useState(0);
  const columns = useMemo(() => tableColumns(COLUMNS, { allNamespaces: false, wide: false }), []);

  useEffect(() => {
    if (fetchPath) {
      void fetch(fetchPath, { headers: { Accept: acceptFor('table', { list: true }) } })
        .then((r) => r.json() as Promise<{ rows?: TableRow[] }>)
        .then((t) => setRows(t.rows ?? []));
      return;
    }
    requestAnimationFrame(() => {
      performance.mark('periscope:first-rows');
      performance.mark('periscope:all-rows');
    });
  }, [fetchPath]);

  useEffect(() => {
    if (!fetchPath || !rows.length) return;
    requestAnimationFrame(() => {
      performance.mark('periscope:first-rows');
      performance.mark('periscope:all-rows');
    });
  }, [fetchPath, rows]);

  // the same in-place updates the live view receives, without the network: batched every 50 ms
  useEffect(() => {
    if (!rate) return;
    let i = 0;
    const t = setInterval(() => {
      for (let k = 0; k < rate / 20; k++) {
        const idx = (i++ * 7919) % rows.length;
        const r = rows[idx]!;
        rows[idx] = { ...r, cells: [r.cells[0], ((r.cells[1] as number) + 1) % 100, r.cells[2]] };
      }
      setVersion((v) => v + 1);
    }, 50);
    return () => clearInterval(t);
  }, [rate, rows]);

  const keyOf = useCallback((r: Row) => objectOfRow(r)?.metadata?.name ?? '', []);
  return (
    <div className="collection" data-testid="collection" data-resource="static">
      <div className="toolbar">
        <h2 className="title">Static ceiling · {n.toLocaleString()} rows</h2>
      </div>
      <VirtualTable rows={rows} placeholders={0} columns={columns} version={version} keyOf={keyOf} selected={selected} onSelect={setSelected} label="static rows" />
    </div>
  );
}
