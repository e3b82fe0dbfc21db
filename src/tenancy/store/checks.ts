// Checks and conversions every control-plane table module shares: timestamps as ISO
// strings, required text and integers, constraint violations turned into errors a caller
// can act on.
import { sqlErrorCode, type SqlError } from '../../db/sql.js';
import { NotFoundError } from '../types.js';

export type Ts = Date | string;

export const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

export function iso(v: Ts): string {
  return (v instanceof Date ? v : new Date(v)).toISOString();
}
export function isoOrNull(v: Ts | null): string | null {
  return v === null ? null : iso(v);
}

export function requireText(value: string, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new Error(`${what} must not be empty`);
  return value.trim();
}
export function requireNonNegInt(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${what} must be a non-negative integer, got ${value}`);
  return value;
}
export function requirePosInt(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${what} must be a positive integer, got ${value}`);
  return value;
}

/** Maps constraint violations to errors a caller can act on; rethrows anything else. */
export function rethrow(err: unknown, refs: Record<string, [string, string | null | undefined]> = {}, uniques: Record<string, string> = {}): never {
  const code = sqlErrorCode(err);
  const constraint = (err as SqlError).constraint ?? '';
  if (code === '23503') {
    for (const [fragment, [what, id]] of Object.entries(refs)) {
      if (constraint.includes(fragment) && id) throw new NotFoundError(what, id);
    }
  }
  if (code === '23505') {
    for (const [fragment, message] of Object.entries(uniques)) {
      if (constraint.includes(fragment)) throw new Error(message);
    }
  }
  throw err;
}
