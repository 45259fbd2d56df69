// Declarative resource-type definitions. Built-in kinds and CRDs use the same shape.
import type { SchemaNode } from './schema/types.js';

export type Scope = 'Namespaced' | 'Cluster';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description?: string;
  priority?: number;
  /** Cell value for an object (kubectl-like printers for built-ins; JSONPath for CRDs). */
  cell(obj: KubeObject): unknown;
}

export interface SubresourceDef {
  name: 'status' | 'scale' | string;
  /** Kind served by the sub-resource (Scale for scale, the parent kind for status). */
  kind: string;
  group?: string;
  version?: string;
  verbs: Verb[];
  /** scale: JSON paths (CRD style, e.g. `.spec.replicas`) of the replica fields and the label selector. */
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

export type { KubeObject, ObjectMeta, OwnerReference } from '../../api/types.js';
import type { KubeObject } from '../../api/types.js';

/** A field error as upstream's field.Error: reason FieldValueRequired|FieldValueInvalid|... */
export interface FieldError {
  type: 'FieldValueRequired' | 'FieldValueInvalid' | 'FieldValueNotFound' | 'FieldValueNotSupported' | 'FieldValueForbidden' | 'FieldValueDuplicate' | 'FieldValueTooLong' | 'FieldValueTooMany' | 'FieldValueTypeInvalid';
  /** Dotted path with [i] indices, e.g. spec.containers[0].image */
  field: string;
  /** Human detail, e.g. `Required value`, `Invalid value: "x": must be ...` */
  detail: string;
  badValue?: unknown;
}

export interface Strategy {
  /** Fill defaults on create and update (mutates obj); old is the stored object on update. */
  defaults?(obj: KubeObject, old?: KubeObject): void;
  /** The defaults hand out cluster-wide values (cluster IPs, node ports): run them on objects to store only, never on a scratch copy. */
  defaultsAllocate?: boolean;
  /** Create-time fields taken from the requesting user (a CSR's spec.username, groups ...). */
  prepareCreate?(obj: KubeObject, user: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }): void;
  /** Type rules for an update of the main resource or a sub-resource, after the generic merge (a CSR's /approval and /status). */
  prepareUpdate?(next: KubeObject, old: KubeObject, subresource: string): FieldError[];
  /** Extra semantic validation beyond the schema. */
  validate?(obj: KubeObject, old?: KubeObject): FieldError[];
  /** Validation that may take long (CEL rules under their cost budget) and gives the event loop turns meanwhile. */
  validateAsync?(obj: KubeObject, old?: KubeObject): Promise<FieldError[]>;
  /** Name validation: 'subdomain' (default) or 'label' (DNS-1123 label), or 'path' (path segment only). */
  nameValidation?: 'subdomain' | 'label' | 'path';
  /** Keep a client-supplied status on create (default: types with a status sub-resource drop it). */
  keepStatusOnCreate?: boolean;
  /** Whether PUT on a missing object creates it. */
  allowCreateOnUpdate?: boolean;
  /** Whether a PUT must carry metadata.resourceVersion. */
  requireResourceVersionOnUpdate?: boolean;
  /**
   * Whether metadata.generation is set on create and bumped on spec changes. Upstream strategies set it only for
   * kinds with a spec a controller reconciles (workloads, PDBs, Ingress, CRDs and custom resources ...), never
   * for Services, Secrets, ConfigMaps, Namespaces, PVCs, RBAC and the like.
   */
  tracksGeneration?: boolean;
  /**
   * For a resource served in several versions of one storage (autoscaling/v1 and v2 HorizontalPodAutoscalers): the
   * object in this type's version, from one stored in another version (objects are stored in the version that wrote
   * them and converted when read, as upstream's conversion does).
   */
  convertFrom?(obj: KubeObject): KubeObject;
  /** The stored form of an object written through this type, when the storage holds another version (idempotent). */
  convertTo?(obj: KubeObject): KubeObject;
  /** Selectable fields beyond metadata.name/metadata.namespace (field selector support). */
  fieldSelectors?: Record<string, (obj: KubeObject) => string | undefined>;
}

export interface ResourceType {
  /** Canonical group ('' for core), e.g. 'apps', 'rbac.authorization.service.io'. */
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  scope: Scope;
  verbs: Verb[];
  subresources: SubresourceDef[];
  /** Root schema of the kind (undefined = accept anything, keep unknown fields). */
  schema?: SchemaNode;
  /** OpenAPI definition name of the kind's schema (e.g. io.k8s.api.apps.v1.Deployment, com.example.stable.v1.CronTab). */
  schemaRef?: string;
  /** Table columns beyond Name (Name is always first); undefined = default Name + Created At. */
  columns?: TableColumn[];
  strategy: Strategy;
  /** True for kinds defined by a CustomResourceDefinition. */
  custom: boolean;
  /** For CRDs: the storage version name (objects are stored in it). */
  storageVersion?: string;
  /** The group whose storage this type shares (events.k8s.io Events live with core v1 Events), when not its own. */
  storageGroup?: string;
  /** Whether this version is the preferred/served one (CRDs can have several). */
  served: boolean;
}
