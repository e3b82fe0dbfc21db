// The urlencoded body of a dashboard form, for the sign-in forms and the pages alike: read up
// to a limit, decoded as strict UTF-8 (bytes that are not are refused, never replaced), and
// text only — a field, or a field's name, holding NUL is a 400 naming it, never passed on.
import { problems, type ProblemError } from '../http/problem.js';
import { bodyText } from '../http/parsed-body.js';
import { notText } from '../http/text-rules.js';
import type { RequestContext } from '../http/route.js';

const FORM_TYPE = 'application/x-www-form-urlencoded';

/** The form's fields, in order; 415 for another media type, 400 for a body that is not UTF-8 or a field name that is not text. */
export async function readFormBody(ctx: RequestContext, maxBytes: number): Promise<URLSearchParams> {
  const type = (ctx.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== FORM_TYPE) throw problems.unsupportedMediaType(FORM_TYPE);
  const raw = ctx.bodyStream ? await ctx.bodyStream.readAll(maxBytes) : Buffer.alloc(0);
  const fields = new URLSearchParams(bodyText(raw));
  for (const name of fields.keys()) {
    const reason = notText(name);
    if (reason) throw problems.invalidParameter(name, `A form field's name contains ${reason}.`);
  }
  return fields;
}

/** 400 naming the field when its value is not text (it holds NUL), or null. */
export function fieldNotText(name: string, value: string): ProblemError | null {
  const reason = notText(value);
  return reason ? problems.invalidParameter(name, `The field ${JSON.stringify(name)} contains ${reason}.`) : null;
}
