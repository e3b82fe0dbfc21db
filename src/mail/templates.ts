// The e-mails the service sends, as plain text and HTML. Pure: an outbox row keeps the
// template's name and its parameters, and is rendered when sent or shown, with the node's
// {dashboard_url}. A tenant's name is its owner's words, not ours: wherever an e-mail shows
// it — subject and body — it is one line, at most NAME_MAX_CHARS characters, between quotes
// it cannot close, after the service's own words.
import { terminalSafe } from '../http/text-rules.js';

export interface TenantActiveParams {
  tenantId: string;
  tenantName: string;
  /** True when a deactivated tenant became Active again. */
  reactivated: boolean;
}

export interface InvitationParams {
  invitationId: string;
  tenantId: string;
  tenantName: string;
  email: string;
  role: 'owner' | 'member';
}

export type MailMessage = { template: 'tenant-active'; params: TenantActiveParams } | { template: 'tenant-invitation'; params: InvitationParams };

export type MailTemplate = MailMessage['template'];

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export interface RenderContext {
  /** {dashboard_url}: where the e-mails send people. */
  dashboardUrl: string;
}

const PRODUCT = 'DocParse';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The most characters (graphemes) of a tenant's name an e-mail shows. */
export const NAME_MAX_CHARS = 40;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * A tenant's name as an e-mail shows it: “Acme”, or “Acme Corporation International Hold…”.
 * Control, bidirectional formatting and separator characters (names from before the names
 * rule) become visible escapes, quotation marks become apostrophes, runs of space one space.
 */
export function quotedName(name: string): string {
  const plain = terminalSafe(name.replace(/\s+/g, ' '))
    .replace(/["“”„‟«»]/g, "'")
    .trim();
  const chars = [...graphemes.segment(plain)].map((g) => g.segment);
  const shown =
    chars.length > NAME_MAX_CHARS
      ? `${chars
          .slice(0, NAME_MAX_CHARS - 1)
          .join('')
          .trimEnd()}…`
      : plain;
  return `“${shown}”`;
}

function html(title: string, paragraphs: string[], link: string, linkText: string): string {
  const body = paragraphs.map((p) => `<p>${p}</p>`).join('\n');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body style="font-family: sans-serif; line-height: 1.5">
${body}
<p><a href="${escapeHtml(link)}">${escapeHtml(linkText)}</a></p>
<p style="color: #666">— ${PRODUCT}</p>
</body></html>
`;
}

function tenantActive(p: TenantActiveParams, ctx: RenderContext): RenderedMail {
  const name = quotedName(p.tenantName);
  const subject = p.reactivated ? `Your ${PRODUCT} organisation ${name} is active again` : `Your ${PRODUCT} organisation ${name} is active`;
  const lead = p.reactivated ? `Your organisation ${name} has been reactivated.` : `Your organisation ${name} has been activated.`;
  const next = 'Its apps can now get access tokens and parse documents. Manage apps, members and usage in the dashboard:';
  return {
    subject,
    text: `${lead}\n\n${next}\n${ctx.dashboardUrl}\n\n— ${PRODUCT}\n`,
    html: html(subject, [escapeHtml(lead), escapeHtml(next)], ctx.dashboardUrl, 'Open the dashboard'),
  };
}

function invitation(p: InvitationParams, ctx: RenderContext): RenderedMail {
  const name = quotedName(p.tenantName);
  const subject = `You have been invited to join ${name} on ${PRODUCT}`;
  const as = p.role === 'owner' ? 'an owner' : 'a member';
  const lead = `You have been invited to join the organisation ${name} as ${as}.`;
  const next = `Sign in to the dashboard as ${p.email} to accept:`;
  return {
    subject,
    text: `${lead}\n\n${next}\n${ctx.dashboardUrl}\n\nIf you did not expect this invitation, ignore this e-mail.\n\n— ${PRODUCT}\n`,
    html: html(subject, [escapeHtml(lead), escapeHtml(next)], ctx.dashboardUrl, 'Open the dashboard'),
  };
}

export function renderMail(message: MailMessage, ctx: RenderContext): RenderedMail {
  switch (message.template) {
    case 'tenant-active':
      return tenantActive(message.params, ctx);
    case 'tenant-invitation':
      return invitation(message.params, ctx);
    default:
      // A row written by a newer version of the service.
      throw new Error(`unknown mail template "${(message as { template: string }).template}"`);
  }
}
