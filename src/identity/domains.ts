// Browser-context check: a request carrying Origin (or, lacking it, Referer) must come from
// one of the token's allowed domains. Entries are host or host:port; matching is exact on the
// host (case-insensitive) and on the port, where an entry without a port stands for the
// scheme's default port. No suffix or prefix matching: allowed.example.com never matches
// allowed.example.com.evil.com or evil-allowed.example.com.

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

export interface BrowserSource {
  header: 'origin' | 'referer';
  value: string;
}

/** The header that identifies a browser context, or null for a non-browser request. */
export function browserSource(headers: Record<string, string>): BrowserSource | null {
  const origin = headers.origin;
  if (origin !== undefined) return { header: 'origin', value: origin };
  const referer = headers.referer;
  if (referer !== undefined && referer !== '') return { header: 'referer', value: referer };
  return null;
}

/** Host, effective port and whether that port is the scheme's default, for an http(s) URL; null otherwise (e.g. `Origin: null`). */
export function originHostPort(value: string): { host: string; port: string; defaultPort: boolean } | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  const schemePort = DEFAULT_PORTS[url.protocol];
  if (!schemePort || !url.hostname) return null;
  // WHATWG URL drops an explicit default port, so url.port === '' means the scheme's default.
  return { host: url.hostname.toLowerCase(), port: url.port || schemePort, defaultPort: url.port === '' };
}

/** Splits an allowed entry ("example.com", "localhost:8080", "[::1]:8080") into host and optional port. */
function splitEntry(entry: string): { host: string; port: string | null } {
  const e = entry.trim().toLowerCase();
  if (e.startsWith('[')) {
    const end = e.indexOf(']');
    const rest = e.slice(end + 1);
    return { host: e.slice(0, end + 1), port: rest.startsWith(':') ? String(Number(rest.slice(1))) : null };
  }
  const colon = e.lastIndexOf(':');
  if (colon < 0) return { host: e, port: null };
  return { host: e.slice(0, colon), port: String(Number(e.slice(colon + 1))) };
}

/**
 * Whether an Origin/Referer value is one of the allowed entries. An entry with a port
 * matches that exact port; an entry without a port matches only the scheme's default port.
 */
export function isAllowedOrigin(value: string, allowed: readonly string[]): boolean {
  const o = originHostPort(value);
  if (!o) return false;
  for (const entry of allowed) {
    const a = splitEntry(entry);
    if (a.host === o.host && (a.port === null ? o.defaultPort : a.port === o.port)) return true;
  }
  return false;
}
