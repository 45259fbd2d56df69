// A KMS v2 plugin for tests: serves v2.KeyManagementService (Status, Encrypt, Decrypt) over a unix
// socket with local AES-GCM keys. It can rotate to a new key id (old ids keep decrypting), go down
// and come back on the same socket, and counts calls.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { kmsCodecs, KMS_SERVICE, type DecryptRequest, type EncryptRequest } from '../../src/server/encryption/kms-proto.js';

export interface TestKmsPlugin {
  readonly endpoint: string;
  readonly keyID: string;
  readonly calls: { status: number; encrypt: number; decrypt: number };
  /** While set, the plugin accepts calls and never answers (to exercise the client's timeout). */
  hang: boolean;
  rotate(): string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startKmsPlugin(socketPath: string): Promise<TestKmsPlugin> {
  const keys = new Map<string, Buffer>();
  let keyID = '';
  const rotate = () => {
    keyID = `key-${keys.size + 1}`;
    keys.set(keyID, randomBytes(32));
    return keyID;
  };
  rotate();
  const calls = { status: 0, encrypt: 0, decrypt: 0 };

  const unary = <Req, Res>(reqCodec: { decode(b: Uint8Array): Req }, resCodec: { encode(v: Partial<Res>): Buffer }, fn: (req: Req) => Partial<Res>) => ({
    path: '',
    requestStream: false,
    responseStream: false,
    requestDeserialize: (b: Buffer) => reqCodec.decode(b),
    responseSerialize: (v: Partial<Res>) => resCodec.encode(v),
    handler: (call: grpc.ServerUnaryCall<Req, Partial<Res>>, cb: grpc.sendUnaryData<Partial<Res>>) => {
      if (self.hang) return;
      try {
        cb(null, fn(call.request));
      } catch (e) {
        cb({ code: grpc.status.INVALID_ARGUMENT, details: (e as Error).message });
      }
    },
  });

  const service = {
    Status: unary(kmsCodecs.StatusRequest, kmsCodecs.StatusResponse, () => {
      calls.status++;
      return { version: 'v2', healthz: 'ok', key_id: keyID };
    }),
    Encrypt: unary(kmsCodecs.EncryptRequest, kmsCodecs.EncryptResponse, (req: EncryptRequest) => {
      calls.encrypt++;
      const nonce = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', keys.get(keyID)!, nonce);
      const ct = Buffer.concat([c.update(req.plaintext), c.final()]);
      return { ciphertext: Buffer.concat([nonce, ct, c.getAuthTag()]), key_id: keyID, annotations: { 'plugin.kms.example.com': Buffer.from('test') } };
    }),
    Decrypt: unary(kmsCodecs.DecryptRequest, kmsCodecs.DecryptResponse, (req: DecryptRequest) => {
      calls.decrypt++;
      const key = keys.get(req.key_id);
      if (!key) throw new Error(`unknown key id ${req.key_id}`);
      const ct = Buffer.from(req.ciphertext);
      const d = createDecipheriv('aes-256-gcm', key, ct.subarray(0, 12));
      d.setAuthTag(ct.subarray(ct.length - 16));
      return { plaintext: Buffer.concat([d.update(ct.subarray(12, ct.length - 16)), d.final()]) };
    }),
  };
  const definition = Object.fromEntries(Object.entries(service).map(([name, def]) => [name, { ...def, path: `${KMS_SERVICE}/${name}` }]));

  let server: grpc.Server | undefined;
  const start = async () => {
    rmSync(socketPath, { force: true });
    const s = new grpc.Server();
    s.addService(definition as unknown as grpc.ServiceDefinition, Object.fromEntries(Object.entries(definition).map(([n, d]) => [n, d.handler])) as grpc.UntypedServiceImplementation);
    await new Promise<void>((resolve, reject) => s.bindAsync(`unix:${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
    server = s;
  };
  const stop = async () => {
    server?.forceShutdown();
    server = undefined;
    rmSync(socketPath, { force: true });
  };
  await start();
  const self: TestKmsPlugin = {
    hang: false,
    endpoint: `unix://${socketPath}`,
    get keyID() {
      return keyID;
    },
    calls,
    rotate,
    stop,
    start,
  };
  return self;
}
