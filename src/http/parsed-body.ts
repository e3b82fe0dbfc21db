// A route's buffered body (BodySpec 'json' or 'form'): read whole up to its limit, checked
// against the declared media type, decoded as strict UTF-8 (bytes that are not are refused,
// never replaced), parsed and validated against the route's schema. Raw bodies are not read
// here: their handler streams ctx.bodyStream itself (parseJsonBody for a JSON one).
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
    return parseJsonBody(raw);
  }
  if (ct !== 'application/x-www-form-urlencoded') {
    throw problems.unsupportedMediaType('application/x-www-form-urlencoded');
  }
  const form: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(bodyText(raw))) form[k] = v;
  return form;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text; 400 when it is not UTF-8. */
export function bodyText(raw: Buffer): string {
  try {
    return UTF8.decode(raw);
  } catch {
    throw problems.invalidParameter('body', 'The request body is not valid UTF-8.');
  }
}

/** A JSON body (non-empty, UTF-8), parsed; 400 naming the body otherwise. Validate it with validateBody. */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) throw problems.invalidParameter('body', 'A JSON request body is required.');
  const text = bodyText(raw);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw problems.invalidParameter('body', `The request body is not valid JSON: ${(e as Error).message}`);
  }
}
