// Problems found in a configuration document, worded like upstream's field errors
// ("Required value", "Invalid value: ...", "Duplicate value: ...") so messages read the same
// as kube-apiserver's while the path stays precise enough for the studio to jump to a field.

export type ConfigProblemSeverity = 'error' | 'warning';

export interface ConfigProblem {
  /** Field path such as `jwt[1].claimMappings.username.prefix`; empty for the whole document. */
  path: string;
  message: string;
  severity: ConfigProblemSeverity;
}

export function child(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}

/** Renders a value the way the message shows it: strings quoted, scalars verbatim. */
export function formatValue(value: unknown): string | undefined {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return 'null';
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return JSON.stringify(value);
  return undefined;
}

const error = (path: string, message: string): ConfigProblem => ({ path, message, severity: 'error' });

export function required(path: string, detail?: string): ConfigProblem {
  return error(path, detail ? `Required value: ${detail}` : 'Required value');
}

/** `Invalid value: <value>: <detail>`; the value is left out when it is not a scalar or is `undefined`. */
export function invalid(path: string, value: unknown, detail: string): ConfigProblem {
  const shown = value === undefined ? undefined : formatValue(value);
  return error(path, shown === undefined ? `Invalid value: ${detail}` : `Invalid value: ${shown}: ${detail}`);
}

export function duplicate(path: string, value: unknown): ConfigProblem {
  const shown = formatValue(value);
  return error(path, shown === undefined ? 'Duplicate value' : `Duplicate value: ${shown}`);
}

export function notSupported(path: string, value: unknown, supported: readonly string[]): ConfigProblem {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  return error(path, `Unsupported value: ${formatValue(value) ?? String(value)}: supported values: ${list}`);
}

export function tooMany(path: string, actual: number, max: number): ConfigProblem {
  return error(path, `Too many: ${actual}: must have at most ${max} items`);
}

export function forbidden(path: string, detail: string): ConfigProblem {
  return error(path, `Forbidden: ${detail}`);
}

export function warning(path: string, message: string): ConfigProblem {
  return { path, message, severity: 'warning' };
}

export function hasErrors(problems: readonly ConfigProblem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}
