import { useQuery } from '@tanstack/react-query';

interface VersionInfo {
  gitVersion: string;
}
interface APIGroupList {
  groups: { name: string; preferredVersion: { groupVersion: string } }[];
}

async function getJson<T>(path: string): Promise<T> {
  const r = await fetch(path, { headers: { Accept: 'application/json' } });
  if (!r.ok) throw new Error(`${path}: ${r.status}`);
  return (await r.json()) as T;
}

export function App() {
  const version = useQuery({ queryKey: ['version'], queryFn: () => getJson<VersionInfo>('/version') });
  const groups = useQuery({ queryKey: ['apis'], queryFn: () => getJson<APIGroupList>('/apis') });
  return (
    <div className="app">
      <header className="topbar">
        <h1>Periscope</h1>
        <span className="muted" data-testid="server-version">
          {version.data ? `server ${version.data.gitVersion}` : version.isError ? 'server unreachable' : 'connecting…'}
        </span>
      </header>
      <main>
        <h2>API groups</h2>
        <ul data-testid="group-list">
          <li>core (v1)</li>
          {groups.data?.groups.map((g) => (
            <li key={g.name}>{g.preferredVersion.groupVersion}</li>
          ))}
        </ul>
      </main>
    </div>
  );
}
