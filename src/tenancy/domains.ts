// Allowed-domain entries of an app: host, optionally with a port ("example.com",
// "localhost:8080", "127.0.0.1:8080", "[::1]:8080"). At most three per app.

export const MAX_ALLOWED_DOMAINS = 3;

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6_BRACKETED = /^\[[0-9a-f:.]+\]$/;

/** Lower-cases and validates one entry; throws an Error saying what is wrong. */
export function normalizeAllowedDomain(input: string): string {
  const entry = input.trim().toLowerCase();
  const bad = (why: string) => new Error(`invalid allowed domain "${input}": ${why}; expected host or host:port, e.g. app.example.com or localhost:8080`);
  if (entry === '') throw bad('empty');
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(entry)) throw bad('leave out the scheme');
  if (/[/?#@\s]/.test(entry)) throw bad('only a host and an optional port are allowed');

  let host: string;
  let port: string | undefined;
  if (entry.startsWith('[')) {
    const end = entry.indexOf(']');
    if (end < 0) throw bad('unclosed [');
    host = entry.slice(0, end + 1);
    const rest = entry.slice(end + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) throw bad('unexpected text after ]');
      port = rest.slice(1);
    }
    if (!IPV6_BRACKETED.test(host)) throw bad('not an IPv6 address');
  } else {
    const parts = entry.split(':');
    if (parts.length > 2) throw bad('IPv6 addresses must be written in brackets');
    host = parts[0];
    port = parts[1];
    if (!IPV4.test(host)) {
      if (host.length > 253) throw bad('host name too long');
      const labels = host.split('.');
      if (!labels.every((l) => LABEL.test(l))) throw bad('not a valid host name');
      if (/^\d+$/.test(labels[labels.length - 1]) && labels.length > 1) throw bad('not a valid IPv4 address or host name');
    }
  }
  if (port !== undefined) {
    if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw bad('port must be 1-65535');
    return `${host}:${Number(port)}`;
  }
  return host;
}

/** Validates, normalises and de-duplicates a list; rejects more than three entries. */
export function normalizeAllowedDomains(domains: readonly string[]): string[] {
  if (domains.length > MAX_ALLOWED_DOMAINS) {
    throw new Error(`an app allows at most ${MAX_ALLOWED_DOMAINS} domains, got ${domains.length}`);
  }
  const out: string[] = [];
  for (const d of domains) {
    const n = normalizeAllowedDomain(d);
    if (!out.includes(n)) out.push(n);
  }
  return out;
}
