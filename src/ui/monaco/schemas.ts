// Run-time registry of the JSON Schemas monaco-yaml validates and completes against. Callers may
// register before Monaco has loaded; the bootstrap applies whatever is registered when it starts.
// A schema reaches a model either through its fileMatch globs or by an editor binding its model
// to the schema's uri (the `schemaUri` prop of <MonacoEditor>).

export interface YamlSchemaEntry {
  /** Identifies the schema; registering the same uri again replaces it. */
  uri: string;
  /** Model URI globs the schema applies to, such as `**\/kinds/Pod.yaml`. */
  fileMatch: string[];
  schema: object;
}

const entries = new Map<string, YamlSchemaEntry>();
/** Model URIs bound to a schema uri by editors, added to that schema's fileMatch. */
const bound = new Map<string, Set<string>>();
let sink: ((all: YamlSchemaEntry[]) => void) | undefined;

export function yamlSchemaEntries(): YamlSchemaEntry[] {
  return [...entries.values()].map((e) => ({ ...e, fileMatch: [...e.fileMatch, ...(bound.get(e.uri) ?? [])] }));
}

function push(): void {
  sink?.(yamlSchemaEntries());
}

/** Adds or replaces a schema; applied immediately when Monaco is loaded, otherwise at load. */
export function registerYamlSchema(uri: string, fileMatch: string[], jsonSchema: object): void {
  const prev = entries.get(uri);
  if (prev && prev.schema === jsonSchema && prev.fileMatch.join('\n') === fileMatch.join('\n')) return;
  entries.set(uri, { uri, fileMatch, schema: jsonSchema });
  push();
}

export function unregisterYamlSchema(uri: string): void {
  if (entries.delete(uri)) push();
}

/** Validates the model at `modelGlob` against the schema registered (now or later) as `schemaUri`. */
export function bindModelToSchema(schemaUri: string, modelGlob: string): () => void {
  let set = bound.get(schemaUri);
  if (!set) bound.set(schemaUri, (set = new Set()));
  set.add(modelGlob);
  if (entries.has(schemaUri)) push();
  return () => {
    set.delete(modelGlob);
    if (entries.has(schemaUri)) push();
  };
}

/** Called once by the bootstrap with the function that pushes schemas into monaco-yaml. */
export function bindSchemaSink(fn: (all: YamlSchemaEntry[]) => void): void {
  sink = fn;
}
