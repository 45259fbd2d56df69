#!/usr/bin/env node
// Adds the k8s.io.api.authorization.v1 messages (SubjectAccessReview, SelfSubjectAccessReview,
// LocalSubjectAccessReview, SelfSubjectRulesReview and their parts) to src/api/protobuf/descriptors.json.
// Field numbers are upstream's (kubernetes/kubernetes staging/src/k8s.io/api/authorization/v1/generated.proto,
// 1.33). Idempotent: run it again after regenerating descriptors.json with derive-proto.mjs.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'src/api/protobuf/descriptors.json');
const META = '.k8s.io.apimachinery.pkg.apis.meta.v1.';
const P = '.k8s.io.api.authorization.v1.';

const f = (type, id, opts = {}) => ({ type, id, ...opts });
const rep = (type, id) => ({ type, id, rule: 'repeated' });
const msg = (fields) => ({ edition: 'proto2', fields });
const review = (spec, status) => msg({ metadata: f(META + 'ObjectMeta', 1), spec: f(P + spec, 2), status: f(P + status, 3) });

const messages = {
  ExtraValue: msg({ items: rep('string', 1) }),
  FieldSelectorAttributes: msg({ rawSelector: f('string', 1), requirements: rep(P + 'FieldSelectorRequirement', 2) }),
  FieldSelectorRequirement: msg({ key: f('string', 1), operator: f('string', 2), values: rep('string', 3) }),
  LabelSelectorAttributes: msg({ rawSelector: f('string', 1), requirements: rep(META + 'LabelSelectorRequirement', 2) }),
  LocalSubjectAccessReview: review('SubjectAccessReviewSpec', 'SubjectAccessReviewStatus'),
  NonResourceAttributes: msg({ path: f('string', 1), verb: f('string', 2) }),
  NonResourceRule: msg({ verbs: rep('string', 1), nonResourceURLs: rep('string', 2) }),
  ResourceAttributes: msg({
    namespace: f('string', 1), verb: f('string', 2), group: f('string', 3), version: f('string', 4), resource: f('string', 5),
    subresource: f('string', 6), name: f('string', 7), fieldSelector: f(P + 'FieldSelectorAttributes', 8), labelSelector: f(P + 'LabelSelectorAttributes', 9),
  }),
  ResourceRule: msg({ verbs: rep('string', 1), apiGroups: rep('string', 2), resources: rep('string', 3), resourceNames: rep('string', 4) }),
  SelfSubjectAccessReview: review('SelfSubjectAccessReviewSpec', 'SubjectAccessReviewStatus'),
  SelfSubjectAccessReviewSpec: msg({ resourceAttributes: f(P + 'ResourceAttributes', 1), nonResourceAttributes: f(P + 'NonResourceAttributes', 2) }),
  SelfSubjectRulesReview: review('SelfSubjectRulesReviewSpec', 'SubjectRulesReviewStatus'),
  SelfSubjectRulesReviewSpec: msg({ namespace: f('string', 1) }),
  SubjectAccessReview: review('SubjectAccessReviewSpec', 'SubjectAccessReviewStatus'),
  SubjectAccessReviewSpec: msg({
    resourceAttributes: f(P + 'ResourceAttributes', 1), nonResourceAttributes: f(P + 'NonResourceAttributes', 2), user: f('string', 3),
    groups: rep('string', 4), extra: { type: P + 'ExtraValue', id: 5, keyType: 'string' }, uid: f('string', 6),
  }),
  // allowed and incomplete have no omitempty upstream: false is shown
  SubjectAccessReviewStatus: msg({ allowed: f('bool', 1, { options: { keep_zero: true } }), denied: f('bool', 4), reason: f('string', 2), evaluationError: f('string', 3) }),
  SubjectRulesReviewStatus: msg({
    resourceRules: rep(P + 'ResourceRule', 1), nonResourceRules: rep(P + 'NonResourceRule', 2),
    incomplete: f('bool', 3, { options: { keep_zero: true } }), evaluationError: f('string', 4),
  }),
};

const d = JSON.parse(readFileSync(file, 'utf8'));
const api = d.nested.k8s.nested.io.nested.api.nested;
api.authorization = { nested: { v1: { nested: messages } } };
writeFileSync(file, JSON.stringify(d));
console.log(`added ${Object.keys(messages).length} k8s.io.api.authorization.v1 messages to ${file}`);
