// Server-side loading of the configuration files named by flags: read, parse, check the kind
// matches the flag, validate, default. Any error in any file stops the start with every problem
// listed. The only module of src/config that touches the file system.

import { readFile, stat } from 'node:fs/promises';
import { applyConfigDefaults } from './defaults.js';
import type { ConfigKind } from './model.js';
import { parseConfigText } from './parse.js';
import { child, index, invalid, type ConfigProblem } from './problems.js';
import { asList, asObject, asString } from './structural.js';
import type {
  AdmissionConfiguration,
  AuthenticationConfiguration,
  AuthorizationConfiguration,
  EncryptionConfiguration,
  TracingConfiguration,
} from './types.js';
import { KIND_VALIDATORS } from './validate.js';

export interface ServerConfigFlags {
  admissionControlConfigFile?: string;
  authenticationConfig?: string;
  authorizationConfig?: string;
  encryptionProviderConfig?: string;
  tracingConfigFile?: string;
  /** The --anonymous-auth flag was given explicitly. */
  anonymousAuthFlagSet?: boolean;
}

export interface LoadProblem extends ConfigProblem {
  /** The flag naming the file, such as `--authentication-config`. */
  flag: string;
  file: string;
}

export interface LoadedConfigFile {
  flag: string;
  file: string;
  kind: ConfigKind;
}

export interface LoadedServerConfigs {
  admission?: AdmissionConfiguration;
  authentication?: AuthenticationConfiguration;
  authorization?: AuthorizationConfiguration;
  encryption?: EncryptionConfiguration;
  tracing?: TracingConfiguration;
  /** Files loaded, in flag order. */
  files: LoadedConfigFile[];
  /** Problems that did not stop loading. */
  warnings: LoadProblem[];
}

export function formatLoadProblem(p: LoadProblem): string {
  return `${p.flag}=${p.file}: ${p.path === '' ? '' : `${p.path}: `}${p.message}`;
}

export class ConfigLoadError extends Error {
  readonly problems: LoadProblem[];
  constructor(problems: LoadProblem[]) {
    const errors = problems.filter((p) => p.severity === 'error');
    super(`invalid configuration (${errors.length} ${errors.length === 1 ? 'error' : 'errors'}):\n${errors.map((p) => `  ${formatLoadProblem(p)}`).join('\n')}`);
    this.name = 'ConfigLoadError';
    this.problems = problems;
  }
}

type Slot = 'admission' | 'authentication' | 'authorization' | 'encryption' | 'tracing';

const SOURCES: ReadonlyArray<{ key: keyof ServerConfigFlags; flag: string; kind: ConfigKind; slot: Slot }> = [
  { key: 'admissionControlConfigFile', flag: '--admission-control-config-file', kind: 'AdmissionConfiguration', slot: 'admission' },
  { key: 'authenticationConfig', flag: '--authentication-config', kind: 'AuthenticationConfiguration', slot: 'authentication' },
  { key: 'authorizationConfig', flag: '--authorization-config', kind: 'AuthorizationConfiguration', slot: 'authorization' },
  { key: 'encryptionProviderConfig', flag: '--encryption-provider-config', kind: 'EncryptionConfiguration', slot: 'encryption' },
  { key: 'tracingConfigFile', flag: '--tracing-config-file', kind: 'TracingConfiguration', slot: 'tracing' },
];

/** Connection files of webhook authorizers must exist and be regular files (checked here, not in the browser). */
async function connectionFileProblems(doc: Record<string, unknown>): Promise<ConfigProblem[]> {
  const out: ConfigProblem[] = [];
  const authorizers = asList(doc.authorizers);
  for (let i = 0; i < authorizers.length; i++) {
    const conn = asObject(asObject(asObject(authorizers[i])?.webhook)?.connectionInfo);
    if (!conn) continue;
    for (const field of ['serviceConfigFile', 'kubeConfigFile']) {
      const file = asString(conn[field]);
      if (!file || !file.startsWith('/')) continue;
      const path = child(index('authorizers', i), `webhook.connectionInfo.${field}`);
      try {
        const st = await stat(file);
        if (!st.isFile()) out.push(invalid(path, file, 'must be a regular file'));
      } catch (e) {
        out.push(invalid(path, file, `error loading file: ${(e as Error).message}`));
      }
    }
  }
  return out;
}

async function loadOne(file: string, kind: ConfigKind, flags: ServerConfigFlags): Promise<{ doc?: unknown; problems: ConfigProblem[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    return { problems: [{ path: '', message: `error reading file: ${(e as Error).message}`, severity: 'error' }] };
  }
  const parsed = parseConfigText(text);
  if (parsed.doc === undefined || parsed.problems.some((p) => p.severity === 'error')) return { problems: parsed.problems };
  const doc = asObject(parsed.doc);
  if (doc && doc.kind !== kind && typeof doc.kind === 'string' && doc.kind !== '') {
    return { problems: [invalid('kind', doc.kind, `must be ${kind} for this flag`)] };
  }
  const problems = [...parsed.problems, ...KIND_VALIDATORS[kind](parsed.doc, { anonymousAuthFlagSet: flags.anonymousAuthFlagSet })];
  if (doc && kind === 'AuthorizationConfiguration') problems.push(...(await connectionFileProblems(doc)));
  return { doc: parsed.doc, problems };
}

/** Loads every configuration file named in the flags; throws ConfigLoadError listing all errors of all files. */
export async function loadServerConfigs(flags: ServerConfigFlags): Promise<LoadedServerConfigs> {
  const result: LoadedServerConfigs = { files: [], warnings: [] };
  const all: LoadProblem[] = [];
  const loaded: Partial<Record<Slot, unknown>> = {};
  for (const src of SOURCES) {
    const file = flags[src.key];
    if (typeof file !== 'string' || file === '') continue;
    const { doc, problems } = await loadOne(file, src.kind, flags);
    all.push(...problems.map((p) => ({ ...p, flag: src.flag, file })));
    if (doc !== undefined) {
      loaded[src.slot] = applyConfigDefaults(doc);
      result.files.push({ flag: src.flag, file, kind: src.kind });
    }
  }
  if (all.some((p) => p.severity === 'error')) throw new ConfigLoadError(all);
  result.warnings = all;
  Object.assign(result, loaded);
  return result;
}

/** One line per loaded document, for the start-up log. */
export function describeLoadedConfigs(loaded: LoadedServerConfigs): string[] {
  return loaded.files.map((f) => `loaded ${f.kind} from ${f.file} (${f.flag})`);
}
