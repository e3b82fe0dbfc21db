// DOCPARSE_SMTP_URL and DOCPARSE_MAIL_FROM: accepted forms, refusals that never repeat the
// password, the default sender, and URLs as they may be logged.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { defaultMailFrom, redactSmtpUrl, withoutSmtpSecret } from '../../src/mail/settings.js';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
}

describe('mail configuration', () => {
  it('reads the SMTP URL and the sender; without them e-mail stays in the outbox from a default sender', () => {
    const c = loadConfig({ DOCPARSE_SMTP_URL: 'smtp://u:s3cret@mail.example.com:587', DOCPARSE_MAIL_FROM: 'Acme <billing@acme.test>' });
    expect(c).toMatchObject({ smtpUrl: 'smtp://u:s3cret@mail.example.com:587', mailFrom: 'Acme <billing@acme.test>' });
    const d = loadConfig({ DOCPARSE_DASHBOARD_URL: 'https://dash.acme.test/x' });
    expect(d).toMatchObject({ smtpUrl: null, mailFrom: 'DocParse <no-reply@dash.acme.test>' });
    expect(loadConfig({ DOCPARSE_SMTP_URL: 'smtps://mail.example.com' }).smtpUrl).toBe('smtps://mail.example.com');
  });

  it('refuses a bad SMTP URL without repeating its password, and a sender that is not an address', () => {
    const bad = [...problems({ DOCPARSE_SMTP_URL: 'http://u:hunter2@mail.example.com' }), ...problems({ DOCPARSE_SMTP_URL: 'smtp://u:hunter2@[bad' })];
    expect(bad).toHaveLength(2);
    expect(bad[0]).toMatch(/DOCPARSE_SMTP_URL must use smtp:\/\/ or smtps:\/\//);
    expect(bad[1]).toMatch(/DOCPARSE_SMTP_URL is not a valid URL/);
    expect(bad.join(' ')).not.toContain('hunter2');
    expect(problems({ DOCPARSE_MAIL_FROM: 'not an address' })[0]).toMatch(/DOCPARSE_MAIL_FROM/);
    expect(problems({ DOCPARSE_MAIL_FROM: 'x@y.test\r\nBcc: z@y.test' })[0]).toMatch(/DOCPARSE_MAIL_FROM/);
  });

  it('shows SMTP URLs and errors without the password', () => {
    expect(redactSmtpUrl('smtp://user:p%40ss@mail.example.com:587')).toBe('smtp://user:***@mail.example.com:587');
    expect(withoutSmtpSecret('login p@ss refused (p%40ss)', 'smtp://user:p%40ss@mail.example.com')).toBe('login *** refused (***)');
    expect(defaultMailFrom('http://[::1]:8080/dashboard')).toBe('DocParse <no-reply@::1>');
  });
});
