// The deadline of requests that are not long-running, as upstream's timeout filter
// (k8s.io/apiserver pkg/server/filters/timeout.go): --request-timeout (1m), shortened by the client's
// `?timeout=`; past it a 504 Timeout Status if nothing was written yet, otherwise the connection is cut.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../../api/status.js';
import { parseDuration as parseGoDuration } from '../../config/formats.js';
import { enterRequestDeadline } from './deadline-context.js';
import { writeError } from './respond.js';

export interface Deadline {
  clear(): void;
}

export function requestDeadline(req: IncomingMessage, res: ServerResponse, query: URLSearchParams, maxMs: number, abort: () => void): Deadline | undefined {
  let ms = maxMs;
  const given = query.get('timeout');
  if (given !== null && given !== '') {
    const parsed = parseGoDuration(given);
    // upstream: "invalid timeout specified in the request URL"
    if (parsed === undefined) throw errors.badRequest(`invalid timeout specified in the request URL: ${JSON.stringify(given.slice(0, 100))}`);
    if (parsed > 0 && (ms <= 0 || parsed < ms)) ms = parsed;
  }
  if (ms <= 0) return undefined;
  // the rest of this request's handling (same async context) sees its deadline
  enterRequestDeadline(Date.now() + ms);
  const timer = setTimeout(() => {
    if (res.writableEnded) return;
    abort();
    if (res.headersSent) res.destroy();
    else {
      res.setHeader('Connection', 'close');
      writeError(req, res, errors.timeout('request did not complete within requested timeout - context deadline exceeded', 0));
    }
  }, Math.min(ms, 2 ** 31 - 1));
  timer.unref();
  return { clear: () => clearTimeout(timer) };
}
