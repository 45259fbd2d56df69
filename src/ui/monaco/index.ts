// Shared Monaco setup for the explorer (config studio, object editor). Everything here is light:
// the editor itself is fetched on first use through loadMonaco().
export { loadMonaco, type MonacoApi } from './load.js';
export { registerYamlSchema, unregisterYamlSchema, bindModelToSchema, type YamlSchemaEntry } from './schemas.js';
export { MonacoEditor, type MonacoEditorProps, type EditorMarker } from './MonacoEditor.js';
export { MonacoDiff, type MonacoDiffProps } from './MonacoDiff.js';
