// Cell classification and conversion: what kind of value a CSV cell holds (integer, number,
// boolean, date, datetime or string) and its typed JSON value. Everything here runs per cell,
// so it works on char codes and avoids regexes and allocations on the hot path.

// Cell kinds returned by classify() (empty cells never reach it: the profile counts them).
export const K_INT = 1;
export const K_NUM = 2;
export const K_BOOL = 3;
export const K_DATE = 4;
export const K_DATETIME = 5;
export const K_STRING = 6;
/** A conventional null marker such as NA or NULL: null in a typed column, text otherwise. */
export const K_NULL_TOKEN = 7;

/** Date field orders a slashed/dotted date allows. */
export const ORDER_MDY = 1;
export const ORDER_DMY = 2;
export const ORDER_ANY = ORDER_MDY | ORDER_DMY;

/** Side results of the last classify() call (avoids allocating a result object per cell). */
const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

export const last = {
  /** For numbers: the value. */
  value: 0,
  /** For numbers: false when the value does not survive a round trip through a double. */
  exact: true,
  /** For dates: the orders (MDY/DMY) the value allows; ORDER_ANY for ISO forms. */
  orders: ORDER_ANY,
  /** For dates: a two-digit year was used. */
  shortYear: false,
  /** For dates: separator of a non-ISO date ('/', '.', '-'), or 0 for ISO. */
  sep: 0,
};

const NULL_TOKENS = new Set(['NA', 'N/A', 'n/a', 'na', 'NULL', 'null', 'Null', '#N/A', 'NaN', 'nan', 'None', '(null)']);

function isSpace(c: number): boolean {
  return c === 32 || c === 9;
}

export function hasOuterSpace(s: string): boolean {
  return isSpace(s.charCodeAt(0)) || isSpace(s.charCodeAt(s.length - 1));
}

/** Classifies a non-empty cell. Sets `last` for numbers and dates. */
export function classify(raw: string): number {
  let s = raw;
  let c0 = s.charCodeAt(0);
  if (isSpace(c0) || isSpace(s.charCodeAt(s.length - 1))) {
    s = s.trim();
    if (s.length === 0) return K_STRING;
    c0 = s.charCodeAt(0);
  }
  // Numbers: [+-]digits[.digits][e[+-]digits], or .digits
  if ((c0 >= 48 && c0 <= 57) || c0 === 45 || c0 === 43 || c0 === 46) {
    const k = classifyNumber(s);
    if (k !== K_STRING) return k;
    if (c0 >= 48 && c0 <= 57) return classifyDate(s);
    return K_STRING;
  }
  const len = s.length;
  if (len === 4 || len === 5) {
    if (c0 === 116 || c0 === 84 || c0 === 102 || c0 === 70) {
      const l = s.toLowerCase();
      if (l === 'true' || l === 'false') return K_BOOL;
    }
  }
  if (len <= 6 && NULL_TOKENS.has(s)) return K_NULL_TOKEN;
  return K_STRING;
}

function classifyNumber(s: string): number {
  const len = s.length;
  let i = 0;
  let c = s.charCodeAt(0);
  const neg = c === 45;
  if (neg || c === 43) i++;
  const intStart = i;
  let m = 0;
  while (i < len && (c = s.charCodeAt(i)) >= 48 && c <= 57) {
    m = m * 10 + (c - 48);
    i++;
  }
  const intDigits = i - intStart;
  // A leading zero followed by more digits (zip codes, ids) is text, not a number.
  if (intDigits > 1 && s.charCodeAt(intStart) === 48) return K_STRING;
  if (i === len) {
    if (intDigits === 0) return K_STRING;
    if (intDigits <= 15) {
      last.exact = true;
      last.value = neg ? -m : m;
    } else {
      last.value = Number(s);
      last.exact = Math.abs(last.value) <= Number.MAX_SAFE_INTEGER;
    }
    return K_INT;
  }
  let fracDigits = 0;
  if (c === 46) {
    i++;
    const fs = i;
    while (i < len && (c = s.charCodeAt(i)) >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      i++;
    }
    fracDigits = i - fs;
    if (intDigits === 0 && fracDigits === 0) return K_STRING;
  } else if (intDigits === 0) return K_STRING;
  let hasExp = false;
  if (i < len && (c === 101 || c === 69)) {
    i++;
    if (i < len && ((c = s.charCodeAt(i)) === 43 || c === 45)) i++;
    const es = i;
    while (i < len && (c = s.charCodeAt(i)) >= 48 && c <= 57) i++;
    if (i === es) return K_STRING;
    hasExp = true;
  }
  if (i !== len) return K_STRING;
  if (hasExp || intDigits + fracDigits > 15) {
    last.value = Number(s);
    last.exact = numberIsExact(s);
  } else {
    // Exact digits over an exact power of ten: one rounding, the correctly rounded double.
    const v = fracDigits ? m / POW10[fracDigits] : m;
    last.value = neg ? -v : v;
    last.exact = true;
  }
  return K_NUM;
}

/** True when the decimal text and the double it parses to hold the same significant digits. */
function numberIsExact(s: string): boolean {
  const n = Number(s);
  if (!Number.isFinite(n)) return false;
  const want = significantDigits(s);
  if (n === 0) return want === '' || /^0*$/.test(want);
  const e = n.toExponential(); // shortest round-trip digits
  const mant = e.slice(e.charCodeAt(0) === 45 ? 1 : 0, e.indexOf('e')).replace('.', '');
  return stripZeros(mant) === want;
}

function significantDigits(s: string): string {
  let end = s.length;
  const e = s.search(/[eE]/);
  if (e >= 0) end = e;
  let digits = '';
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) digits += s[i];
  }
  return stripZeros(digits);
}

function stripZeros(d: string): string {
  let a = 0;
  let b = d.length;
  while (a < b && d.charCodeAt(a) === 48) a++;
  while (b > a && d.charCodeAt(b - 1) === 48) b--;
  return d.slice(a, b);
}

// ---------------------------------------------------------------------------------------
// Dates: YYYY-MM-DD (also / and .), M/D/Y or D/M/Y with 2- or 4-digit years (/ . -), with an
// optional time: [T ]H:MM[:SS[.fff]][ AM|PM][Z|±HH[:MM]].

interface DateParts {
  y: number;
  m: number;
  d: number;
  hasTime: boolean;
  hh: number;
  mi: number;
  ss: number;
  frac: string;
  tz: string;
}

const parts: DateParts = { y: 0, m: 0, d: 0, hasTime: false, hh: 0, mi: 0, ss: 0, frac: '', tz: '' };

function readDigits(s: string, i: number, min: number, max: number): number {
  // Returns the end index of a run of min..max digits starting at i, or -1.
  let j = i;
  const len = s.length;
  while (j < len && j - i < max) {
    const c = s.charCodeAt(j);
    if (c < 48 || c > 57) break;
    j++;
  }
  if (j - i < min) return -1;
  if (j < len) {
    const c = s.charCodeAt(j);
    if (c >= 48 && c <= 57) return -1;
  }
  return j;
}

function num(s: string, a: number, b: number): number {
  let v = 0;
  for (let i = a; i < b; i++) v = v * 10 + (s.charCodeAt(i) - 48);
  return v;
}

function daysIn(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

function expandYear(y: number): number {
  // POSIX strptime %y: 69-99 → 1900s, 00-68 → 2000s.
  return y < 69 ? 2000 + y : 1900 + y;
}

/** Parses the time part starting at i (after the date); returns false when malformed. */
function parseTime(s: string, i: number): boolean {
  const len = s.length;
  if (i === len) {
    parts.hasTime = false;
    return true;
  }
  const c = s.charCodeAt(i);
  if (c !== 84 && c !== 32) return false; // 'T' or ' '
  i++;
  let j = readDigits(s, i, 1, 2);
  if (j < 0 || j >= len || s.charCodeAt(j) !== 58) return false;
  let hh = num(s, i, j);
  i = j + 1;
  j = readDigits(s, i, 2, 2);
  if (j < 0) return false;
  const mi = num(s, i, j);
  i = j;
  let ss = 0;
  let frac = '';
  if (i < len && s.charCodeAt(i) === 58) {
    j = readDigits(s, i + 1, 2, 2);
    if (j < 0) return false;
    ss = num(s, i + 1, j);
    i = j;
    if (i < len && (s.charCodeAt(i) === 46 || s.charCodeAt(i) === 44)) {
      j = readDigits(s, i + 1, 1, 9);
      if (j < 0) return false;
      frac = s.slice(i + 1, j);
      i = j;
    }
  }
  // AM/PM
  let k = i;
  if (k < len && s.charCodeAt(k) === 32) k++;
  if (k + 1 < len) {
    const a = s.charCodeAt(k) | 32;
    const b = s.charCodeAt(k + 1) | 32;
    if ((a === 97 || a === 112) && b === 109) {
      if (hh < 1 || hh > 12) return false;
      if (a === 97 && hh === 12) hh = 0;
      else if (a === 112 && hh !== 12) hh += 12;
      i = k + 2;
    }
  }
  let tz = '';
  if (i < len) {
    const t = s.charCodeAt(i);
    if (t === 90 && i + 1 === len) {
      tz = 'Z';
      i++;
    } else if (t === 43 || t === 45) {
      j = readDigits(s, i + 1, 2, 2);
      if (j < 0) return false;
      const oh = s.slice(i + 1, j);
      let om = '00';
      if (j < len) {
        let m0 = j;
        if (s.charCodeAt(m0) === 58) m0++;
        const m1 = readDigits(s, m0, 2, 2);
        if (m1 < 0) return false;
        om = s.slice(m0, m1);
        j = m1;
      }
      if (Number(oh) > 14 || Number(om) > 59) return false;
      tz = s[i] + oh + ':' + om;
      i = j;
    }
  }
  if (i !== len) return false;
  if (hh > 23 || mi > 59 || ss > 60) return false;
  parts.hasTime = true;
  parts.hh = hh;
  parts.mi = mi;
  parts.ss = ss;
  parts.frac = frac;
  parts.tz = tz;
  return true;
}

/** Classifies s (already trimmed, starts with a digit) as a date/datetime, or string. */
function classifyDate(s: string): number {
  const len = s.length;
  if (len < 6 || len > 40) return K_STRING;
  // ISO-like: YYYY-MM-DD, YYYY/MM/DD, YYYY.MM.DD
  const c4 = s.charCodeAt(4);
  if ((c4 === 45 || c4 === 47 || c4 === 46) && readDigits(s, 0, 4, 4) === 4) {
    const j1 = readDigits(s, 5, 1, 2);
    if (j1 < 0 || j1 >= len || s.charCodeAt(j1) !== c4) return K_STRING;
    const j2 = readDigits(s, j1 + 1, 1, 2);
    if (j2 < 0) return K_STRING;
    const y = num(s, 0, 4);
    const m = num(s, 5, j1);
    const d = num(s, j1 + 1, j2);
    if (m < 1 || m > 12 || d < 1 || d > daysIn(y, m)) return K_STRING;
    if (!parseTime(s, j2)) return K_STRING;
    last.orders = ORDER_ANY;
    last.shortYear = false;
    last.sep = 0;
    return parts.hasTime ? K_DATETIME : K_DATE;
  }
  // A sep B sep Y
  const j0 = readDigits(s, 0, 1, 2);
  if (j0 < 0 || j0 >= len) return K_STRING;
  const sep = s.charCodeAt(j0);
  if (sep !== 47 && sep !== 46 && sep !== 45) return K_STRING;
  const j1 = readDigits(s, j0 + 1, 1, 2);
  if (j1 < 0 || j1 >= len || s.charCodeAt(j1) !== sep) return K_STRING;
  const j2 = readDigits(s, j1 + 1, 2, 4);
  if (j2 < 0 || j2 - j1 - 1 === 3) return K_STRING;
  const a = num(s, 0, j0);
  const b = num(s, j0 + 1, j1);
  const shortYear = j2 - j1 - 1 === 2;
  const yRaw = num(s, j1 + 1, j2);
  const y = shortYear ? expandYear(yRaw) : yRaw;
  let orders = 0;
  if (a >= 1 && a <= 12 && b >= 1 && b <= daysIn(y, a)) orders |= ORDER_MDY;
  if (b >= 1 && b <= 12 && a >= 1 && a <= daysIn(y, b)) orders |= ORDER_DMY;
  if (!orders) return K_STRING;
  if (!parseTime(s, j2)) return K_STRING;
  last.orders = orders;
  last.shortYear = shortYear;
  last.sep = sep;
  return parts.hasTime ? K_DATETIME : K_DATE;
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

function pad4(n: number): string {
  return n < 1000 ? String(n).padStart(4, '0') : String(n);
}

/**
 * Converts a date/datetime cell to ISO 8601 using the column's field order; `asDatetime`
 * forces a time part (a date in a datetime column becomes midnight). Null when unparsable.
 */
export function toIsoDate(raw: string, order: number, asDatetime: boolean): string | null {
  const s = hasOuterSpace(raw) ? raw.trim() : raw;
  const k = classifyDate(s);
  if (k === K_STRING) return null;
  let y: number;
  let m: number;
  let d: number;
  const len = s.length;
  if (last.sep === 0) {
    const c4 = s.charCodeAt(4);
    const j1 = s.indexOf(String.fromCharCode(c4), 5);
    let j2 = j1 + 1;
    while (j2 < len && s.charCodeAt(j2) >= 48 && s.charCodeAt(j2) <= 57) j2++;
    y = num(s, 0, 4);
    m = num(s, 5, j1);
    d = num(s, j1 + 1, j2);
  } else {
    const sep = String.fromCharCode(last.sep);
    const j0 = s.indexOf(sep);
    const j1 = s.indexOf(sep, j0 + 1);
    let j2 = j1 + 1;
    while (j2 < len && s.charCodeAt(j2) >= 48 && s.charCodeAt(j2) <= 57) j2++;
    const a = num(s, 0, j0);
    const b = num(s, j0 + 1, j1);
    const yr = num(s, j1 + 1, j2);
    y = j2 - j1 - 1 === 2 ? expandYear(yr) : yr;
    const useMdy = (order & ORDER_MDY) !== 0 && (last.orders & ORDER_MDY) !== 0;
    if (useMdy) {
      m = a;
      d = b;
    } else if (last.orders & ORDER_DMY) {
      m = b;
      d = a;
    } else return null;
  }
  const date = pad4(y) + '-' + pad2(m) + '-' + pad2(d);
  if (!parts.hasTime) return asDatetime ? date + 'T00:00:00' : date;
  return date + 'T' + pad2(parts.hh) + ':' + pad2(parts.mi) + ':' + pad2(parts.ss) + (parts.frac ? '.' + parts.frac : '') + parts.tz;
}

/**
 * Number(s), computed in JS for plain decimals of up to 15 significant digits: the digits
 * form an exact integer and dividing it by an exact power of ten rounds once, so the result
 * is the correctly rounded double (Clinger's fast path). Anything else goes to Number().
 */
export function toNumber(s: string): number {
  const len = s.length;
  if (len === 0 || len > 17) return Number(s);
  let i = 0;
  let neg = false;
  let m = 0;
  let digits = 0;
  let point = -1;
  let c = s.charCodeAt(0);
  if (c === 45) {
    neg = true;
    i = 1;
  } else if (c === 43) i = 1;
  for (; i < len; i++) {
    c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      digits++;
    } else if (c === 46 && point < 0) point = digits;
    else return Number(s);
  }
  if (digits === 0 || digits > 15) return Number(s);
  const k = point < 0 ? 0 : digits - point;
  const v = k === 0 ? m : m / POW10[k];
  return neg ? -v : v;
}

export function isNullToken(s: string): boolean {
  return s.length <= 6 && NULL_TOKENS.has(hasOuterSpace(s) ? s.trim() : s);
}
