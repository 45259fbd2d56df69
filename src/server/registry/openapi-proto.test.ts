// The gnostic OpenAPI v2 protobuf encoding, read back with an independent implementation (protobufjs) loaded with
// the message and field numbers of gnostic's openapiv2/OpenAPIv2.proto (the subset kubectl reads).
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { builtinResourceTypes } from './builtin.js';
import { buildOpenAPIV2 } from './openapi.js';
import { encodeOpenAPIV2Proto } from './openapi-proto.js';
import { builtinSchemas } from './schema/registry.js';

const PROTO = `syntax = "proto3";
package openapi.v2;
message Any { string yaml = 2; }
message NamedAny { string name = 1; Any value = 2; }
message Info { string title = 1; string version = 2; }
message TypeItem { repeated string value = 1; }
message ItemsItem { repeated Schema schema = 1; }
message AdditionalPropertiesItem { oneof oneof { Schema schema = 1; bool boolean = 2; } }
message Properties { repeated NamedSchema additional_properties = 1; }
message NamedSchema { string name = 1; Schema value = 2; }
message Definitions { repeated NamedSchema additional_properties = 1; }
message Schema {
  string _ref = 1; string format = 2; string description = 4; Any default = 5;
  repeated string required = 19; repeated Any enum = 20; AdditionalPropertiesItem additional_properties = 21;
  TypeItem type = 22; ItemsItem items = 23; Properties properties = 25; repeated NamedAny vendor_extension = 31;
}
message JsonReference { string _ref = 1; }
message QueryParameterSubSchema { bool required = 1; string in = 2; string name = 4; string type = 6; bool unique_items = 20; }
message PathParameterSubSchema { bool required = 1; string in = 2; string name = 4; string type = 5; }
message NonBodyParameter { oneof oneof { QueryParameterSubSchema query_parameter_sub_schema = 3; PathParameterSubSchema path_parameter_sub_schema = 4; } }
message BodyParameter { string name = 2; string in = 3; bool required = 4; Schema schema = 5; }
message Parameter { oneof oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
message ParametersItem { oneof oneof { Parameter parameter = 1; JsonReference json_reference = 2; } }
message SchemaItem { oneof oneof { Schema schema = 1; } }
message Response { string description = 1; SchemaItem schema = 2; }
message ResponseValue { oneof oneof { Response response = 1; JsonReference json_reference = 2; } }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message Responses { repeated NamedResponseValue response_code = 1; }
message Operation { repeated string tags = 1; string operation_id = 5; repeated string produces = 6; repeated ParametersItem parameters = 8; Responses responses = 9; repeated NamedAny vendor_extension = 13; }
message PathItem { Operation get = 2; Operation put = 3; Operation post = 4; Operation delete = 5; Operation patch = 8; repeated ParametersItem parameters = 9; }
message NamedPathItem { string name = 1; PathItem value = 2; }
message Paths { repeated NamedPathItem path = 2; }
message Document { string swagger = 1; Info info = 2; Paths paths = 8; Definitions definitions = 9; }
`;

const root = protobuf.parse(PROTO, { keepCase: true }).root;
const Document = root.lookupType('openapi.v2.Document');
const json = buildOpenAPIV2(builtinResourceTypes, builtinSchemas) as Record<string, any>;
const doc = Document.toObject(Document.decode(encodeOpenAPIV2Proto(json)), { defaults: false, arrays: true }) as Record<string, any>;
const definition = (name: string) => doc.definitions.additional_properties.find((d: any) => d.name === name)?.value;
const ext = (s: any, name: string) => {
  const e = (s.vendor_extension ?? []).find((x: any) => x.name === name);
  return e ? JSON.parse(e.value.yaml) : undefined;
};

describe('OpenAPI v2 as gnostic protobuf', () => {
  it('carries the document header and every definition', () => {
    expect(doc.swagger).toBe('2.0');
    expect(doc.info.title).toBe(json.info.title);
    expect(doc.definitions.additional_properties.map((d: any) => d.name)).toEqual(Object.keys(json.definitions));
  });

  it('keeps types, refs, required, items, maps and the x-kubernetes extensions kubectl reads', () => {
    const ingress = definition('io.k8s.api.networking.v1.Ingress');
    expect(ingress.type.value).toEqual(['object']);
    expect(ext(ingress, 'x-kubernetes-group-version-kind')).toEqual(json.definitions['io.k8s.api.networking.v1.Ingress']['x-kubernetes-group-version-kind']);
    const podSpec = definition('io.k8s.api.core.v1.PodSpec');
    expect(podSpec.required).toEqual(['containers']);
    const containers = podSpec.properties.additional_properties.find((p: any) => p.name === 'containers').value;
    expect(containers.type.value).toEqual(['array']);
    expect(containers.items.schema[0]._ref).toBe(json.definitions['io.k8s.api.core.v1.PodSpec'].properties.containers.items.$ref);
    expect(ext(containers, 'x-kubernetes-patch-merge-key')).toBe('name');
    expect(ext(containers, 'x-kubernetes-patch-strategy')).toBe('merge');
    const labels = definition('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta').properties.additional_properties.find((p: any) => p.name === 'labels').value;
    expect(labels.additional_properties.schema.type.value).toEqual(['string']);
  });

  it('encodes paths with operations, parameters and responses', () => {
    const path = '/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses/{name}';
    const item = doc.paths.path.find((p: any) => p.name === path)?.value;
    expect(item).toBeDefined();
    expect(item.get.operation_id).toBe(json.paths[path].get.operationId);
    expect(ext(item.get, 'x-kubernetes-action')).toBe('get');
    expect(item.get.responses.response_code.find((r: any) => r.name === '200').value.response.schema.schema._ref).toBe(json.paths[path].get.responses['200'].schema.$ref);
    const names = item.parameters.map((p: any) => p.parameter.non_body_parameter.path_parameter_sub_schema?.name ?? p.parameter.non_body_parameter.query_parameter_sub_schema?.name);
    expect(names).toEqual(json.paths[path].parameters.map((p: any) => p.name));
  });
});
