// Issue 32, items 3–4, on every e-mail file of the corpus: the completeness block adds up and
// matches what content holds (messages; attachments at every depth, nested messages among
// them), and every message and attachment says where it sits (message from 1, attachment path).
import { describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { EmailContent } from '../../../src/formats/email/schema.js';
import { CORPUS_AVAILABLE, corpusPath, parseFile, readManifest } from '../../helpers/parse.js';
import { attachmentsWithPath } from './attachments.js';

const manifest = CORPUS_AVAILABLE ? await readManifest('email') : [];

/** Checks a tally against the parts content holds; `listed` are the gaps that point into content. */
function expectTally(t: any, parts: { missed?: string; empty: boolean }[], unlisted = 0): void {
  expect(t.found).toBe(t.emitted + t.failed + t.skipped);
  expect(t.found).toBe(parts.length + unlisted);
  expect(t.emitted).toBe(parts.filter((p) => !p.missed).length);
  expect(t.empty).toBe(parts.filter((p) => !p.missed && p.empty).length);
  expect(t.failed).toBe(parts.filter((p) => p.missed === 'failed').length + unlisted);
  expect(t.skipped).toBe(parts.filter((p) => p.missed === 'skipped').length);
  if (!t.gapsTruncated) expect(t.gaps).toHaveLength(t.failed + t.skipped);
}

describe.skipIf(!CORPUS_AVAILABLE)('e-mail corpus: completeness matches content, provenance locates each part', () => {
  for (const { file } of manifest) {
    it(file, async () => {
      const r = await parseFile(corpusPath('email', file), file.slice(file.lastIndexOf('.') + 1));
      if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
      const { content, completeness } = r.artifact;
      expect(Value.Check(EmailContent, content), JSON.stringify([...Value.Errors(EmailContent, content)].slice(0, 3))).toBe(true);

      // Messages: each one of content.messages, numbered from 1.
      content.messages.forEach((m: any, i: number) => expect(m.provenance).toEqual({ message: i + 1 }));
      const messageGaps = completeness.messages.gaps.filter((g: any) => g.provenance.message === undefined);
      expectTally(
        completeness.messages,
        content.messages.map((m: any) => ({
          missed: m.missed,
          empty: !m.text?.trim() && !m.htmlText?.trim() && !m.rtfText?.trim() && !m.attachments.length && !m.item,
        })),
        messageGaps.length,
      );

      // Attachments at every depth: the content's count, each at its path, its file name.
      const all = attachmentsWithPath(content.messages);
      expect(all).toHaveLength(content.totalAttachmentCount);
      for (const { a, message, path } of all) {
        expect(a.provenance).toEqual({ message, attachment: path, ...(a.fileName ? { file: a.fileName } : {}) });
        if (a.message) expect(a.message.provenance).toEqual({ message, attachment: path });
        if (a.missed) expect(a.note).toBeTruthy();
        else expect(a.extraction === 'none' || (a.extraction === 'message' && !a.message)).toBe(false);
      }
      expectTally(
        completeness.attachments,
        all.map(({ a }) => ({ missed: a.missed, empty: a.extraction !== 'message' && !a.text?.trim() })),
      );
      // Each gap is an attachment of the content: the reason is its note, the outcome its mark.
      for (const g of completeness.attachments.gaps) {
        const at = all.find((x) => JSON.stringify(x.a.provenance) === JSON.stringify(g.provenance));
        expect(at, JSON.stringify(g)).toBeDefined();
        expect(g).toEqual({ outcome: at!.a.missed, reason: at!.a.note, provenance: at!.a.provenance });
      }
      expect(completeness.complete).toBe(
        completeness.messages.found === completeness.messages.emitted && completeness.attachments.found === completeness.attachments.emitted,
      );
    });
  }
});
