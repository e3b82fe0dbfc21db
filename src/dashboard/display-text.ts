// How the dashboard's pages and its sign-in pages show text they did not write (names, e-mail
// addresses, details of refusals): HTML-escaped, and with control, bidirectional formatting
// and separator characters written as `\u202e` — the rule `docparse admin` follows
// (terminalSafe) — so a name stored before the names rule can neither reverse the rest of its
// line nor hide in the page. Line feeds stay: a textarea's lines are lines.
import { terminalSafe } from '../http/text-rules.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The text as a page shows it (before HTML escaping): what a form field showing it sends back unchanged. */
export function shownText(s: string): string {
  return terminalSafe(s, { keepLineFeeds: true });
}

/** Text for HTML, as element content or as a quoted attribute value. */
export function escapeHtml(s: string): string {
  return shownText(s).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}
