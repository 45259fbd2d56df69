// The namespace picker: live list of namespaces (metadata only); free text when listing them is forbidden.
import type { KubeObject } from '../../client/index.js';
import { useCollection } from '../data/informers.js';

interface Props {
  value: string;
  onChange(ns: string): void;
  disabled?: boolean;
}

export function NamespacePicker({ value, onChange, disabled }: Props) {
  const nss = useCollection<KubeObject>({ group: '', version: 'v1', resource: 'namespaces', representation: 'metadata' });
  const names = nss.data?.items.map((o) => o.metadata?.name ?? '') ?? [];
  if (nss.isError)
    return (
      <input
        className="ns-input"
        data-testid="namespace-picker"
        aria-label="Namespace"
        placeholder="namespace (all)"
        defaultValue={value}
        disabled={disabled}
        onKeyDown={(e) => {
          if (e.key === 'Enter') onChange(e.currentTarget.value.trim());
        }}
      />
    );
  return (
    <select
      className="ns-select"
      data-testid="namespace-picker"
      aria-label="Namespace"
      value={value}
      disabled={disabled}
      title={disabled ? 'This resource type is not namespaced' : 'Namespace'}
      onChange={(e) => onChange(e.target.value)}
    >
      <option value="">All namespaces</option>
      {value && !names.includes(value) && <option value={value}>{value}</option>}
      {names.map((n) => (
        <option key={n} value={n}>
          {n}
        </option>
      ))}
    </select>
  );
}
