// The monthly Document Unit quota is a hard limit: units are held before the work (a PDF's
// pages as soon as it is opened, a mailbox's messages as they stream), charged only if they
// fit, released on failure, atomically across concurrent jobs. A job that would cross the
// quota fails with quota_exceeded and is charged nothing. Both job backends.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp, createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor, type Mode, type TestEnv, type TestNode } from '../helpers/node.js';
import { pagesPdf } from '../helpers/pdfs.js';
import { monthOf } from '../../src/tenancy/month.js';
import JSZip from 'jszip';

/** A DOCX of three pages (two hard page breaks): its units are known once LibreOffice renders it. */
async function threePageDocx(): Promise<Buffer> {
  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const page = (t: string) => `<w:p><w:r><w:t>${t}</w:t></w:r></w:p>`;
  const brk = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>';
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body>${page('One')}${brk}${page('Two')}${brk}${page('Three')}</w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'nodebuffer' });
}

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

interface Status {
  statusInt: number;
  documentUnits?: number | null;
  error?: { code: string; message: string } | null;
}

for (const mode of ['embedded', 'distributed'] as Mode[]) {
  describe(`quota (${mode})`, () => {
    let env: TestEnv;
    let n: TestNode;
    beforeAll(async () => {
      env = await createTestEnv(mode);
      n = await startTestNode(env);
    });
    afterAll(async () => {
      await n?.close();
      await destroyTestEnv(env);
    });

    async function appWithQuota(units: number) {
      const app = await createApp(n.node, { maxDocumentUnitsPerMonth: units, maxConcurrentJobs: 16 });
      const token = await getToken(n.url, app.clientId, app.clientSecret);
      const upload = async (id: string, query: string, body: Buffer | string) => {
        const r = await fetch(`${n.url}/api/v1/documents/upload?documentId=${id}&${query}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body,
        });
        expect(r.status).toBe(202);
      };
      const finished = (id: string) =>
        waitFor(
          async () => {
            const s = (await (await fetch(`${n.url}/api/v1/documents/${id}/status`, { headers: { authorization: `Bearer ${token}` } })).json()) as Status;
            return s.statusInt === 8 || s.statusInt === 9 ? s : null;
          },
          `${id} to finish`,
          120_000,
        );
      const used = () => n.node.controlPlane.unitsUsed(app.appId, monthOf(new Date()));
      return { ...app, token, upload, finished, used };
    }

    it('a PDF of 1,001 pages, for an app allowed 1,000 units: quota_exceeded, nothing charged', async () => {
      const app = await appWithQuota(1000);
      await app.upload('bomb', 'fileName=bomb.pdf&pdfMode=SingleColumn', pagesPdf(1001));
      const s = await app.finished('bomb');
      expect(s.statusInt).toBe(9);
      expect(s.error).toMatchObject({ code: 'quota_exceeded' });
      expect(s.error!.message).toBe('This document needs 1001 Document Units, but the app has 1000 of its 1000 left this month; nothing was charged.');
      expect(await app.used()).toBe(0);
      // The units it held are released: a document that fits still runs.
      await app.upload('fits', 'fileName=fits.pdf&pdfMode=SingleColumn', pagesPdf(3));
      expect(await app.finished('fits')).toMatchObject({ statusInt: 8, documentUnits: 3 });
      expect(await app.used()).toBe(3);
    });

    it('four 3-page PDFs at once against a quota of 10: three complete, one fails quota_exceeded, 9 units charged', async () => {
      const app = await appWithQuota(10);
      const ids = ['q1', 'q2', 'q3', 'q4'];
      await Promise.all(ids.map((id) => app.upload(id, 'fileName=three.pdf&pdfMode=SingleColumn', pagesPdf(3))));
      const results = await Promise.all(ids.map((id) => app.finished(id)));
      expect(results.filter((s) => s.statusInt === 8)).toHaveLength(3);
      const refused = results.filter((s) => s.statusInt === 9);
      expect(refused).toHaveLength(1);
      expect(refused[0].error?.code).toBe('quota_exceeded');
      expect(await app.used()).toBe(9);
    });

    it('a mailbox is stopped at the message that would cross the quota, charged nothing', async () => {
      const app = await appWithQuota(5);
      const mbox = Array.from(
        { length: 20 },
        (_, i) => `From sender@example.test Mon Jan  1 00:00:00 2024\nFrom: sender@example.test\nTo: r@example.test\nSubject: message ${i}\n\nBody ${i}\n`,
      ).join('\n');
      await app.upload('mbox', 'fileName=box.mbox', mbox);
      const s = await app.finished('mbox');
      expect(s.statusInt).toBe(9);
      expect(s.error?.code).toBe('quota_exceeded');
      expect(s.error?.message).toMatch(/^This document needs 6 Document Units, but the app has 5 of its 5 left this month/);
      expect(await app.used()).toBe(0);
    });

    it('a SQL script is stopped at the statement that would cross the quota, charged nothing', async () => {
      const app = await appWithQuota(2);
      const sql = Array.from({ length: 5 }, (_, i) => `INSERT INTO t VALUES (${i});`).join('\n');
      await app.upload('sql', 'fileName=s.sql&sqlDialect=PostgreSql', sql);
      const s = await app.finished('sql');
      expect(s.statusInt).toBe(9);
      expect(s.error?.message).toMatch(/^This document needs 3 Document Units, but the app has 2 of its 2 left/);
      expect(await app.used()).toBe(0);
    });

    it('units known only at the end (the rendered pages of a DOCX) that cross the quota: the result is not served and nothing is charged', async () => {
      const app = await appWithQuota(2);
      await app.upload('docx', 'fileName=three-pages.docx', await threePageDocx());
      const s = await app.finished('docx');
      expect(s.statusInt).toBe(9);
      expect(s.error?.message).toMatch(/^This document needs 3 Document Units, but the app has 2 of its 2 left/);
      const r = await fetch(`${n.url}/api/v1/documents/docx/result`, { headers: { authorization: `Bearer ${app.token}` } });
      expect(r.status).toBe(422);
      expect(((await r.json()) as { code: string }).code).toBe('quota_exceeded');
      expect(await app.used()).toBe(0);
    });
  });
}
