// JSON Schema (TypeBox) of the email family's artifact `content` (EML, MBOX, MSG, PST).
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ProvenanceSchema } from '../kit/provenance.js';

export const EmailAddress = Type.Object({
  name: Type.Union([Type.String(), Type.Null()]),
  address: Type.Union([Type.String(), Type.Null()]),
});

const Header = Type.Object({ name: Type.String(), value: Type.String() });

/** A piece of a parsed attachment's text and where it came from (page, sheet or slide of the attachment). */
const AttachmentPart = Type.Object(
  { text: Type.String(), provenance: ProvenanceSchema },
  { additionalProperties: false, description: "One page, sheet or slide of a 'parsed' attachment" },
);

/** A message; `attachments[].message` nests the same shape (recursive). */
export const EmailMessage = Type.Recursive(
  (Self) =>
    Type.Object({
      index: Type.Optional(Type.Integer({ minimum: 0, description: 'Position among the billed items (top level only).' })),
      provenance: Type.Optional(ProvenanceSchema),
      missed: Type.Optional(
        Type.Literal('failed', {
          description: 'MBOX: the entry could not be parsed as a message (counted failed in `completeness`); its raw text is in `text`, `warnings` says why',
        }),
      ),
      folderPath: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'PST folder path ("/"-joined); MBOX: the mailbox name.' })),
      labels: Type.Optional(Type.Array(Type.String(), { description: 'Gmail labels (X-Gmail-Labels) for MBOX exports.' })),
      itemClass: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Outlook item class (IPM.Note, IPM.Contact, …).' })),
      messageId: Type.Union([Type.String(), Type.Null()]),
      subject: Type.Union([Type.String(), Type.Null()]),
      from: Type.Array(EmailAddress),
      sender: Type.Optional(Type.Union([EmailAddress, Type.Null()])),
      to: Type.Array(EmailAddress),
      cc: Type.Array(EmailAddress),
      bcc: Type.Array(EmailAddress),
      replyTo: Type.Array(EmailAddress),
      date: Type.Union([Type.String({ description: 'ISO 8601 UTC' }), Type.Null()]),
      dateRaw: Type.Union([Type.String(), Type.Null()]),
      inReplyTo: Type.Union([Type.String(), Type.Null()]),
      references: Type.Array(Type.String()),
      headers: Type.Array(Header, { description: 'Every header in order, unfolded, encoded-words decoded.' }),
      text: Type.Union([Type.String(), Type.Null()]),
      html: Type.Union([Type.String(), Type.Null()]),
      htmlText: Type.Union([Type.String(), Type.Null()], { description: 'Text of the HTML body.' }),
      rtfText: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Text of an RTF-only body (MSG/PST).' })),
      item: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Fields of non-mail Outlook items (contact, appointment, task).' })),
      attachments: Type.Array(
        Type.Object({
          fileName: Type.Union([Type.String(), Type.Null()]),
          contentType: Type.Union([Type.String(), Type.Null()]),
          size: Type.Integer({ minimum: 0 }),
          sha256: Type.Union([Type.String({ pattern: '^[0-9a-f]{64}$' }), Type.Null()]),
          disposition: Type.Union([Type.String(), Type.Null()]),
          contentId: Type.Union([Type.String(), Type.Null()]),
          extraction: Type.Union(
            [Type.Literal('text'), Type.Literal('html'), Type.Literal('csv'), Type.Literal('message'), Type.Literal('parsed'), Type.Literal('none')],
            { description: "'parsed': a PDF or Office/OpenDocument attachment read by that family's parser; its text is in `text`." },
          ),
          format: Type.Optional(Type.String({ description: "For 'parsed': the attachment's format (pdf, docx, …)." })),
          text: Type.Optional(Type.String()),
          textTruncated: Type.Optional(Type.Boolean()),
          note: Type.Optional(Type.String({ description: 'Why the content was not extracted, or which service format it is.' })),
          missed: Type.Optional(
            Type.Union([Type.Literal('failed'), Type.Literal('skipped')], {
              description: "Set when the content is not in the artifact: 'failed' (unreadable) or 'skipped' (left out on purpose); `note` says why",
            }),
          ),
          provenance: Type.Optional(ProvenanceSchema),
          parts: Type.Optional(
            Type.Array(AttachmentPart, {
              description: "For 'parsed': `text` split by page, sheet or slide, each with its provenance; `text` is the parts' text joined with newlines",
            }),
          ),
          message: Type.Optional(Type.Union([Self, Type.Null()], { description: 'The nested message (message/rfc822, embedded MSG).' })),
        }),
      ),
      attachmentCount: Type.Integer({ minimum: 0, description: 'Attachments of this message itself (a nested message is one of them).' }),
      totalAttachmentCount: Type.Integer({ minimum: 0, description: 'Attachments of this message and of its nested messages, at every depth.' }),
      nestedMessageCount: Type.Integer({ minimum: 0, description: 'Nested messages at every depth.' }),
      mbox: Type.Optional(Type.Object({ fromLine: Type.String(), line: Type.Integer({ minimum: 1 }) })),
      warnings: Type.Optional(Type.Array(Type.String())),
    }),
  { $id: 'EmailMessage' },
);

export const EmailContent = Type.Object({
  format: Type.Union([Type.Literal('eml'), Type.Literal('msg'), Type.Literal('mbox'), Type.Literal('pst')]),
  messages: Type.Array(EmailMessage as TSchema),
  messageCount: Type.Integer({ minimum: 0, description: 'Billed items: one per message (nested messages are not billed).' }),
  attachmentCount: Type.Integer({ minimum: 0, description: 'Attachments of the billed items themselves.' }),
  totalAttachmentCount: Type.Integer({ minimum: 0, description: 'Attachments at every depth, inside nested messages too.' }),
  nestedMessageCount: Type.Integer({ minimum: 0, description: 'Nested messages at every depth (not billed).' }),
  folders: Type.Optional(Type.Array(Type.Object({ path: Type.String(), messageCount: Type.Integer({ minimum: 0 }) }))),
  store: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'PST message store properties.' })),
});

export type EmailMessageT = Static<typeof EmailMessage>;
export type EmailAttachmentT = EmailMessageT['attachments'][number];
export type EmailAddressT = Static<typeof EmailAddress>;
