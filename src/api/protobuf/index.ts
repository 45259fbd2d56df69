// Kubernetes protobuf wire codec (application/vnd.service.protobuf, alias application/vnd.kubernetes.protobuf).
export {
  PROTOBUF_PREFIX,
  ProtobufError,
  decodeProtobufEnvelope,
  decodeProtobufObject,
  decodeProtobufRaw,
  encodeListFromItems,
  encodeProtobufEnvelope,
  encodeProtobufObject,
  encodeProtobufRaw,
  hasProtobufPrefix,
  type JsonObject,
  type ProtobufEnvelope,
} from './codec.js';
export { hasProtobufType } from './kinds.js';
export {
  ProtobufFrameReader,
  decodeProtobufWatchEvent,
  encodeProtobufWatchEvent,
  encodeProtobufWatchFrame,
  type DecodedWatchEvent,
} from './watch.js';
