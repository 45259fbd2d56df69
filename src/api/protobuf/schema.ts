// Compiled view of descriptors.json: message tables with fields by number and by JSON name,
// precomputed tags, and the message types whose JSON shape is custom (Time, Quantity, ...).
import descriptors from './descriptors.json' with { type: 'json' };
import { WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from './wire.js';

export type ScalarType =
  | 'double' | 'float' | 'int32' | 'int64' | 'uint32' | 'uint64' | 'sint32' | 'sint64'
  | 'fixed32' | 'fixed64' | 'sfixed32' | 'sfixed64' | 'bool' | 'string' | 'bytes';

/** Message types whose JSON form is not a plain object of their fields. */
export type SpecialKind =
  | 'time' | 'microtime' | 'duration' | 'quantity' | 'intorstring' | 'rawext' | 'rawjson'
  | 'stringarray' | 'schemaOrArray' | 'schemaOrBool' | 'schemaOrStringArray';

export interface FieldInfo {
  name: string;
  /** Key in the JSON object. */
  json: string;
  id: number;
  /** Declaration index (JSON output order). */
  index: number;
  repeated: boolean;
  map: boolean;
  keyType?: ScalarType;
  /** Set for scalar fields and for maps with scalar values. */
  scalar?: ScalarType;
  /** Set for message fields and for maps with message values. */
  msg?: MessageInfo;
  /** Wire type of one element (LEN for messages, strings, bytes and map entries). */
  wire: number;
  /** The zero value is shown in JSON (Go pointer or no omitempty). */
  keepZero: boolean;
  /** Embedded Go struct: its fields live in the parent JSON object. */
  inline: boolean;
  /** Encoded key (field number + wire type) for one element. */
  tag: Uint8Array;
}

export interface MessageInfo {
  name: string;
  fields: FieldInfo[];
  byId: (FieldInfo | undefined)[];
  byJson: Map<string, FieldInfo>;
  /** Fields sorted by number: the order they are written. */
  encodeOrder: FieldInfo[];
  /** Has an embedded (inline) field. */
  hasInline: boolean;
  special?: SpecialKind;
}

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const APIEXT = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

const SPECIALS: Record<string, SpecialKind> = {
  [`${META}.Time`]: 'time',
  [`${META}.MicroTime`]: 'microtime',
  [`${META}.Duration`]: 'duration',
  [`${META}.FieldsV1`]: 'rawjson',
  [`${META}.Verbs`]: 'stringarray',
  'k8s.io.api.authentication.v1.ExtraValue': 'stringarray',
  'k8s.io.api.authorization.v1.ExtraValue': 'stringarray',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'rawext',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'intorstring',
  [`${APIEXT}.JSON`]: 'rawjson',
  [`${APIEXT}.JSONSchemaPropsOrArray`]: 'schemaOrArray',
  [`${APIEXT}.JSONSchemaPropsOrBool`]: 'schemaOrBool',
  [`${APIEXT}.JSONSchemaPropsOrStringArray`]: 'schemaOrStringArray',
};

interface FieldJson {
  type: string;
  id: number;
  rule?: string;
  keyType?: string;
  options?: { json_name?: string; keep_zero?: boolean; inline?: boolean };
}
interface NodeJson {
  nested?: Record<string, NodeJson>;
  fields?: Record<string, FieldJson>;
}

function scalarWire(t: ScalarType): number {
  switch (t) {
    case 'double': case 'fixed64': case 'sfixed64': return WIRE_FIXED64;
    case 'float': case 'fixed32': case 'sfixed32': return WIRE_FIXED32;
    case 'string': case 'bytes': return WIRE_LEN;
    default: return WIRE_VARINT;
  }
}

const SCALAR_TYPES = new Set<string>(['double', 'float', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64',
  'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'bool', 'string', 'bytes']);

function encodeTag(id: number, wire: number): Uint8Array {
  const bytes: number[] = [];
  let v = id * 8 + wire;
  while (v >= 0x80) {
    bytes.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  bytes.push(v);
  return Uint8Array.from(bytes);
}

function build(): Map<string, MessageInfo> {
  const table = new Map<string, MessageInfo>();
  const pending: Array<[FieldInfo, string]> = [];
  const walk = (node: NodeJson, prefix: string) => {
    for (const [name, child] of Object.entries(node.nested ?? {})) {
      const full = prefix ? `${prefix}.${name}` : name;
      if (child.fields) {
        const info: MessageInfo = { name: full, fields: [], byId: [], byJson: new Map(), encodeOrder: [], hasInline: false, special: SPECIALS[full] };
        let index = 0;
        for (const [fname, f] of Object.entries(child.fields)) {
          const isMap = f.keyType !== undefined;
          const scalar = SCALAR_TYPES.has(f.type) ? (f.type as ScalarType) : undefined;
          const wire = isMap || !scalar ? WIRE_LEN : scalarWire(scalar);
          const field: FieldInfo = {
            name: fname,
            json: f.options?.json_name ?? fname,
            id: f.id,
            index: index++,
            repeated: f.rule === 'repeated',
            map: isMap,
            keyType: f.keyType as ScalarType | undefined,
            scalar,
            wire,
            keepZero: f.options?.keep_zero === true,
            inline: f.options?.inline === true,
            tag: encodeTag(f.id, wire),
          };
          if (!scalar) pending.push([field, f.type.replace(/^\./, '')]);
          info.fields.push(field);
          info.byId[f.id] = field;
          info.byJson.set(field.json, field);
        }
        info.encodeOrder = [...info.fields].sort((a, b) => a.id - b.id);
        info.hasInline = info.fields.some((f) => f.inline);
        table.set(full, info);
      }
      if (child.nested) walk(child, full);
    }
  };
  walk(descriptors as NodeJson, '');
  for (const [field, typeName] of pending) {
    const msg = table.get(typeName);
    if (!msg) throw new Error(`protobuf descriptors: unresolved type ${typeName}`);
    field.msg = msg;
  }
  return table;
}

let messages: Map<string, MessageInfo> | undefined;

/** All compiled messages by full name (built on first use). */
export function messageTable(): Map<string, MessageInfo> {
  messages ??= build();
  return messages;
}

export function lookupMessage(fullName: string): MessageInfo | undefined {
  return messageTable().get(fullName);
}
