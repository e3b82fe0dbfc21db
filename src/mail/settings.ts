// What the mailer needs from the configuration, and how an SMTP URL may be shown: never with
// its password.

export interface MailSettings {
  /** smtp:// (STARTTLS when the server offers it) or smtps://; null keeps e-mails in the outbox. */
  smtpUrl: string | null;
  /** The From: address. */
  from: string;
  /** {dashboard_url}, the link in every e-mail. */
  dashboardUrl: string;
}

/** "DocParse <no-reply@HOST>", HOST being the dashboard's: the default sender. */
export function defaultMailFrom(dashboardUrl: string): string {
  let host = 'localhost';
  try {
    host = new URL(dashboardUrl).hostname || host;
  } catch {
    // keep localhost
  }
  return `DocParse <no-reply@${host.replace(/^\[|\]$/g, '')}>`;
}

/** The URL with its password replaced by "***", for logs and messages. */
export function redactSmtpUrl(smtpUrl: string): string {
  try {
    const u = new URL(smtpUrl);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return 'an SMTP URL that cannot be parsed';
  }
}

/** Removes the URL's password (raw and percent-decoded) from a text, e.g. an error message. */
export function withoutSmtpSecret(text: string, smtpUrl: string | null): string {
  if (!smtpUrl) return text;
  let password: string;
  try {
    password = new URL(smtpUrl).password;
  } catch {
    return text;
  }
  if (!password) return text;
  let out = text.split(password).join('***');
  try {
    const decoded = decodeURIComponent(password);
    if (decoded) out = out.split(decoded).join('***');
  } catch {
    // a password that is not valid percent-encoding: only the raw form can appear
  }
  return out;
}

/** The mail settings of a loaded configuration. */
export function mailSettingsOf(config: { smtpUrl: string | null; mailFrom: string; dashboardUrl: string }): MailSettings {
  return { smtpUrl: config.smtpUrl, from: config.mailFrom, dashboardUrl: config.dashboardUrl };
}
