// Structured-merge-diff view of schema nodes: each node is a scalar, an atomic leaf, a list
// (atomic / set / map with keys) or a map (struct fields and/or element type; granular or atomic).
// Views are built once per schema node and registry, then reused on every request.
import { OBJECT_META, type SchemaRegistry } from '../schema/registry.js';
import type { SchemaNode } from '../schema/types.js';
import { isObject } from './json-util.js';
import { keyPE, type PathElement } from './path-element.js';

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
}

export interface MapType extends Common {
  readonly kind: 'map';
  readonly atomic: boolean;
  /** Whether `name` is a declared struct field (owned only through its leaves). */
  declares(name: string): boolean;
  /** Type of a field or map value; deduced for fields the schema does not know. */
  field(name: string): TypeNode;
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
}

class MapView implements MapType {
  readonly kind = 'map';
  private readonly cache = new Map<string, TypeNode>();
  private elemType?: TypeNode;
  constructor(
    private readonly types: SchemaTypes,
    readonly atomic: boolean,
    private readonly props: Record<string, SchemaNode> | undefined,
    private readonly elem: SchemaNode | 'deduced' | undefined,
    readonly nullable: boolean,
    private readonly overrides?: Record<string, TypeNode>,
  ) {}
  declares(name: string): boolean {
    return (this.props !== undefined && Object.hasOwn(this.props, name)) || (this.overrides !== undefined && Object.hasOwn(this.overrides, name));
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
      t = this.withMeta(r.properties, r.properties ? mapElem(r) : 'deduced');
      this.roots.set(schema, t);
    }
    return t;
  }

  private withMeta(props: Record<string, SchemaNode> | undefined, elem: SchemaNode | 'deduced' | undefined): TypeNode {
    const metaDef = this.reg.get(OBJECT_META);
    const declared = props?.metadata ? this.reg.resolve(props.metadata) : undefined;
    const overrides: Record<string, TypeNode> = {};
    if (metaDef && !declared?.properties) overrides.metadata = this.of(metaDef);
    return new MapView(this, false, props, elem, false, overrides);
  }

  private build(node: SchemaNode): TypeNode {
    const r = this.reg.resolve(node);
    const nullable = r.nullable === true;
    if (r['x-kubernetes-int-or-string']) return nullable ? SCALAR_NULLABLE : SCALAR;
    if (r.type === 'array' || (r.type === undefined && r.items)) return this.list(r, nullable);
    const preserve = r['x-kubernetes-preserve-unknown-fields'] === true;
    if (r.type === 'object' || r.properties || r.additionalProperties !== undefined) {
      if (!r.properties && (r.additionalProperties === undefined || r.additionalProperties === false) && !preserve) return UNTYPED;
      return new MapView(this, r['x-kubernetes-map-type'] === 'atomic', r.properties, mapElem(r), nullable);
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
  if (t.rel === 'set') return { t: 'v', value: item };
  if (item === null) return 'associative list with keys may not have a null element';
  if (!isObject(item)) return 'associative list with keys may not have non-map elements';
  const fields: [string, unknown][] = [];
  for (const k of t.keys) {
    let v = item[k];
    if (v === undefined) {
      v = t.keyDefault(k);
      if (v === undefined) return `associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`;
    }
    fields.push([k, v]);
  }
  return keyPE(fields);
}
