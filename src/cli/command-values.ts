// Reading `docparse admin` option values: sizes, counts, lists, months. A value that cannot
// be read is a UsageError (exit code 2, with the command's usage line).
import { currentMonth } from '../tenancy/month.js';

export type Values = Record<string, string | boolean | undefined>;

/** A mistake on the command line: exit code 2. */
export class UsageError extends Error {}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/** "1048576", "10MB" (10^6), "2GiB" (2^30), "1.5 GB", "64MiB/s" → bytes. */
export function parseByteSize(text: string, flag: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*(?:\/s)?\s*$/i.exec(text);
  const unit = m ? SIZE_UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined) {
    throw new UsageError(`${flag}: "${text}" is not a size; use bytes or a suffix like 10MB, 500MiB, 2GiB`);
  }
  const bytes = Math.round(Number(m[1]) * unit);
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new UsageError(`${flag}: must be a positive size, got "${text}"`);
  return bytes;
}

/** A whole number of at least `min`; "1_000" and "1,000" read as 1000. */
export function parseCount(text: string, flag: string, min: number): number {
  const clean = text.replace(/[_,]/g, '');
  if (!/^\d+$/.test(clean)) throw new UsageError(`${flag}: "${text}" is not a whole number`);
  const n = Number(clean);
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`${flag}: must be at least ${min}, got ${text}`);
  return n;
}

export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function str(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function required(values: Values, name: string): string {
  const v = str(values, name);
  if (v === undefined || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v.trim();
}

/** --month as YYYY-MM; the current UTC month when not given. */
export function monthOption(values: Values): string {
  const month = str(values, 'month') ?? currentMonth();
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new UsageError(`--month: expected YYYY-MM, got "${month}"`);
  return month;
}
