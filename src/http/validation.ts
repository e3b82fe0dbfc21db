// Request validation from the same TypeBox schemas that the OpenAPI document is built from.
// Query strings are coerced to the schema's types; string enums match case-insensitively
// and ignore '_' and '-' (so SHP_ZIP = ShpZip, PostgreSQL = PostgreSql). Every value checked
// here — path, query, JSON and form bodies, the dashboard's in-process calls — is refused
// first if it holds NUL or half a surrogate pair (text-rules.ts), wherever it is.
import { Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { problems } from './problem.js';
import { displayNameProblem, findNotText, normalizeDisplayName } from './text-rules.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const ajv = new Ajv({ allErrors: false, coerceTypes: false, useDefaults: true, strict: true });
addFormats(ajv);
ajv.addKeyword({ keyword: 'x-enum-aliases' });
ajv.addKeyword({ keyword: 'example' });

/** Marks a string schema as a display name (DisplayName in src/manage/api/schemas.ts). */
export const DISPLAY_NAME_KEYWORD = 'x-display-name';

/** The display-name rule (text-rules.ts) as a keyword: refuses, or stores the name in NFC without surrounding space. */
const checkDisplayName: SchemaValidateFunction = (_on: boolean, data: string, _parent, cxt) => {
  const name = normalizeDisplayName(data);
  const problem = displayNameProblem(name);
  if (problem) {
    checkDisplayName.errors = [{ keyword: DISPLAY_NAME_KEYWORD, message: problem, params: {} }];
    return false;
  }
  if (cxt?.parentData) (cxt.parentData as Record<string | number, unknown>)[cxt.parentDataProperty] = name;
  return true;
};
ajv.addKeyword({ keyword: DISPLAY_NAME_KEYWORD, type: 'string', schemaType: 'boolean', modifying: true, errors: true, validate: checkDisplayName });

/** A string enum schema; `aliases` maps extra accepted spellings to canonical values. */
export function StringEnum<T extends string>(values: readonly T[], opts: { description?: string; aliases?: Record<string, T>; default?: T } = {}) {
  return Type.Unsafe<T>({
    type: 'string',
    enum: [...values],
    ...(opts.description ? { description: `${opts.description} Matched case-insensitively.` } : { description: 'Matched case-insensitively.' }),
    ...(opts.aliases ? { 'x-enum-aliases': opts.aliases } : {}),
    ...(opts.default !== undefined ? { default: opts.default } : {}),
  });
}

const fold = (s: string) => s.toLowerCase().replace(/[_\-\s]/g, '');

/** Maps an enum spelling to its canonical value, or returns the input unchanged. */
export function canonicalEnum(schema: Record<string, unknown>, input: string): string {
  const values = schema.enum as string[] | undefined;
  if (!values) return input;
  const f = fold(input);
  const hit = values.find((v) => fold(v) === f);
  if (hit) return hit;
  const aliases = schema['x-enum-aliases'] as Record<string, string> | undefined;
  if (aliases) {
    for (const [alias, canonical] of Object.entries(aliases)) if (fold(alias) === f) return canonical;
  }
  return input;
}

const compiled = new WeakMap<TSchema, ValidateFunction>();
function validator(schema: TSchema): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    compiled.set(schema, v);
  }
  return v;
}

/** Compiles eagerly so a bad schema fails at boot, not on the first request. */
export function precompile(schema: TSchema): void {
  validator(schema);
}

function describeError(e: ErrorObject, where: string, schema: TSchema): never {
  if (e.keyword === 'additionalProperties') {
    const name = String((e.params as { additionalProperty: string }).additionalProperty);
    const known = Object.keys((schema as TObject).properties ?? {});
    throw problems.invalidParameter(
      name,
      `Unknown ${where} parameter ${JSON.stringify(name)}.${known.length ? ` Known parameters: ${known.join(', ')}.` : ''}`,
    );
  }
  if (e.keyword === 'required') {
    const name = String((e.params as { missingProperty: string }).missingProperty);
    const prop = (schema as TObject).properties?.[name] as Record<string, unknown> | undefined;
    const allowed = prop?.enum as string[] | undefined;
    throw problems.invalidParameter(
      name,
      `The ${where} parameter ${JSON.stringify(name)} is required.${allowed ? ` Allowed values: ${allowed.join(', ')}.` : ''}`,
      allowed,
    );
  }
  const name = e.instancePath.replace(/^\//, '').split('/')[0] || where;
  if (e.keyword === 'enum') {
    const allowed = (e.params as { allowedValues: string[] }).allowedValues;
    throw problems.invalidParameter(name, `${JSON.stringify(name)} must be one of: ${allowed.join(', ')}.`, allowed);
  }
  throw problems.invalidParameter(name, `${JSON.stringify(name)} ${e.message ?? 'is invalid'}.`);
}

/** Refuses a value that holds NUL or an unpaired surrogate anywhere, naming the parameter. */
function refuseNotText(value: unknown, where: string): void {
  const found = findNotText(value);
  if (!found) return;
  const name = found.path.length ? String(found.path[0]) : where;
  const at = found.path.length > 1 ? ` (at ${found.path.join('/')})` : '';
  throw problems.invalidParameter(
    name,
    `The ${where} parameter ${JSON.stringify(name)}${at} contains ${found.reason}; no text here may hold NUL or half of a surrogate pair.`,
  );
}

/** Validates a parsed JSON/form body, path or query (mutates it to apply defaults and normalise display names). */
export function validateBody<T>(schema: TSchema, body: unknown, where = 'body'): T {
  refuseNotText(body, where);
  const v = validator(schema);
  if (!v(body)) describeError(v.errors![0], where, schema);
  return body as T;
}

/**
 * Turns a raw query string (without '?') into a typed object following the schema's property
 * types, then validates it. Parsed by hand rather than through URLSearchParams: this runs on
 * every request, and the hand-rolled loop allocates only the result (values are decoded only
 * when they contain '%' or '+'). Semantics follow application/x-www-form-urlencoded.
 */
export function parseQuery<T>(schema: TObject | undefined, qs: string): T {
  const out: Record<string, unknown> = {};
  if (qs.length > 0) {
    const props = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
    let start = 0;
    while (start <= qs.length) {
      let end = qs.indexOf('&', start);
      if (end < 0) end = qs.length;
      if (end > start) {
        const eq = qs.indexOf('=', start);
        const hasValue = eq >= 0 && eq < end;
        const key = decodeComponent(qs.slice(start, hasValue ? eq : end));
        const raw = hasValue ? decodeComponent(qs.slice(eq + 1, end)) : '';
        if (Object.hasOwn(out, key)) throw problems.invalidParameter(key, `Query parameter ${JSON.stringify(key)} was given more than once; give it once.`);
        const prop = Object.hasOwn(props, key) ? props[key] : undefined;
        if (!prop) {
          const known = Object.keys(props);
          throw problems.invalidParameter(
            key,
            `Unknown query parameter ${JSON.stringify(key)}.${known.length ? ` Known parameters: ${known.join(', ')}.` : ' This endpoint takes no query parameters.'}`,
          );
        }
        out[key] = coerce(key, prop, raw);
      }
      start = end + 1;
    }
  }
  if (schema) validateBody(schema, out, 'query');
  return out as T;
}

/** Form-urlencoded decoding of one name or value: '+' is a space; bad escapes stay as sent. */
function decodeComponent(s: string): string {
  const plus = s.indexOf('+') >= 0;
  if (!plus && s.indexOf('%') < 0) return s;
  const spaced = plus ? s.replace(/\+/g, ' ') : s;
  try {
    return decodeURIComponent(spaced);
  } catch {
    // Malformed escapes or invalid UTF-8: decode as URLSearchParams does (lenient).
    return new URLSearchParams(`a=${s}`).get('a') ?? s;
  }
}

function coerce(key: string, prop: Record<string, unknown>, raw: string): unknown {
  switch (prop.type) {
    case 'integer':
      if (!/^-?\d+$/.test(raw)) throw problems.invalidParameter(key, `${JSON.stringify(key)} must be a whole number.`);
      return Number(raw);
    case 'number':
      if (raw.trim() === '' || !Number.isFinite(Number(raw))) throw problems.invalidParameter(key, `${JSON.stringify(key)} must be a number.`);
      return Number(raw);
    case 'boolean': {
      const v = raw.toLowerCase();
      if (v === 'true' || v === '1' || v === '') return true;
      if (v === 'false' || v === '0') return false;
      throw problems.invalidParameter(key, `${JSON.stringify(key)} must be true or false.`, ['true', 'false']);
    }
    default:
      return prop.enum ? canonicalEnum(prop, raw) : raw;
  }
}
