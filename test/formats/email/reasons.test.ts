// E-mail warnings quote what the message holds printably (issue 27, item 7): a Date header
// with an escape sequence and a bare carriage return is shown without them.
import { describe, expect, it } from 'vitest';
import { expectSentence, parseUpload } from '../reasons.js';

describe('E-mail warnings', () => {
  it('an unparseable Date header is quoted printably', async () => {
    const eml = [
      'From: Alice <alice@example.test>',
      'To: Bob <bob@example.test>',
      'Subject: Quarterly memo',
      'Date: Tue, 27 Nov 2001 \u001b[2J\rnot a time',
      '',
      'Hello.',
      '',
    ].join('\r\n');
    const { result, artifact } = await parseUpload(Buffer.from(eml, 'latin1'), 'memo.eml', 'eml');
    expect(result.ok).toBe(true);
    expect(artifact!.warnings).toContain('message 0: unparseable Date header: "Tue, 27 Nov 2001 ?[2J?not a time"');
    for (const w of artifact!.warnings) expectSentence(w);
  });
});
