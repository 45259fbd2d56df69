// int64 parameters (timeoutSeconds, gracePeriodSeconds, ...): what Go's strconv.ParseInt and
// encoding/json accept, with their messages; JS numbers past 2^53 are only compared, never used exactly.
import { errors } from '../../../api/status.js';

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** A query parameter as strconv.ParseInt(v, 10, 64): 400 on bad syntax or out of range. */
export function parseInt64Query(name: string, v: string): number {
  if (!/^[+-]?\d+$/.test(v)) throw errors.badRequest(`${name}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = BigInt(v);
  if (n > INT64_MAX || n < INT64_MIN) throw errors.badRequest(`${name}: strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return Number(n);
}

/** True when a decoded JSON number fits an int64 field (integral, in range). */
export function isInt64(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 63) && v < 2 ** 63;
}
