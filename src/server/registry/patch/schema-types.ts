// Structured-merge-diff view of schema nodes: each node is a scalar, an atomic leaf, a list
// (atomic / set / map with keys) or a map (struct fields and/or element type; granular or atomic).
// Views are built once per schema node and registry, then reused on every request.
import { OBJECT_META, type SchemaRegistry } from '../schema/registry.js';
import type { SchemaNode } from '../schema/types.js';
import { isObject } from './json-util.js';
import { goJson, type PathElement } from './path-element.js';

export type ListRelation = 'atomic' | 'set' | 'map';

export type TypeNode = ScalarType | UntypedType | DeducedType | ListType | MapType;

interface Common {
  /** Whether an explicit null is a value of this type (CRD `nullable`, untyped content). */
  readonly nullable: boolean;
}

export interface ScalarType extends Common {
  readonly kind: 'scalar';
}

/** Anything, owned as one unit (schema `{}`, RawExtension, bare `type: object`). */
export interface UntypedType extends Common {
  readonly kind: 'untyped';
}

/** Unknown structure (no schema, preserve-unknown-fields): maps granular, lists atomic. */
export interface DeducedType extends Common {
  readonly kind: 'deduced';
}

export interface ListType extends Common {
  readonly kind: 'list';
  readonly rel: ListRelation;
  readonly keys: readonly string[];
  item(): TypeNode;
  /** Schema default of a key field (used when an item omits it), or undefined. */
  keyDefault(name: string): unknown;
  /** Path element and its serialized key for an item, or an error message. */
  itemKey(item: unknown): ItemKey | string;
}

export interface ItemKey {
  readonly pe: PathElement;
  readonly key: string;
}

export interface MapType extends Common {
  readonly kind: 'map';
  readonly atomic: boolean;
  /** Declared fields only (no map values): a struct. */
  readonly struct: boolean;
  /** Whether `name` is a declared struct field (owned only through its leaves). */
  declares(name: string): boolean;
  /** Type of a field or map value; deduced for fields the schema does not know. */
  field(name: string): TypeNode;
  /** Path element of a field (shared for declared fields). */
  fieldPE(name: string): PathElement;
  /** Whether the schema lists `name` as required. */
  requires(name: string): boolean;
}

export const SCALAR: ScalarType = { kind: 'scalar', nullable: false };
export const UNTYPED: UntypedType = { kind: 'untyped', nullable: true };
export const DEDUCED: DeducedType = { kind: 'deduced', nullable: true };
const SCALAR_NULLABLE: ScalarType = { kind: 'scalar', nullable: true };

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

class ListView implements ListType {
  readonly kind = 'list';
  private itemType?: TypeNode;
  private defaults?: Map<string, unknown>;
  private sortedKeys?: (readonly [string, string])[];
  constructor(
    private readonly types: SchemaTypes,
    readonly rel: ListRelation,
    readonly keys: readonly string[],
    private readonly items: SchemaNode | undefined,
    readonly nullable: boolean,
  ) {}
  item(): TypeNode {
    return (this.itemType ??= this.items ? this.types.of(this.items) : DEDUCED);
  }
  keyDefault(name: string): unknown {
    if (!this.defaults) {
      this.defaults = new Map();
      const item = this.items ? this.types.reg.resolve(this.items) : undefined;
      for (const k of this.keys) {
        const prop = item?.properties?.[k];
        const d = prop ? this.types.reg.resolve(prop).default : undefined;
        if (d !== undefined) this.defaults.set(k, d);
      }
    }
    return this.defaults.get(name);
  }
  itemKey(item: unknown): ItemKey | string {
    if (this.rel === 'set') return { pe: { t: 'v', value: item }, key: 'v:' + goJson(item) };
    if (item === null) return 'associative list with keys may not have a null element';
    if (!isObject(item)) return 'associative list with keys may not have non-map elements';
    const names = (this.sortedKeys ??= this.keys.map((k) => [k, goJson(k)] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
    const fields: [string, unknown][] = [];
    let key = 'k:{';
    for (let i = 0; i < names.length; i++) {
      const [name, json] = names[i]!;
      let v = item[name];
      if (v === undefined) {
        v = this.keyDefault(name);
        if (v === undefined) return `associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)`;
      }
      fields.push([name, v]);
      key += (i ? ',' : '') + json + ':' + goJson(v);
    }
    return { pe: { t: 'k', key: fields }, key: key + '}' };
  }
}

class MapView implements MapType {
  readonly kind = 'map';
  private readonly cache = new Map<string, TypeNode>();
  private readonly pes = new Map<string, PathElement>();
  private elemType?: TypeNode;
  readonly struct: boolean;
  constructor(
    private readonly types: SchemaTypes,
    readonly atomic: boolean,
    private readonly props: Record<string, SchemaNode> | undefined,
    private readonly elem: SchemaNode | 'deduced' | undefined,
    readonly nullable: boolean,
    private readonly overrides?: Record<string, TypeNode>,
    private readonly required?: readonly string[],
  ) {
    this.struct = props !== undefined && elem === undefined;
  }
  requires(name: string): boolean {
    return this.required !== undefined && this.required.includes(name);
  }
  declares(name: string): boolean {
    return (this.props !== undefined && Object.hasOwn(this.props, name)) || (this.overrides !== undefined && Object.hasOwn(this.overrides, name));
  }
  fieldPE(name: string): PathElement {
    if (!this.declares(name)) return { t: 'f', name };
    let pe = this.pes.get(name);
    if (!pe) {
      pe = { t: 'f', name };
      this.pes.set(name, pe);
    }
    return pe;
  }
  field(name: string): TypeNode {
    const over = this.overrides?.[name];
    if (over) return over;
    if (this.props && Object.hasOwn(this.props, name)) {
      let t = this.cache.get(name);
      if (!t) {
        t = this.types.of(this.props[name]!);
        this.cache.set(name, t);
      }
      return t;
    }
    if (this.elemType) return this.elemType;
    if (this.elem === undefined || this.elem === 'deduced') return (this.elemType = DEDUCED);
    return (this.elemType = this.types.of(this.elem));
  }
}

/** Type views of one registry's schema nodes (cached per node). */
export class SchemaTypes {
  private readonly cache = new WeakMap<SchemaNode, TypeNode>();
  private readonly roots = new WeakMap<SchemaNode, TypeNode>();
  private deducedRoot?: TypeNode;

  constructor(readonly reg: SchemaRegistry) {}

  of(node: SchemaNode): TypeNode {
    let t = this.cache.get(node);
    if (!t) {
      t = this.build(node);
      this.cache.set(node, t);
    }
    return t;
  }

  /**
   * Type of a resource's root. `metadata` is always typed as ObjectMeta (CRD schemas leave it
   * as a bare object), so labels and annotations stay granular.
   */
  root(schema: SchemaNode | undefined): TypeNode {
    if (!schema) return (this.deducedRoot ??= this.withMeta(undefined, undefined));
    let t = this.roots.get(schema);
    if (!t) {
      const r = this.reg.resolve(schema);
      t = this.withMeta(r.properties, r.properties ? mapElem(r) : 'deduced', r.required);
      this.roots.set(schema, t);
    }
    return t;
  }

  private withMeta(props: Record<string, SchemaNode> | undefined, elem: SchemaNode | 'deduced' | undefined, required?: string[]): TypeNode {
    const metaDef = this.reg.get(OBJECT_META);
    const declared = props?.metadata ? this.reg.resolve(props.metadata) : undefined;
    const overrides: Record<string, TypeNode> = {};
    if (metaDef && !declared?.properties) overrides.metadata = this.of(metaDef);
    return new MapView(this, false, props, elem, false, overrides, required);
  }

  private build(node: SchemaNode): TypeNode {
    const r = this.reg.resolve(node);
    const nullable = r.nullable === true;
    if (r['x-kubernetes-int-or-string']) return nullable ? SCALAR_NULLABLE : SCALAR;
    if (r.type === 'array' || (r.type === undefined && r.items)) return this.list(r, nullable);
    const preserve = r['x-kubernetes-preserve-unknown-fields'] === true;
    if (r.type === 'object' || r.properties || r.additionalProperties !== undefined) {
      if (!r.properties && (r.additionalProperties === undefined || r.additionalProperties === false) && !preserve) return UNTYPED;
      return new MapView(this, r['x-kubernetes-map-type'] === 'atomic', r.properties, mapElem(r), nullable, undefined, r.required);
    }
    if (r.type && SCALAR_TYPES.has(r.type)) return nullable ? SCALAR_NULLABLE : SCALAR;
    if (preserve) return DEDUCED;
    return UNTYPED;
  }

  private list(r: SchemaNode, nullable: boolean): TypeNode {
    const listType = r['x-kubernetes-list-type'];
    const mergeKey = r['x-kubernetes-patch-merge-key'];
    if (listType === 'map') return new ListView(this, 'map', r['x-kubernetes-list-map-keys'] ?? (mergeKey ? [mergeKey] : []), r.items, nullable);
    if (listType === 'set') return new ListView(this, 'set', [], r.items, nullable);
    if (listType === 'atomic') return new ListView(this, 'atomic', [], r.items, nullable);
    // No list type (built-ins): a merge patch strategy makes the list associative, keyed by the merge key.
    const strategies = r['x-kubernetes-patch-strategy']?.split(',') ?? [];
    if (strategies.includes('merge')) return new ListView(this, mergeKey ? 'map' : 'set', mergeKey ? [mergeKey] : [], r.items, nullable);
    return new ListView(this, 'atomic', [], r.items, nullable);
  }
}

function mapElem(r: SchemaNode): SchemaNode | 'deduced' | undefined {
  if (isObject(r.additionalProperties)) return r.additionalProperties as SchemaNode;
  if (r.additionalProperties === true || r['x-kubernetes-preserve-unknown-fields']) return 'deduced';
  return undefined;
}

const registries = new WeakMap<SchemaRegistry, SchemaTypes>();

export function schemaTypes(reg: SchemaRegistry): SchemaTypes {
  let t = registries.get(reg);
  if (!t) {
    t = new SchemaTypes(reg);
    registries.set(reg, t);
  }
  return t;
}

/** Granular map semantics for a value, or undefined when the value is owned as a unit. */
export function asGranularMap(t: TypeNode, v: unknown): MapType | DeducedType | undefined {
  if (!isObject(v)) return undefined;
  if (t.kind === 'map') return t.atomic ? undefined : t;
  if (t.kind === 'deduced') return t;
  return undefined;
}

/** Associative list semantics for a value, or undefined when the list is atomic (or not a list). */
export function asAssociativeList(t: TypeNode, v: unknown): ListType | undefined {
  if (!Array.isArray(v) || t.kind !== 'list' || t.rel === 'atomic') return undefined;
  return t;
}

/** Field type inside a granular map (deduced maps hold deduced values). */
export function fieldType(t: MapType | DeducedType, name: string): TypeNode {
  return t.kind === 'map' ? t.field(name) : DEDUCED;
}

export function declares(t: TypeNode, name: string): boolean {
  return t.kind === 'map' && t.declares(name);
}

/** Path element of a list item, or an error message (missing key field, non-object item). */
export function listItemPE(t: ListType, item: unknown): PathElement | string {
  const k = t.itemKey(item);
  return typeof k === 'string' ? k : k.pe;
}
