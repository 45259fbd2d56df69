// Monaco with YAML (monaco-yaml) and JSON language services, bundled locally. Only ever imported
// through loadMonaco(), so the explorer's first paint does not pay for the editor.
import * as monaco from 'monaco-editor';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker?worker';
import JsonWorker from 'monaco-editor/esm/vs/language/json/json.worker?worker';
import { configureMonacoYaml } from 'monaco-yaml';
import { bindSchemaSink, yamlSchemaEntries, type YamlSchemaEntry } from './schemas.js';
import YamlWorker from './yaml.worker.js?worker';

self.MonacoEnvironment = {
  getWorker(_moduleId: string, label: string) {
    switch (label) {
      case 'yaml':
        return new YamlWorker();
      case 'json':
        return new JsonWorker();
      default:
        return new EditorWorker();
    }
  },
};

const yamlOptions = (schemas: YamlSchemaEntry[]) => ({
  enableSchemaRequest: false,
  hover: true,
  completion: true,
  validate: true,
  format: { enable: true },
  schemas: schemas.map((s) => ({ uri: s.uri, fileMatch: s.fileMatch, schema: s.schema })),
});

const monacoYaml = configureMonacoYaml(monaco, yamlOptions(yamlSchemaEntries()));
bindSchemaSink((all) => void monacoYaml.update(yamlOptions(all)));

// Follow the explorer's light/dark theme (the data-theme attribute on <html>).
function syncTheme(): void {
  monaco.editor.setTheme(document.documentElement.dataset.theme === 'dark' ? 'vs-dark' : 'vs');
}
syncTheme();
new MutationObserver(syncTheme).observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });

export { monaco };
