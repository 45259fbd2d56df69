// Rules of AdmissionConfiguration (registered, unique plugin names) and TracingConfiguration
// (collector endpoint form; the sampling range comes from the model).

import { REGISTERED_ADMISSION_PLUGINS } from './admission-plugins.js';
import { child, duplicate, index, invalid, notSupported, warning, type ConfigProblem } from './problems.js';
import { asList, asObject, asString, isSet } from './structural.js';

export function admissionRules(doc: Record<string, unknown>, out: ConfigProblem[]): void {
  const seen = new Set<string>();
  asList(doc.plugins).forEach((item, i) => {
    const plugin = asObject(item);
    if (!plugin) return;
    const path = index('plugins', i);
    const name = asString(plugin.name);
    if (name) {
      if (!(REGISTERED_ADMISSION_PLUGINS as readonly string[]).includes(name)) {
        out.push(notSupported(child(path, 'name'), name, REGISTERED_ADMISSION_PLUGINS));
      } else if (seen.has(name)) out.push(duplicate(child(path, 'name'), name));
      seen.add(name);
    }
    if (asString(plugin.path) && isSet(plugin.configuration)) {
      out.push(warning(child(path, 'path'), 'is ignored because configuration is set'));
    }
  });
}

const HOST_PORT_RE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):([0-9]{1,5})$/;

export function tracingRules(doc: Record<string, unknown>, out: ConfigProblem[]): void {
  const endpoint = asString(doc.endpoint);
  if (endpoint === undefined || endpoint === '') return;
  const m = HOST_PORT_RE.exec(endpoint);
  const port = m ? Number(m[3]) : 0;
  if (!m || port < 1 || port > 65535) {
    out.push(invalid('endpoint', endpoint, 'must be host:port, such as "localhost:4317"'));
  }
}
