// E-mail: single messages (EML, Outlook MSG), mailboxes (mbox) and Outlook data files (PST).
import type { FamilyDescriptor } from '../kit/family.js';
import { EmailContent } from './schema.js';

const email = async () => import('./index.js');

const MAIL_HEADERS = new Set([
  'from',
  'to',
  'subject',
  'date',
  'message-id',
  'mime-version',
  'received',
  'return-path',
  'delivered-to',
  'reply-to',
  'x-mailer',
]);

/** An RFC 5322 header block: every line a header or a folded continuation, mail headers among them. */
function looksLikeEmail(head: Buffer): boolean {
  const text = head.subarray(0, 8192).toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  if (end <= 0) return false;
  const lines = text.slice(0, end).split(/\r?\n/);
  if (/^From \S/.test(lines[0])) lines.shift(); // an mbox-style envelope line before the headers
  const names: string[] = [];
  for (const line of lines) {
    const m = /^([A-Za-z0-9][A-Za-z0-9-]*):/.exec(line);
    if (m) names.push(m[1].toLowerCase());
    else if (!/^[ \t]/.test(line)) return false;
  }
  return names.length >= 2 && names.includes('from') && names.some((n) => (MAIL_HEADERS.has(n) && n !== 'from') || n === 'content-type');
}

export const emailFamily: FamilyDescriptor = {
  family: 'email',
  title: 'Email',
  docPage: 'email.md',
  formats: [
    { format: 'eml', documentType: 'Eml', extensions: ['eml'], sniff: looksLikeEmail, load: async () => (await email()).parseEml },
    { format: 'msg', documentType: 'Msg', extensions: ['msg'], container: 'ole', load: async () => (await email()).parseMsg },
    {
      format: 'mbox',
      documentType: 'Mbox',
      extensions: ['mbox', 'mbx'],
      signatures: [{ text: /^From \S+.*\d{4}\s*\r?\n/ }],
      load: async () => (await email()).parseMbox,
    },
    { format: 'pst', documentType: 'Pst', extensions: ['pst'], signatures: [{ prefix: '!BDN' }], load: async () => (await email()).parsePst },
  ],
  routing: [],
  chunks: false,
  units: 'message items',
  content: { name: 'EmailContent', schema: EmailContent },
  engines: () => [],
};
