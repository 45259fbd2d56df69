// An in-process OTLP/gRPC trace receiver for tests: a grpc-js server with the one TraceService/Export method,
// decoding requests with protobufjs from a minimal subset of opentelemetry-proto.
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';

const PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { Scope scope = 1; repeated Span spans = 2; }
message Scope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
  fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9;
  repeated Event events = 11; Status status = 15;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; } }
`;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  service: string;
}

const hex = (b64: string | undefined) => Buffer.from(b64 ?? '', 'base64').toString('hex');

function attrs(list: any[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const kv of list ?? []) {
    const v = kv.value ?? {};
    out[kv.key] = v.stringValue ?? v.boolValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.doubleValue);
  }
  return out;
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server = new grpc.Server();
  port = 0;

  async start(): Promise<this> {
    const Req = protobuf.parse(PROTO).root.lookupType('otlp.ExportTraceServiceRequest');
    this.server.addService(
      {
        Export: {
          path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
          requestStream: false,
          responseStream: false,
          requestDeserialize: (b: Buffer) => Req.toObject(Req.decode(b), { longs: String, bytes: String, defaults: false }),
          requestSerialize: (x: unknown) => x as Buffer,
          responseSerialize: () => Buffer.alloc(0),
          responseDeserialize: (x: Buffer) => x,
        },
      } as grpc.ServiceDefinition,
      {
        Export: (call: grpc.ServerUnaryCall<any, unknown>, cb: grpc.sendUnaryData<unknown>) => {
          for (const rs of call.request.resourceSpans ?? []) {
            const service = String(attrs(rs.resource?.attributes)['service.name'] ?? '');
            for (const ss of rs.scopeSpans ?? [])
              for (const s of ss.spans ?? [])
                this.spans.push({ traceId: hex(s.traceId), spanId: hex(s.spanId), parentSpanId: hex(s.parentSpanId), name: s.name, kind: s.kind ?? 0, attributes: attrs(s.attributes), service });
          }
          cb(null, {});
        },
      },
    );
    this.port = await new Promise<number>((res, rej) => this.server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));
    return this;
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.tryShutdown(() => r()));
  }
}
