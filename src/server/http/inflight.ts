// Requests in flight, as upstream's max-in-flight filter (k8s.io/apiserver pkg/server/filters/maxinflight.go):
// separate budgets for reads and mutations; over budget → 429 TooManyRequests with Retry-After: 1.
// Long-running requests (watches) and health checks are not counted.
import { errors } from '../../api/status.js';

/** kube-apiserver defaults of --max-requests-inflight and --max-mutating-requests-inflight. */
export const DEFAULT_MAX_REQUESTS_INFLIGHT = 400;
export const DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT = 200;

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class InflightLimiter {
  private reads = 0;
  private writes = 0;

  /** 0 disables a budget, as upstream. */
  constructor(
    readonly maxReads: number,
    readonly maxMutating: number,
  ) {}

  /** Takes a slot or throws 429; the returned function gives it back (once). */
  acquire(method: string): () => void {
    const mutating = MUTATING.has(method);
    if (mutating) {
      if (this.maxMutating > 0 && this.writes >= this.maxMutating) throw tooMany();
      this.writes++;
    } else {
      if (this.maxReads > 0 && this.reads >= this.maxReads) throw tooMany();
      this.reads++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (mutating) this.writes--;
      else this.reads--;
    };
  }

  get inFlight(): { reads: number; mutating: number } {
    return { reads: this.reads, mutating: this.writes };
  }
}

function tooMany() {
  return errors.tooManyRequests('Too many requests, please try again later.', 1);
}
