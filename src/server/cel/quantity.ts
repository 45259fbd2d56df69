// The Quantity CEL type (upstream k8s.io/apiserver/pkg/cel/library quantity.go over resource.Quantity): exact
// amounts in nano-units, as resource.Quantity is exact down to 1n.
import { QUANTITY_ERROR, formatNanos, isBinaryQuantity, isValidQuantity, quantityNanos } from '../registry/schema/quantity.js';

const NANO = 1_000_000_000n;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

export class Quantity {
  constructor(
    readonly nanos: bigint,
    /** keeps the BinarySI format of its input (upstream's result formatting) */
    readonly binary = false,
  ) {}
  toString(): string {
    return formatNanos(this.nanos, this.binary);
  }
  /** resource.Quantity.AsInt64: integral and within int64. */
  asInt64(): bigint | undefined {
    if (this.nanos % NANO !== 0n) return undefined;
    const v = this.nanos / NANO;
    return v > INT64_MAX || v < INT64_MIN ? undefined : v;
  }
}

export function parseQuantityValue(s: string): Quantity {
  // resource.ParseQuantity: a leading/trailing space or anything off the grammar is refused
  const n = isValidQuantity(s) ? quantityNanos(s) : undefined;
  if (n === undefined) throw new Error(QUANTITY_ERROR);
  return new Quantity(n, isBinaryQuantity(s));
}

export function isQuantity(s: string): boolean {
  return isValidQuantity(s);
}

export const compareQuantities = (a: Quantity, b: Quantity): bigint => (a.nanos < b.nanos ? -1n : a.nanos > b.nanos ? 1n : 0n);
