// Classifies a request path + method into upstream's RequestInfo (verb, group, version, resource, ...).

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  /** get list watch create update patch delete deletecollection, or the lowercased HTTP method for non-resource requests. */
  verb: string;
  apiPrefix: 'api' | 'apis' | '';
  /** The group as spelled in the URL ('' for core). */
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments after /api or /apis/{group}. */
  parts: string[];
  /** The path has an empty segment: it names no resource. */
  malformed?: boolean;
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** `path` is the decoded path (http/request-guard.ts decodePath): segments are not decoded again. */
export function requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    group: '',
    version: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  // One leading and one trailing slash are dropped; an empty segment inside (`namespaces//pods`) would
  // otherwise shift every later segment into another role, so such paths name nothing.
  const trimmed = path.slice(path.startsWith('/') ? 1 : 0, path.length > 1 && path.endsWith('/') ? -1 : undefined);
  if (trimmed === '') return info;
  const segs = trimmed.split('/');
  if (segs.some((s) => s === '')) {
    info.malformed = true;
    return info;
  }
  const prefix = segs[0];
  if (prefix !== 'api' && prefix !== 'apis') return info;
  let rest = segs.slice(1);
  info.apiPrefix = prefix;
  if (prefix === 'apis') {
    if (rest.length < 2) return info; // /apis or /apis/{group}: discovery
    info.group = rest[0]!;
    rest = rest.slice(1);
  } else if (rest.length < 1) return info;
  info.version = rest[0]!;
  rest = rest.slice(1);
  if (rest.length === 0) return info; // /api/v1, /apis/g/v: discovery
  info.isResourceRequest = true;
  info.parts = rest;

  switch (method) {
    case 'POST':
      info.verb = 'create';
      break;
    case 'GET':
    case 'HEAD':
      info.verb = 'get';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = 'delete';
      break;
    default:
      info.verb = method.toLowerCase();
  }

  // namespaces/{ns}/{resource}... except namespaces/{name}[/status|finalize] themselves
  if (rest[0] === 'namespaces') {
    if (rest.length > 1) {
      info.namespace = rest[1]!;
      if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
    }
  }
  info.parts = rest;
  info.resource = rest[0] ?? '';
  if (rest.length >= 2) info.name = rest[1]!;
  if (rest.length >= 3) info.subresource = rest[2]!;

  if (rest.length === 1) {
    if (info.verb === 'get') {
      const w = query.get('watch');
      info.verb = w !== null && w !== 'false' && w !== '0' ? 'watch' : 'list';
    } else if (info.verb === 'delete') info.verb = 'deletecollection';
  }
  return info;
}

