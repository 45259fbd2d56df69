// KMS v2 wire types: the plugin gRPC API (k8s.io/kms/apis/v2/api.proto, package v2) and the
// EncryptedObject stored after `k8s:enc:kms:v2:<name>:`
// (k8s.io/apiserver/pkg/storage/value/encrypt/envelope/kmsv2/v2/api.proto). Field numbers as upstream.
// Used by the server's KMS client and by test plugins.
import protobuf from 'protobufjs';

const PROTO = `
syntax = "proto3";
package v2;
service KeyManagementService {
  rpc Status(StatusRequest) returns (StatusResponse) {}
  rpc Decrypt(DecryptRequest) returns (DecryptResponse) {}
  rpc Encrypt(EncryptRequest) returns (EncryptResponse) {}
}
message StatusRequest {}
message StatusResponse { string version = 1; string healthz = 2; string key_id = 3; }
message DecryptRequest { bytes ciphertext = 1; string uid = 2; string key_id = 3; map<string, bytes> annotations = 4; }
message DecryptResponse { bytes plaintext = 1; }
message EncryptRequest { bytes plaintext = 1; string uid = 2; }
message EncryptResponse { bytes ciphertext = 1; string key_id = 2; map<string, bytes> annotations = 3; }
enum EncryptedDEKSourceType { AES_GCM_KEY = 0; HKDF_SHA256_XNONCE_AES_GCM_SEED = 1; }
message EncryptedObject {
  bytes encryptedData = 1;
  string keyID = 2;
  bytes encryptedDEKSource = 3;
  map<string, bytes> annotations = 4;
  EncryptedDEKSourceType encryptedDEKSourceType = 5;
}
`;

const root = protobuf.parse(PROTO, { keepCase: true }).root;

export interface StatusResponse {
  version: string;
  healthz: string;
  key_id: string;
}
export interface DecryptRequest {
  ciphertext: Uint8Array;
  uid: string;
  key_id: string;
  annotations: Record<string, Uint8Array>;
}
export interface DecryptResponse {
  plaintext: Uint8Array;
}
export interface EncryptRequest {
  plaintext: Uint8Array;
  uid: string;
}
export interface EncryptResponse {
  ciphertext: Uint8Array;
  key_id: string;
  annotations: Record<string, Uint8Array>;
}
export const DEK_SOURCE_AES_GCM_KEY = 0;
export const DEK_SOURCE_HKDF_SEED = 1;
export interface EncryptedObject {
  encryptedData: Uint8Array;
  keyID: string;
  encryptedDEKSource: Uint8Array;
  annotations: Record<string, Uint8Array>;
  encryptedDEKSourceType: number;
}

/** Encoder and decoder of one message type; decoding fills proto3 defaults. */
export interface Codec<T> {
  encode(value: Partial<T>): Buffer;
  decode(bytes: Uint8Array): T;
}

function codec<T>(name: string): Codec<T> {
  const type = root.lookupType(`v2.${name}`);
  return {
    encode: (value) => Buffer.from(type.encode(type.fromObject(value as Record<string, unknown>)).finish()),
    decode: (bytes) => type.toObject(type.decode(bytes), { defaults: true, enums: Number, bytes: Uint8Array as unknown as typeof String }) as T,
  };
}

export const kmsCodecs = {
  StatusRequest: codec<Record<string, never>>('StatusRequest'),
  StatusResponse: codec<StatusResponse>('StatusResponse'),
  DecryptRequest: codec<DecryptRequest>('DecryptRequest'),
  DecryptResponse: codec<DecryptResponse>('DecryptResponse'),
  EncryptRequest: codec<EncryptRequest>('EncryptRequest'),
  EncryptResponse: codec<EncryptResponse>('EncryptResponse'),
  EncryptedObject: codec<EncryptedObject>('EncryptedObject'),
};

export const KMS_SERVICE = '/v2.KeyManagementService';
