// Numbers as GDAL 3.8's GeoJSONSeq writer writes them (RFC 7946 settings,
// COORDINATE_PRECISION=7): coordinates with `%.7f` and GDAL's `intelliround` (trailing
// 00000x / 99999x runs), real properties with `%.17g` or fewer significant digits when the
// digits after the point hold a run of six 0s or 9s. Used by the FlatGeobuf route (fgb.ts).

function roundup(s: string): string {
  let negative = false;
  if (s[0] === '-') {
    negative = true;
    s = s.slice(1);
  }
  const a = s.split('');
  for (let pos = a.length - 1; pos >= 0; pos--) {
    if (a[pos] === '.') continue;
    if (a[pos] !== '9') {
      a[pos] = String.fromCharCode(a[pos].charCodeAt(0) + 1);
      break;
    }
    a[pos] = '0';
    if (pos === 0) a.unshift('1');
  }
  const out = a.join('');
  return negative ? `-${out}` : out;
}

/** GDAL's intelliround (ogrutils.cpp) on a fixed-point string. */
export function intelliround(s: string): string {
  const dot = s.indexOf('.');
  if (dot < 0) return s;
  let before = dot - 1;
  if (s[0] === '-') before--;
  const i = s.length;
  if (i <= 10) return s;
  if (s[i - 2] === '0' && s[i - 3] === '0' && s[i - 4] === '0' && s[i - 5] === '0' && s[i - 6] === '0') return s.slice(0, i - 1);
  if (
    dot < i - 8 &&
    (before >= 4 || s[i - 3] === '0') &&
    (before >= 5 || s[i - 4] === '0') &&
    (before >= 6 || s[i - 5] === '0') &&
    (before >= 7 || s[i - 6] === '0') &&
    (before >= 8 || s[i - 7] === '0') &&
    s[i - 8] === '0' &&
    s[i - 9] === '0'
  )
    return s.slice(0, i - 8);
  if (s[i - 2] === '9' && s[i - 3] === '9' && s[i - 4] === '9' && s[i - 5] === '9' && s[i - 6] === '9') return roundup(s.slice(0, i - 6));
  if (
    dot < i - 9 &&
    (before >= 4 || s[i - 3] === '9') &&
    (before >= 5 || s[i - 4] === '9') &&
    (before >= 6 || s[i - 5] === '9') &&
    (before >= 7 || s[i - 6] === '9') &&
    (before >= 8 || s[i - 7] === '9') &&
    s[i - 8] === '9' &&
    s[i - 9] === '9'
  )
    return roundup(s.slice(0, i - 9));
  return s;
}

/** Trailing zeros of the fraction removed; never ends with a bare point (valid JSON). */
function trimZeros(s: string): string {
  if (s.indexOf('.') < 0) return s;
  let end = s.length;
  while (s.charCodeAt(end - 1) === 48 /* 0 */) end--;
  if (s.charCodeAt(end - 1) === 46 /* . */) return `${s.slice(0, end)}0`;
  return end === s.length ? s : s.slice(0, end);
}

/** A coordinate as GDAL's GeoJSON writer prints it with COORDINATE_PRECISION=7 (finite values only). */
export function formatCoord(v: number, precision = 7): string {
  const a = Math.abs(v);
  if (a > 1e50 || a >= 1e21) return String(v); // GDAL: %.17g above 1e50, exact integer digits below: both read back as v
  if (precision === 7) {
    // Fast path: the integer nearest v·1e7 is the correctly rounded result unless v·1e7 is
    // within rounding error of a half (then the exact path below decides, ties to even).
    const r = v * 1e7;
    if (Math.abs(r) < 1e12) {
      const n = Math.round(r);
      if (Math.abs(Math.abs(r - n) - 0.5) > 1e-3) {
        const digits = String(Math.abs(n)).padStart(8, '0');
        const s = `${v < 0 ? '-' : ''}${digits.slice(0, -7)}.${digits.slice(-7)}`;
        return trimZeros(s.length > 10 ? intelliround(s) : s);
      }
    }
  }
  return trimZeros(intelliround(toFixedHalfEven(v, precision)));
}

/**
 * `%.<p>f` as C's printf (musl, in the WASM build) prints it: an exact tie (a binary value
 * ending in 5 at the next decimal, e.g. 40.64453125) rounds to the even digit; JS `toFixed`
 * rounds it away from zero. Everything else is the same correctly rounded value.
 */
function toFixedHalfEven(v: number, p: number): string {
  const s = v.toFixed(p);
  const r = Math.abs(v) * 10 ** (p + 1);
  const k = Math.round(r);
  if (k % 10 !== 5 || Math.abs(r - k) > 1e-6 * Math.max(1, r * 1e-9)) return s;
  const exact = v.toFixed(Math.min(100, p + 60));
  const dot = exact.indexOf('.');
  const tail = exact.slice(dot + 1 + p);
  if (!/^50*$/.test(tail)) return s;
  const truncated = exact.slice(0, dot + 1 + p);
  return (truncated.charCodeAt(truncated.length - 1) - 48) % 2 === 0 ? truncated : s;
}

/** `%.<p>g` as C prints it (the text matters only for GDAL's 000000/999999 test). */
function cg(v: number, p: number): string {
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const e = v.toExponential(p - 1); // d.ddddde±x
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(e);
  if (!m) return String(v);
  const x = Number(m[4]);
  const digits = m[2] + (m[3] ?? '');
  let out: string;
  if (x < -4 || x >= p) {
    const frac = digits.slice(1).replace(/0+$/, '');
    out = `${m[2]}${frac ? `.${frac}` : ''}e${x < 0 ? '-' : '+'}${String(Math.abs(x)).padStart(2, '0')}`;
  } else if (x >= 0) {
    const int = digits.slice(0, x + 1);
    const frac = digits.slice(x + 1).replace(/0+$/, '');
    out = frac ? `${int}.${frac}` : int;
  } else {
    const frac = ('0'.repeat(-x - 1) + digits).replace(/0+$/, '');
    out = `0.${frac}`;
  }
  return m[1] + out;
}

function hasRun(s: string): boolean {
  const dot = s.indexOf('.');
  if (dot < 0) return false;
  const tail = s.slice(dot);
  return tail.includes('999999') || tail.includes('000000');
}

/** A real property as GDAL's GeoJSON writer prints it (SIGNIFICANT_FIGURES unset): as JSON text. */
export function formatReal(v: number): string {
  // GDAL prints 14 to 17 significant digits; when the shortest text that reads back as v has
  // at most 14, every one of those prints reads back as v.
  const shortest = JSON.stringify(v);
  if (shortest.length <= 14) return shortest;
  let s = cg(v, 17);
  if (hasRun(s)) {
    for (let i = 1; i <= 3; i++) {
      const t = cg(v, 17 - i);
      if (t.includes('.') && !hasRun(t)) {
        s = t;
        break;
      }
    }
  }
  // The value is what matters: JSON text of the double GDAL's text reads back as.
  return JSON.stringify(Number(s));
}
