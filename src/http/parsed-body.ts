// A route's buffered body (BodySpec 'json' or 'form'): read whole up to its limit, checked
// against the declared media type, parsed and validated against the route's schema. Raw
// bodies are not read here: their handler streams ctx.bodyStream itself.
import type { BodyStream } from './body.js';
import { problems } from './problem.js';
import type { BodySpec } from './route.js';
import { validateBody } from './validation.js';

/** Bytes a buffered body may take when its route names no limit. */
const DEFAULT_MAX_BYTES = 1 << 20;

export async function readParsedBody(spec: Exclude<BodySpec, { kind: 'raw' }>, body: BodyStream | null, contentType: string | undefined): Promise<unknown> {
  const raw = body ? await body.readAll(spec.maxBytes ?? DEFAULT_MAX_BYTES) : Buffer.alloc(0);
  return validateBody(spec.schema, parseBody(spec.kind, raw, contentType));
}

function parseBody(kind: 'json' | 'form', raw: Buffer, contentType: string | undefined): unknown {
  const ct = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (kind === 'json') {
    if (ct && ct !== 'application/json' && !ct.endsWith('+json')) {
      throw problems.unsupportedMediaType('application/json');
    }
    if (raw.length === 0) throw problems.invalidParameter('body', 'A JSON request body is required.');
    try {
      return JSON.parse(raw.toString('utf8'));
    } catch (e) {
      throw problems.invalidParameter('body', `The request body is not valid JSON: ${(e as Error).message}`);
    }
  }
  if (ct !== 'application/x-www-form-urlencoded') {
    throw problems.unsupportedMediaType('application/x-www-form-urlencoded');
  }
  const form: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) form[k] = v;
  return form;
}
