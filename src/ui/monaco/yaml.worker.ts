// The monaco-yaml language worker as its own Vite worker entry (imported with `?worker`).
import 'monaco-yaml/yaml.worker.js';
