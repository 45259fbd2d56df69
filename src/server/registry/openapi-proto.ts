// OpenAPI v2 as protobuf: the gnostic `openapi.v2.Document` message (google/gnostic openapiv2/OpenAPIv2.proto),
// the form kubectl up to 1.28 asks /openapi/v2 for (Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf).
// Values gnostic carries as `Any` (defaults, enums, examples, x-* extensions) are written in its `yaml` field;
// JSON text is YAML, and that is how kubectl reads them back.
import { Writer, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from '../../api/protobuf/wire.js';

export const OPENAPI_V2_PROTO_MEDIA_TYPE = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/** What the response says it is: the same type spelled without '@', which Go's mime parser rejects (kube-openapi). */
export const OPENAPI_V2_PROTO_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

function str(w: Writer, field: number, v: unknown): void {
  if (typeof v !== 'string' || v === '') return;
  w.tag(field, WIRE_LEN);
  w.string(v);
}

function strs(w: Writer, field: number, v: unknown): void {
  if (!Array.isArray(v)) return;
  for (const s of v) {
    w.tag(field, WIRE_LEN);
    w.string(String(s));
  }
}

function bool(w: Writer, field: number, v: unknown): void {
  if (v !== true) return;
  w.tag(field, WIRE_VARINT);
  w.varint(1);
}

function int(w: Writer, field: number, v: unknown): void {
  if (typeof v !== 'number' || v === 0) return;
  w.tag(field, WIRE_VARINT);
  w.varint(Math.trunc(v));
}

function dbl(w: Writer, field: number, v: unknown): void {
  if (typeof v !== 'number' || v === 0) return;
  w.tag(field, WIRE_FIXED64);
  w.double(v);
}

function msg(w: Writer, field: number, body: () => void): void {
  w.tag(field, WIRE_LEN);
  const at = w.beginLen();
  body();
  w.endLen(at);
}

/** Any { yaml = 2 } */
function any(w: Writer, field: number, v: unknown): void {
  if (v === undefined) return;
  msg(w, field, () => str(w, 2, JSON.stringify(v)));
}

/** repeated NamedAny vendor_extension: every x-* key of `node`. */
function extensions(w: Writer, field: number, node: Json): void {
  for (const [k, v] of Object.entries(node)) {
    if (!k.startsWith('x-')) continue;
    msg(w, field, () => {
      str(w, 1, k);
      any(w, 2, v);
    });
  }
}

function schema(w: Writer, s: Json): void {
  str(w, 1, s.$ref);
  str(w, 2, s.format);
  str(w, 3, s.title);
  str(w, 4, s.description);
  any(w, 5, s.default);
  dbl(w, 6, s.multipleOf);
  dbl(w, 7, s.maximum);
  bool(w, 8, s.exclusiveMaximum);
  dbl(w, 9, s.minimum);
  bool(w, 10, s.exclusiveMinimum);
  int(w, 11, s.maxLength);
  int(w, 12, s.minLength);
  str(w, 13, s.pattern);
  int(w, 14, s.maxItems);
  int(w, 15, s.minItems);
  bool(w, 16, s.uniqueItems);
  int(w, 17, s.maxProperties);
  int(w, 18, s.minProperties);
  strs(w, 19, s.required);
  if (Array.isArray(s.enum)) for (const e of s.enum) any(w, 20, e);
  const ap = s.additionalProperties;
  if (isObj(ap)) msg(w, 21, () => msg(w, 1, () => schema(w, ap)));
  else if (typeof ap === 'boolean') msg(w, 21, () => {
    w.tag(2, WIRE_VARINT);
    w.varint(ap ? 1 : 0);
  });
  if (typeof s.type === 'string') msg(w, 22, () => strs(w, 1, [s.type]));
  else if (Array.isArray(s.type)) msg(w, 22, () => strs(w, 1, s.type));
  const items = s.items;
  if (isObj(items)) msg(w, 23, () => msg(w, 1, () => schema(w, items)));
  else if (Array.isArray(items)) msg(w, 23, () => items.forEach((i) => msg(w, 1, () => schema(w, i as Json))));
  if (Array.isArray(s.allOf)) for (const a of s.allOf) msg(w, 24, () => schema(w, a as Json));
  if (isObj(s.properties)) msg(w, 25, () => named(w, 1, s.properties as Json, schema));
  str(w, 26, s.discriminator);
  bool(w, 27, s.readOnly);
  any(w, 30, s.example);
  extensions(w, 31, s);
}

/** repeated Named* { name = 1; value = 2 } over a JSON object's entries. */
function named(w: Writer, field: number, map: Json, value: (w: Writer, v: Json) => void): void {
  for (const [k, v] of Object.entries(map)) {
    if (!isObj(v)) continue;
    msg(w, field, () => {
      str(w, 1, k);
      msg(w, 2, () => value(w, v));
    });
  }
}

/** Query/path/header/form-data sub-schemas share a layout apart from where `name`, `type` and the rest start. */
function nonBodyParameter(w: Writer, p: Json): void {
  const kind = p.in === 'header' ? 1 : p.in === 'formData' ? 2 : p.in === 'path' ? 4 : 3;
  msg(w, kind, () => {
    bool(w, 1, p.required);
    str(w, 2, p.in);
    str(w, 3, p.description);
    str(w, 4, p.name);
    // query and formData have allow_empty_value at 5 and everything after shifted by one
    const o = kind === 2 || kind === 3 ? 1 : 0;
    if (o) bool(w, 5, p.allowEmptyValue);
    str(w, 5 + o, p.type);
    str(w, 6 + o, p.format);
    str(w, 8 + o, p.collectionFormat);
    any(w, 9 + o, p.default);
    bool(w, 19 + o, p.uniqueItems);
    if (Array.isArray(p.enum)) for (const e of p.enum) any(w, 20 + o, e);
    extensions(w, 22 + o, p);
  });
}

function parametersItem(w: Writer, field: number, p: Json): void {
  msg(w, field, () => {
    if (typeof p.$ref === 'string') {
      msg(w, 2, () => str(w, 1, p.$ref));
      return;
    }
    msg(w, 1, () => {
      if (p.in === 'body') {
        msg(w, 1, () => {
          str(w, 1, p.description);
          str(w, 2, p.name);
          str(w, 3, p.in);
          bool(w, 4, p.required);
          if (isObj(p.schema)) msg(w, 5, () => schema(w, p.schema as Json));
          extensions(w, 6, p);
        });
      } else msg(w, 2, () => nonBodyParameter(w, p));
    });
  });
}

function operation(w: Writer, op: Json): void {
  strs(w, 1, op.tags);
  str(w, 2, op.summary);
  str(w, 3, op.description);
  str(w, 5, op.operationId);
  strs(w, 6, op.produces);
  strs(w, 7, op.consumes);
  if (Array.isArray(op.parameters)) for (const p of op.parameters) parametersItem(w, 8, p as Json);
  if (isObj(op.responses))
    msg(w, 9, () => {
      for (const [code, r] of Object.entries(op.responses as Json)) {
        if (!isObj(r)) continue;
        msg(w, 1, () => {
          str(w, 1, code);
          msg(w, 2, () => {
            if (typeof r.$ref === 'string') msg(w, 2, () => str(w, 1, r.$ref));
            else
              msg(w, 1, () => {
                str(w, 1, r.description);
                if (isObj(r.schema)) msg(w, 2, () => msg(w, 1, () => schema(w, r.schema as Json)));
                extensions(w, 5, r);
              });
          });
        });
      }
    });
  strs(w, 10, op.schemes);
  bool(w, 11, op.deprecated);
  extensions(w, 13, op);
}

const METHODS: [string, number][] = [['get', 2], ['put', 3], ['post', 4], ['delete', 5], ['options', 6], ['head', 7], ['patch', 8]];

function pathItem(w: Writer, item: Json): void {
  str(w, 1, item.$ref);
  for (const [m, f] of METHODS) if (isObj(item[m])) msg(w, f, () => operation(w, item[m] as Json));
  if (Array.isArray(item.parameters)) for (const p of item.parameters) parametersItem(w, 9, p as Json);
  extensions(w, 10, item);
}

/** Encodes an OpenAPI v2 (Swagger 2.0) JSON document as a gnostic openapi.v2.Document. */
export function encodeOpenAPIV2Proto(doc: Json): Uint8Array {
  const w = new Writer(1 << 20);
  str(w, 1, doc.swagger);
  if (isObj(doc.info)) {
    const info = doc.info;
    msg(w, 2, () => {
      str(w, 1, info.title);
      str(w, 2, info.version);
      str(w, 3, info.description);
      extensions(w, 7, info);
    });
  }
  str(w, 3, doc.host);
  str(w, 4, doc.basePath);
  strs(w, 5, doc.schemes);
  strs(w, 6, doc.consumes);
  strs(w, 7, doc.produces);
  if (isObj(doc.paths)) msg(w, 8, () => named(w, 2, doc.paths as Json, pathItem));
  if (isObj(doc.definitions)) msg(w, 9, () => named(w, 1, doc.definitions as Json, schema));
  if (Array.isArray(doc.security))
    for (const req of doc.security)
      if (isObj(req))
        msg(w, 12, () => {
          for (const [k, v] of Object.entries(req))
            msg(w, 1, () => {
              str(w, 1, k);
              msg(w, 2, () => strs(w, 1, v));
            });
        });
  if (isObj(doc.securityDefinitions))
    msg(w, 13, () => {
      for (const [k, v] of Object.entries(doc.securityDefinitions as Json)) {
        if (!isObj(v) || v.type !== 'apiKey') continue;
        msg(w, 1, () => {
          str(w, 1, k);
          // SecurityDefinitionsItem.api_key_security = 2 { type, name, in, description }
          msg(w, 2, () =>
            msg(w, 2, () => {
              str(w, 1, v.type);
              str(w, 2, v.name);
              str(w, 3, v.in);
              str(w, 4, v.description);
            }),
          );
        });
      }
    });
  extensions(w, 16, doc);
  return w.finish();
}
