// The e-mail family's completeness block (issue 32, item 4): `messages` (the items of
// content.messages; an MBOX entry that is not a message and a PST item that could not be
// read are failed) and `attachments` at every depth (a nested message is an attachment too).
// An attachment is emitted when its content is in the artifact (text, a parsed document, an
// opened nested message); one marked `missed` is failed or skipped, its `note` the reason.
import type { CompletenessCounter } from '../kit/completeness.js';
import type { EmailMessageT } from './schema.js';

export function countMessage(counter: CompletenessCounter, m: EmailMessageT): void {
  if (m.missed) counter.missed('messages', m.missed, m.warnings?.[0] ?? 'the entry could not be read as a message', m.provenance);
  else counter.emitted('messages', 1, isEmptyMessage(m) ? 1 : 0);
  countAttachments(counter, m);
}

function countAttachments(counter: CompletenessCounter, m: EmailMessageT): void {
  for (const a of m.attachments) {
    if (a.missed) counter.missed('attachments', a.missed, a.note ?? 'content not extracted', a.provenance);
    else counter.emitted('attachments', 1, a.extraction !== 'message' && !a.text?.trim() ? 1 : 0);
    if (a.message) countAttachments(counter, a.message);
  }
}

/** No body, no attachments, no Outlook item fields. */
function isEmptyMessage(m: EmailMessageT): boolean {
  return !m.text?.trim() && !m.htmlText?.trim() && !m.rtfText?.trim() && !m.attachments.length && !m.item;
}
