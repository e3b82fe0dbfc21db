// Request validation from the same TypeBox schemas that the OpenAPI document is built from.
// Query strings are coerced to the schema's types; string enums match case-insensitively
// and ignore '_' and '-' (so SHP_ZIP = ShpZip, PostgreSQL = PostgreSql).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { problems } from './problem.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const ajv = new Ajv({ allErrors: false, coerceTypes: false, useDefaults: true, strict: true });
addFormats(ajv);
ajv.addKeyword({ keyword: 'x-enum-aliases' });
ajv.addKeyword({ keyword: 'example' });

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
    throw problems.invalidParameter(name, `The ${where} parameter ${JSON.stringify(name)} is required.${allowed ? ` Allowed values: ${allowed.join(', ')}.` : ''}`, allowed);
  }
  const name = e.instancePath.replace(/^\//, '').split('/')[0] || where;
  if (e.keyword === 'enum') {
    const allowed = (e.params as { allowedValues: string[] }).allowedValues;
    throw problems.invalidParameter(name, `${JSON.stringify(name)} must be one of: ${allowed.join(', ')}.`, allowed);
  }
  throw problems.invalidParameter(name, `${JSON.stringify(name)} ${e.message ?? 'is invalid'}.`);
}

/** Validates a parsed JSON/form body (mutates it to apply defaults). */
export function validateBody<T>(schema: TSchema, body: unknown, where = 'body'): T {
  const v = validator(schema);
  if (!v(body)) describeError(v.errors![0], where, schema);
  return body as T;
}

/** Turns a query string into a typed object following the schema's property types. */
export function parseQuery<T>(schema: TObject | undefined, qs: URLSearchParams): T {
  const out: Record<string, unknown> = {};
  const props = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const key of new Set(qs.keys())) {
    const all = qs.getAll(key);
    if (all.length > 1) throw problems.invalidParameter(key, `Query parameter ${JSON.stringify(key)} was given ${all.length} times; give it once.`);
    const raw = all[0];
    const prop = props[key];
    if (!prop) {
      const known = Object.keys(props);
      throw problems.invalidParameter(key, `Unknown query parameter ${JSON.stringify(key)}.${known.length ? ` Known parameters: ${known.join(', ')}.` : ' This endpoint takes no query parameters.'}`);
    }
    out[key] = coerce(key, prop, raw);
  }
  if (schema) validateBody(schema, out, 'query');
  return out as T;
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
