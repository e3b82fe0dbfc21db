// The regions of a deployment (DOCPARSE_REGION_URLS: code → API base URL) and which of them a
// region code belongs to. Codes nest by prefix at a dash: the region `eu` covers the licence
// region `eu-central-1` and a bucket in `eu-west-1`, so an app licensed for `eu-central-1`, a
// node of region `eu` and an S3 bucket in `eu-west-1` all sit in `eu`. Plain data in and out:
// config.ts, the front (regions.ts) and the management API all read it.

/** Whether region `outer` covers `code`: equal, or a prefix of it ending at a dash. */
export function regionCovers(outer: string, code: string): boolean {
  const o = outer.toLowerCase();
  const c = code.toLowerCase();
  return c === o || (c.length > o.length && c.startsWith(o) && c[o.length] === '-');
}

export class RegionTable {
  /** Codes longest first, so `eu-west` wins over `eu` for `eu-west-1`. */
  private readonly codes: string[];

  constructor(
    /** Region code (lower case) → the public base URL of its API, without a trailing slash. */
    readonly urls: ReadonlyMap<string, string>,
  ) {
    this.codes = [...urls.keys()].sort((a, b) => b.length - a.length);
  }

  /** The table's region that covers `code` (the most specific one), or null when none does. */
  regionOf(code: string): string | null {
    for (const c of this.codes) if (regionCovers(c, code)) return c;
    return null;
  }

  /** Whether two codes sit in the same region of the table (false when either sits in none). */
  sameRegion(a: string, b: string): boolean {
    const r = this.regionOf(a);
    return r !== null && r === this.regionOf(b);
  }

  /**
   * Reads `eu=https://eu.example,us=https://us.example`. Returns the table, or the problems
   * found (each naming the entry).
   */
  static parse(text: string): RegionTable | string[] {
    const problems: string[] = [];
    const urls = new Map<string, string>();
    for (const entry of text
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)) {
      const at = entry.indexOf('=');
      const code = entry.slice(0, Math.max(at, 0)).trim().toLowerCase();
      const url = entry.slice(at + 1).trim();
      if (at < 1 || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(code)) {
        problems.push(`${JSON.stringify(entry)} is not code=url (the code letters, digits and dashes)`);
        continue;
      }
      if (urls.has(code)) problems.push(`region ${code} is listed twice`);
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        problems.push(`${code}: ${JSON.stringify(url)} is not a URL`);
        continue;
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') problems.push(`${code}: ${JSON.stringify(url)} must use http:// or https://`);
      else if (u.username || u.password) problems.push(`${code}: the URL must not carry credentials`);
      else if (u.search || u.hash) problems.push(`${code}: the URL must not carry a query or fragment`);
      urls.set(code, url.replace(/\/+$/, ''));
    }
    if (!problems.length && !urls.size) problems.push('lists no region');
    return problems.length ? problems : new RegionTable(urls);
  }
}
