// A tenant's name in an e-mail is its owner's words, never the service's: subject and body show
// it after the service's own words, between quotes it cannot close, shortened, on one line,
// with control and bidirectional characters (names from before the names rule) made visible.
import { describe, expect, it } from 'vitest';
import { NAME_MAX_CHARS, renderMail, type MailMessage } from '../../src/mail/templates.js';

const ctx = { dashboardUrl: 'https://dash.example.test/dashboard' };
const invitation = (tenantName: string): MailMessage => ({
  template: 'tenant-invitation',
  params: { invitationId: 'i1', tenantId: 't1', tenantName, email: 'kim@b.test', role: 'member' },
});
const activation = (tenantName: string): MailMessage => ({ template: 'tenant-active', params: { tenantId: 't1', tenantName, reactivated: false } });
const graphemes = (s: string) => [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(s)].map((g) => g.segment);
/** The name as the subject shows it, between its quotes. */
const shownIn = (subject: string) => /“([^“”]*)”/.exec(subject)![1];

describe('tenant names in e-mails', () => {
  it('a short name is shown whole, quoted, after the service’s words', () => {
    expect(renderMail(invitation('Acme'), ctx).subject).toBe('You have been invited to join “Acme” on DocParse');
    expect(renderMail(activation('Acme'), ctx).subject).toBe('Your DocParse organisation “Acme” is active');
  });

  it(`a long name is cut to ${NAME_MAX_CHARS} characters with an ellipsis, in the subject and the body alike`, () => {
    const long = 'Acme Corporation International Holdings and Subsidiaries of the World';
    const m = renderMail(invitation(long), ctx);
    const shown = shownIn(m.subject);
    expect(graphemes(shown)).toHaveLength(NAME_MAX_CHARS);
    expect(shown.endsWith('…')).toBe(true);
    expect(long.startsWith(shown.slice(0, -1))).toBe(true);
    expect(m.text).toContain(`“${shown}”`);
    expect(m.html).toContain(`“${shown}”`);
    expect(m.text).not.toContain(long);
  });

  it('a name cannot close its quotes and go on as the service’s words', () => {
    const forged = 'Acme" on DocParse. Security notice: your account is locked, sign in at evil.test "x';
    for (const m of [renderMail(invitation(forged), ctx), renderMail(activation(forged), ctx)]) {
      expect(m.subject).toMatch(/^(You have been invited to join|Your DocParse organisation) “[^“”"]*”( on DocParse| is active)$/);
      expect(m.subject).not.toContain('evil.test');
    }
    expect(shownIn(renderMail(invitation('The “Best” Co «Ltd»'), ctx).subject)).toBe("The 'Best' Co 'Ltd'");
  });

  it('control and bidirectional characters of an older name show as escapes; line breaks as a space', () => {
    const m = renderMail(invitation('Evil\u202eCorp\r\nBcc: x@y.test\u001b[31m'), ctx);
    expect(m.subject).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(shownIn(m.subject)).toBe('Evil\\u202eCorp Bcc: x@y.test\\u001b[31m');
    expect(m.text).not.toContain('\u202e');
  });

  it('characters are never cut in half (an emoji sequence at the limit)', () => {
    const shown = shownIn(renderMail(invitation('👩\u200d💻'.repeat(NAME_MAX_CHARS + 5)), ctx).subject);
    expect(graphemes(shown)).toEqual([...Array(NAME_MAX_CHARS - 1).fill('👩\u200d💻'), '…']);
  });

  it('the HTML body escapes the name as well', () => {
    expect(renderMail(invitation('<b>Acme</b> & Co'), ctx).html).toContain('“&lt;b&gt;Acme&lt;/b&gt; &amp; Co”');
  });
});
