// Where a sign-in returns to: only a path inside the dashboard, so the sign-in can never be
// used to send someone to another site (an open redirect) or outside the dashboard.

/** The path of {dashboard_url}: '/dashboard' by default, '' when the dashboard is a host's root. */
export function dashboardBasePath(dashboardUrl: string): string {
  return new URL(dashboardUrl).pathname.replace(/\/+$/, '');
}

/** The dashboard's home, where a sign-in without `next` lands. */
export const dashboardHome = (basePath: string) => `${basePath}/`;

const PLACEHOLDER_ORIGIN = 'http://dashboard.invalid';

/**
 * `next` as a normalised path (with its query) when it is a page of the dashboard; null for
 * anything else: another origin (`https://…`, `//host`, `/\host`), a path outside basePath
 * (also after `..` segments are resolved), the sign-in routes themselves, control characters.
 */
export function safeNextPath(next: string, basePath: string): string | null {
  // Browsers treat a backslash as a slash, and drop tabs and newlines from URLs.
  if (!next.startsWith('/') || next.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(next)) return null;
  let url: URL;
  try {
    url = new URL(next, PLACEHOLDER_ORIGIN);
  } catch {
    return null;
  }
  if (url.origin !== PLACEHOLDER_ORIGIN) return null;
  const path = url.pathname;
  if (path !== basePath && path !== `${basePath}/` && !path.startsWith(`${basePath}/`)) return null;
  if (path.startsWith(`${basePath}/auth/`)) return null;
  return path + url.search;
}
