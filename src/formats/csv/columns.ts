// Column profiles built over every row in the first pass: the inferred type, null counts,
// numeric ranges, date field order, and (for the Spatial route) how many sampled values look
// like WKT or GeoJSON geometries. The second pass converts cells with the final types.
import {
  classify,
  K_BOOL,
  K_DATE,
  K_DATETIME,
  K_INT,
  K_NULL_TOKEN,
  K_NUM,
  K_STRING,
  last,
  ORDER_ANY,
  ORDER_DMY,
  ORDER_MDY,
  toIsoDate,
  isNullToken,
  hasOuterSpace,
  toNumber,
} from './values.js';
import { looksLikeGeoJson, looksLikeWkt } from './wkt.js';

export type ColumnType = 'integer' | 'number' | 'boolean' | 'date' | 'datetime' | 'string';

/** How a column's values appear in rows: JSON numbers, booleans or strings. */
export type JsonType = 'number' | 'boolean' | 'string';

export interface ColumnInfo {
  name: string;
  index: number;
  type: ColumnType;
  /** JSON type of the non-null values in rows ('string' for integers beyond 2^53, etc.). */
  jsonType: JsonType;
  nullCount: number;
  min?: number;
  max?: number;
  /** Source layout of non-ISO dates, e.g. 'M/D/YYYY' (values are emitted as ISO 8601). */
  sourceFormat?: string;
}

const GEOM_SAMPLE = 1000;

export class ColumnProfile {
  nulls = 0;
  nullTokens = 0;
  /** Bit per kind seen (1 << K_*). */
  seen = 0;
  isString = false;
  inexact = false;
  orders = ORDER_ANY;
  slashDates = false;
  shortYear = false;
  dotDates = false;
  min = Infinity;
  max = -Infinity;
  geomChecked = 0;
  wktHits = 0;
  geojsonHits = 0;

  add(v: string, sampleGeometry: boolean): void {
    if (v.length === 0) {
      this.nulls++;
      return;
    }
    if (sampleGeometry && this.geomChecked < GEOM_SAMPLE) {
      this.geomChecked++;
      if (looksLikeWkt(v)) this.wktHits++;
      else if (looksLikeGeoJson(v)) this.geojsonHits++;
    }
    if (this.isString) return;
    const k = classify(v);
    switch (k) {
      case K_INT:
      case K_NUM: {
        this.seen |= 1 << k;
        if (!last.exact) this.inexact = true;
        const n = last.value;
        if (n < this.min) this.min = n;
        if (n > this.max) this.max = n;
        return;
      }
      case K_DATE:
      case K_DATETIME:
        this.seen |= 1 << k;
        if (last.sep !== 0) {
          this.slashDates = true;
          this.orders &= last.orders;
          if (last.shortYear) this.shortYear = true;
          if (last.sep === 46) this.dotDates = true;
          if (this.orders === 0) this.isString = true;
        }
        return;
      case K_BOOL:
        this.seen |= 1 << k;
        return;
      case K_NULL_TOKEN:
        this.nullTokens++;
        return;
      default:
        this.seen |= 1 << K_STRING;
        this.isString = true;
    }
  }

  get type(): ColumnType {
    const s = this.seen;
    if (this.isString || s === 0 || s & (1 << K_STRING)) return 'string';
    const numeric = (1 << K_INT) | (1 << K_NUM);
    const temporal = (1 << K_DATE) | (1 << K_DATETIME);
    if ((s & ~numeric) === 0) return s & (1 << K_NUM) ? 'number' : 'integer';
    if ((s & ~temporal) === 0) return s & (1 << K_DATETIME) ? 'datetime' : 'date';
    if (s === 1 << K_BOOL) return 'boolean';
    return 'string';
  }

  /** Field order used to read slashed dates: M/D unless only D/M fits (or dots suggest D.M). */
  get dateOrder(): number {
    if (this.orders === ORDER_DMY) return ORDER_DMY;
    if (this.orders === ORDER_MDY) return ORDER_MDY;
    return this.dotDates ? ORDER_DMY : ORDER_MDY;
  }
}

/** Final column description plus the converter the second pass applies to each cell. */
export interface ColumnPlan {
  info: ColumnInfo;
  convert: (v: string) => unknown;
}

export function planColumn(p: ColumnProfile, name: string, index: number): ColumnPlan {
  const type = p.type;
  const info: ColumnInfo = { name, index, type, jsonType: 'string', nullCount: p.nulls };
  const tokensAreNull = type !== 'string';
  if (tokensAreNull) info.nullCount += p.nullTokens;
  let convert: (v: string) => unknown;
  switch (type) {
    case 'integer':
    case 'number':
      if (p.min <= p.max && !p.inexact) {
        info.min = p.min;
        info.max = p.max;
      }
      if (p.inexact) {
        convert = (v) => (v.length === 0 || isNullToken(v) ? null : hasOuterSpace(v) ? v.trim() : v);
      } else {
        info.jsonType = 'number';
        convert = (v) => {
          if (v.length === 0) return null;
          const n = toNumber(v);
          return n === n ? n : null; // NaN only for null tokens
        };
      }
      break;
    case 'boolean':
      info.jsonType = 'boolean';
      convert = (v) => {
        if (v.length === 0) return null;
        const c = (hasOuterSpace(v) ? v.trim() : v).charCodeAt(0) | 32;
        return c === 116 ? true : c === 102 ? false : null;
      };
      break;
    case 'date':
    case 'datetime': {
      const order = p.dateOrder;
      const dt = type === 'datetime';
      if (p.slashDates) {
        const sep = p.dotDates ? '.' : '/';
        const y = p.shortYear ? 'YY' : 'YYYY';
        info.sourceFormat = order === ORDER_DMY ? `D${sep}M${sep}${y}` : `M${sep}D${sep}${y}`;
      }
      const isoOnly = !p.slashDates;
      convert = (v) => {
        if (v.length === 0) return null;
        // Already canonical (validated in the first pass): YYYY-MM-DD in a date column.
        if (isoOnly && !dt && v.length === 10 && v.charCodeAt(4) === 45 && v.charCodeAt(7) === 45) return v;
        return toIsoDate(v, order, dt);
      };
      break;
    }
    default:
      convert = (v) => (v.length === 0 ? null : v);
  }
  if (p.nulls + p.nullTokens === 0 && type === 'string') convert = (v) => v;
  return { info, convert };
}
