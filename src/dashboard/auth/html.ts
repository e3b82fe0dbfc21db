// The few pages of the sign-in itself (the dashboard's own pages live in ../pages): plain
// server-rendered HTML under a strict Content-Security-Policy — no script at all, one
// stylesheet from this server, an empty data: icon (so no /favicon.ico is asked for and
// missed), forms that post only here. A one-time link's token is in its
// URL, so no Referer goes to another site; within this site it does (referrer policy
// same-origin), which also makes browsers send the real Origin with the forms' POSTs (under
// no-referrer they send `Origin: null`).
import type { Reply } from '../../http/route.js';
import { escapeHtml } from '../display-text.js';

const CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};

/** Text they did not write, escaped by the dashboard's one rule (src/dashboard/display-text.ts). */
export const esc = escapeHtml;

/** A whole page; `body` is trusted markup built with esc(). */
export function page(basePath: string, title: string, body: string, status = 200, headers: Record<string, string> = {}): Reply {
  const text = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · DocParse</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${esc(basePath)}/auth/sign-in.css">
</head>
<body>
<main class="card">
<h1>${esc(title)}</h1>
${body}
</main>
</body>
</html>
`;
  return { status, headers: { ...PAGE_HEADERS, ...headers }, text, contentType: 'text/html; charset=utf-8' };
}

export const SIGN_IN_CSS = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
.card { box-sizing: border-box; width: min(28rem, 100vw); padding: 1.5rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
label { display: block; font-weight: 600; margin: 1rem 0 0.25rem; }
input[type=password], input[type=text] { box-sizing: border-box; width: 100%; padding: 0.5rem; font: inherit; border: 1px solid GrayText; border-radius: 4px; }
button, .button { display: inline-block; margin-top: 1rem; padding: 0.5rem 1rem; font: inherit; font-weight: 600; border: 0; border-radius: 4px;
  background: #1a56db; color: #fff; text-decoration: none; cursor: pointer; }
:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
.error { border-left: 4px solid #b91c1c; padding-left: 0.75rem; }
code { font-size: 0.95em; }
`;
