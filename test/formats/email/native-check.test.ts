// Provenance checked against an independent reading (issue 32, "Proof"): Python's standard
// library (mailbox, email) reads the corpus mail, and each message it finds must be the
// message our provenance numbers so, and each named attachment must sit where our attachment
// path says (same message, same nesting depth, same order). Needs python3 and the corpus.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CORPUS_AVAILABLE, corpusPath, parseFile, readManifest } from '../../helpers/parse.js';
import { attachmentsWithPath } from './attachments.js';

const PYTHON = spawnSync('python3', ['--version']).status === 0;
const files = CORPUS_AVAILABLE ? (await readManifest('email')).map((m) => m.file) : [];

/** For each message of an mbox (mailbox.mbox) or an EML: Message-ID, Subject, and its named attachments as [depth, name] in document order. */
const READER = String.raw`
import sys, json, mailbox, email
from email.header import decode_header, make_header

def name_of(part):
    n = part.get_filename() or part.get_param('name')
    if not n:
        return None
    return str(make_header(decode_header(n))) if '=?' in n else n

def attachments(msg, depth):
    # Every leaf part with a file name, and every attached message, in document order.
    out = []
    for part in (msg.get_payload() if msg.is_multipart() else [msg]):
        if part.get_content_type() in ('message/rfc822', 'message/global'):
            if name_of(part): out.append([depth, name_of(part)])
            inner = part.get_payload(0) if part.is_multipart() else None
            if inner is not None: out += attachments(inner, depth + 1)
        elif part.is_multipart():
            out += attachments(part, depth)
        elif name_of(part):
            out.append([depth, name_of(part)])
    return out

def describe(msg):
    return {'messageId': msg['Message-ID'], 'subject': str(make_header(decode_header(msg['Subject'] or ''))), 'attachments': attachments(msg, 0)}

path = sys.argv[1]
if path.endswith('.mbox'):
    print(json.dumps([describe(m) for m in mailbox.mbox(path, create=False)]))
else:
    with open(path, 'rb') as f:
        # Read as text, raw 8-bit kept as UTF-8 where it is (a file name with raw non-ASCII).
        print(json.dumps([describe(email.message_from_string(f.read().decode('utf-8', 'surrogateescape')))]))
`;

function pythonReads(file: string): { messageId: string | null; subject: string | null; attachments: [number, string][] }[] {
  const r = spawnSync('python3', ['-c', READER, file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

async function ours(file: string): Promise<any> {
  const r = await parseFile(corpusPath('email', file), file.slice(file.lastIndexOf('.') + 1));
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  return r.artifact.content;
}

/** Our named attachments per message, as [depth, name] in document order, from provenance alone. */
function namedByProvenance(content: any): [number, string][][] {
  const out: [number, string][][] = content.messages.map(() => []);
  for (const { a } of attachmentsWithPath(content.messages)) {
    if (a.provenance.file) out[a.provenance.message - 1].push([a.provenance.attachment.length - 1, a.provenance.file]);
  }
  return out;
}

describe.skipIf(!CORPUS_AVAILABLE || !PYTHON)('provenance against Python’s mailbox and email modules', () => {
  it('tika__complex.mbox: the messages Python finds are our messages 1, 2, 3 in that order', async () => {
    const native = pythonReads(corpusPath('email', 'tika__complex.mbox'));
    const content = await ours('tika__complex.mbox');
    expect(native).toHaveLength(3);
    expect(content.messages).toHaveLength(native.length);
    native.forEach((n, i) => {
      const m = content.messages.find((x: any) => x.provenance.message === i + 1);
      expect(m.messageId).toBe(n.messageId);
      expect(m.subject).toBe(n.subject);
    });
  });

  // Python's mbox starts a message at every "From " line; the mboxo files hold an unescaped
  // "From " body line after a blank line on purpose (their MANIFEST: naive splitters find 6).
  const mboxes = files.filter((f) => f.endsWith('.mbox') && !f.startsWith('synthetic__mboxo'));
  for (const file of mboxes) {
    it(`${file}: as many messages as Python finds, with the same Message-IDs in provenance order`, async () => {
      const native = pythonReads(corpusPath('email', file));
      const content = await ours(file);
      expect(content.messages.map((m: any) => [m.provenance.message, m.messageId])).toEqual(native.map((n, i) => [i + 1, n.messageId]));
    });
  }

  for (const file of files.filter((f) => f.endsWith('.eml'))) {
    it(`${file}: named attachments at the message, depth and order our attachment paths give`, async () => {
      const native = pythonReads(corpusPath('email', file));
      expect(namedByProvenance(await ours(file))).toEqual(native.map((n) => n.attachments));
    });
  }

  it('the check covers the mailboxes and the named attachments of the corpus', () => {
    expect(mboxes.length).toBeGreaterThanOrEqual(10);
    const named = files.filter((f) => f.endsWith('.eml')).flatMap((f) => pythonReads(corpusPath('email', f))[0].attachments);
    expect(named.length).toBeGreaterThanOrEqual(15);
  });
});
