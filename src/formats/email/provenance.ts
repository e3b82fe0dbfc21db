// Where each message and attachment sits in the upload (issue 32, item 3). A top-level message
// is { message } (from 1, in content.messages order); an attachment adds its path, one number
// per level of nested messages, and its file name. A nested message keeps its top-level
// message and carries the path of the attachment that holds it.
import type { EmailMessageT } from './schema.js';

export function stampProvenance(m: EmailMessageT, message: number, path: number[] = []): void {
  m.provenance = path.length ? { message, attachment: path } : { message };
  m.attachments.forEach((a, i) => {
    const at = [...path, i + 1];
    a.provenance = { message, attachment: at, ...(a.fileName ? { file: a.fileName } : {}) };
    if (a.message) stampProvenance(a.message, message, at);
  });
}
