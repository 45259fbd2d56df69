// Rules of AuthorizationConfiguration that span fields: authorizer names and types, webhook
// durations, the connection file path, and match conditions compiled against `request`.

import { compileCel } from './cel.js';
import { dns1123LabelErrors, isAbsolutePath, parseDuration } from './formats.js';
import { AUTHORIZER_TYPES, MAX_MATCH_CONDITIONS } from './model.js';
import { child, duplicate, index, invalid, required, type ConfigProblem } from './problems.js';
import { asList, asObject, asString } from './structural.js';

/** Authorizer types that may appear more than once in the chain. */
const REPEATABLE_TYPES = new Set(['Webhook']);
const MAX_TIMEOUT_MS = 30_000;

export function authorizationRules(doc: Record<string, unknown>, out: ConfigProblem[]): void {
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  asList(doc.authorizers).forEach((item, i) => {
    const a = asObject(item);
    if (!a) return;
    const path = index('authorizers', i);
    const type = asString(a.type);
    const known = type !== undefined && (AUTHORIZER_TYPES as readonly string[]).includes(type);
    if (known) {
      if (seenTypes.has(type) && !REPEATABLE_TYPES.has(type)) out.push(duplicate(child(path, 'type'), type));
      seenTypes.add(type);
    }

    const name = asString(a.name);
    if (name) {
      if (seenNames.has(name)) out.push(duplicate(child(path, 'name'), name));
      else {
        const errs = dns1123LabelErrors(name);
        if (errs.length > 0) out.push(invalid(child(path, 'name'), name, `authorizer name is invalid: ${errs.join(', ')}`));
      }
      seenNames.add(name);
    }

    const webhook = asObject(a.webhook);
    if (type === 'Webhook' && webhook) webhookRules(webhook, child(path, 'webhook'), out);
  });
}

function durationRule(value: unknown, path: string, max: number | undefined, out: ConfigProblem[]): void {
  if (typeof value !== 'string') return;
  const ms = parseDuration(value);
  if (ms === undefined) return; // reported by the structural pass
  if (ms === 0) out.push(required(path));
  else if (max !== undefined && (ms < 0 || ms > max)) out.push(invalid(path, value, 'must be > 0s and <= 30s'));
  else if (ms < 0) out.push(invalid(path, value, 'must be > 0s'));
}

function webhookRules(w: Record<string, unknown>, path: string, out: ConfigProblem[]): void {
  durationRule(w.timeout, child(path, 'timeout'), MAX_TIMEOUT_MS, out);
  durationRule(w.authorizedTTL, child(path, 'authorizedTTL'), undefined, out);
  durationRule(w.unauthorizedTTL, child(path, 'unauthorizedTTL'), undefined, out);

  const conn = asObject(w.connectionInfo);
  if (conn) {
    for (const field of ['serviceConfigFile', 'kubeConfigFile']) {
      const file = asString(conn[field]);
      if (file && !isAbsolutePath(file)) out.push(invalid(child(path, `connectionInfo.${field}`), file, 'must be an absolute path'));
    }
  }

  const conditions = asList(w.matchConditions);
  if (conditions.length > MAX_MATCH_CONDITIONS) return; // Too many: reported by the structural pass
  const seen = new Set<string>();
  conditions.forEach((item, i) => {
    const expression = asString(asObject(item)?.expression);
    if (!expression) return;
    const p = child(index(child(path, 'matchConditions'), i), 'expression');
    if (expression.trim() === '') {
      out.push(required(p));
      return;
    }
    if (seen.has(expression)) {
      out.push(duplicate(p, expression));
      return;
    }
    seen.add(expression);
    const compiled = compileCel('matchCondition', expression);
    if (!compiled.ok) out.push(invalid(p, expression, compiled.message));
  });
}
