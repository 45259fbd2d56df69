// An object as the YAML or JSON the object view shows; apart from ManifestViewer so the shell (which
// provides the viewer context) does not load the yaml library before its first paint.
import { stringify } from 'yaml';
import type { KubeObject } from '../../client/index.js';
import type { ManifestFormat } from './ManifestViewer.js';

/** Serialises an object for display, optionally without managedFields. */
export function manifestText(obj: KubeObject, format: ManifestFormat, hideManagedFields: boolean): string {
  let o = obj;
  if (hideManagedFields && obj.metadata?.managedFields) {
    const { managedFields: _m, ...meta } = obj.metadata;
    o = { ...obj, metadata: meta };
  }
  return format === 'json' ? JSON.stringify(o, null, 2) : stringify(o, { lineWidth: 0, aliasDuplicateObjects: false });
}

