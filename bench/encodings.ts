// Encode and decode of a 10k-pod list in JSON, YAML, CBOR, Protobuf and Table: MB/s and bytes,
// beside JSON.stringify / JSON.parse of the same data as the ceiling.
import { parse as yamlParse, stringify as yamlStringify } from 'yaml';
import { decodeCbor, encodeCbor } from '../src/api/cbor.js';
import { yamlEncodeBuffer } from '../src/api/yaml-emit.js';
import { decodeYamlWithDuplicates } from '../src/server/http/body.js';
import { decodeProtobufObject, encodeProtobufObject } from '../src/api/protobuf/index.js';
import { builtinResourceTypes } from '../src/server/registry/builtin.js';
import { toTable } from '../src/server/http/table.js';
import { benchPod } from './lib/pods.js';

const N = Number(process.env.BENCH_ENCODE_PODS ?? 10000);

function time(fn: () => unknown, runs = 3): { ms: number; out: unknown } {
  let best = Infinity;
  let out: unknown;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    out = fn();
    best = Math.min(best, performance.now() - t0);
  }
  return { ms: best, out };
}

export async function benchEncodings(): Promise<void> {
  const items = Array.from({ length: N }, (_, i) => benchPod(i));
  const list = { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items };
  const podType = builtinResourceTypes.find((t) => t.kind === 'Pod')!;
  const enc = time(() => JSON.stringify(list));
  const jsonText = enc.out as string;
  const jsonBytes = Buffer.byteLength(jsonText);
  const dec = time(() => JSON.parse(jsonText));
  const mb = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);
  let ceilEnc = mb(jsonBytes, enc.ms);
  let ceilDec = mb(jsonBytes, dec.ms);
  const report = (name: string, bytes: number, encMs: number, decMs: number | undefined) => {
    // the ceiling is timed again right after each format: on a shared machine the load moves
    // within a run, and a ceiling from minutes earlier made the ratios drift with it
    if (name !== 'json') {
      ceilEnc = mb(jsonBytes, time(() => JSON.stringify(list)).ms);
      ceilDec = mb(jsonBytes, time(() => JSON.parse(jsonText)).ms);
    }
    // MB/s of the JSON-equivalent payload, so formats compare on the same data
    const e = mb(jsonBytes, encMs);
    console.log(`encodings ${name} encode ${e.toFixed(0)} MB/s (ceiling ${ceilEnc.toFixed(0)} MB/s, ratio ${(e / ceilEnc).toFixed(2)}) size ${(bytes / 1e6).toFixed(1)} MB (json ${(jsonBytes / 1e6).toFixed(1)} MB)`);
    if (decMs !== undefined) {
      const d = mb(jsonBytes, decMs);
      console.log(`encodings ${name} decode ${d.toFixed(0)} MB/s (ceiling ${ceilDec.toFixed(0)} MB/s, ratio ${(d / ceilDec).toFixed(2)})`);
    }
  };
  report('json', jsonBytes, enc.ms, dec.ms);
  // the server's YAML emitter writes bytes (what a response sends); its output must be the yaml library's
  const y = time(() => yamlEncodeBuffer(list));
  const yText = (y.out as Buffer).toString('utf8');
  if (yText !== yamlStringify(list, { lineWidth: 0, aliasDuplicateObjects: false })) throw new Error('yaml emitter output differs from the yaml library');
  // decode as a request body is decoded (value and duplicate fields), which must read as the library does
  const yBytes = y.out as Buffer;
  const yDec = time(() => decodeYamlWithDuplicates(yBytes));
  if (JSON.stringify((yDec.out as { value: unknown }).value) !== JSON.stringify(yamlParse(yText))) throw new Error('yaml decoder value differs from the yaml library');
  report('yaml', yBytes.length, y.ms, yDec.ms);
  const c = time(() => encodeCbor(list));
  const cBytes = c.out as Uint8Array;
  report('cbor', cBytes.length, c.ms, time(() => decodeCbor(cBytes)).ms);
  const p = time(() => encodeProtobufObject(list));
  const pBytes = p.out as Uint8Array;
  report('protobuf', pBytes.length, p.ms, time(() => decodeProtobufObject(pBytes)).ms);
  const t = time(() => JSON.stringify(toTable(items, podType, { includeObject: 'Metadata', metaGroup: 'meta.service.io' })));
  report('table (json)', Buffer.byteLength(t.out as string), t.ms, undefined);
}
