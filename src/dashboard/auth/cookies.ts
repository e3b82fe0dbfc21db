// The dashboard's two cookies: the session (who is signed in) and the sign-in cookie that binds
// an OIDC sign-in to the browser that started it. Both HttpOnly (no script reads them),
// SameSite=Lax (not sent with cross-site sub-requests or POSTs), Path=/ (the management API at
// /manage/v1 receives the session too). Under https they are Secure and named with the
// __Host- prefix, which the browser only accepts from this host, over https, for Path=/ —
// so a sibling subdomain cannot plant or shadow them.

export interface DashboardCookies {
  session: string;
  signIn: string;
  secure: boolean;
}

export function dashboardCookies(dashboardUrl: string): DashboardCookies {
  const secure = new URL(dashboardUrl).protocol === 'https:';
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}docparse_session`, signIn: `${prefix}docparse_sign_in`, secure };
}

/** Every value the Cookie header gives `name` (a browser may send two cookies of one name). */
export function cookieValues(header: string | undefined, name: string): string[] {
  if (!header) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    values.push(part.slice(eq + 1).trim());
  }
  return values;
}

/** A Set-Cookie value; maxAgeSeconds 0 deletes the cookie. */
export function setCookie(name: string, value: string, opts: { secure: boolean; maxAgeSeconds: number }): string {
  return [`${name}=${value}`, 'Path=/', `Max-Age=${opts.maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax', ...(opts.secure ? ['Secure'] : [])].join('; ');
}

export const clearCookie = (name: string, secure: boolean) => setCookie(name, '', { secure, maxAgeSeconds: 0 });
