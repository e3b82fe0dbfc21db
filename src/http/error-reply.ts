// What the front answers when a request fails: a ProblemError as it is, a client that went
// away, a dependency outage (503 with Retry-After, logged without a stack trace), anything
// else as a logged 500. Formatted as problem+json unless the matched path speaks another
// error format (RouteDef.errorReply, the token endpoint's RFC 6749 errors).
import type { Logger } from 'pino';
import { ClientAbortedError } from './body.js';
import type { Exchange } from './exchange.js';
import { ProblemError, problem, problems, toProblemBody } from './problem.js';
import type { Reply } from './route.js';
import { DependencyUnavailableError } from '../errors/dependency-unavailable.js';

export function errorReply(err: unknown, ex: Exchange, logger: Logger): Reply {
  let refusal: ProblemError;
  if (err instanceof ProblemError) refusal = err;
  else if (err instanceof ClientAbortedError) refusal = problem('client_aborted', err.message);
  else if (err instanceof DependencyUnavailableError) {
    // An outage, not a bug: 503 with Retry-After, logged without a stack trace.
    logger.warn({ requestId: ex.requestId, path: ex.path, dependency: err.dependency, reason: err.reason }, 'dependency unreachable');
    refusal = problems.dependencyUnavailable(err);
  } else {
    logger.error({ err, requestId: ex.requestId, path: ex.path }, 'unhandled error');
    refusal = problems.internal();
  }
  if (ex.errorFormat) return ex.errorFormat(refusal);
  return {
    status: refusal.status,
    headers: refusal.headers,
    contentType: 'application/problem+json',
    json: toProblemBody(refusal, ex.path, ex.requestId),
  };
}
