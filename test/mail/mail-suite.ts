// The tenant lifecycle e-mail end to end, against a real SMTP server on 127.0.0.1: activation
// writes the e-mail to the outbox in the state change's transaction, a background sender
// delivers it (retrying through an outage), several senders never deliver one twice, and
// without SMTP the CLI shows it. Run on PGlite and on PostgreSQL.
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../helpers/admin-cli.js';
import { enqueueMail, MAIL_PER_RECIPIENT_PER_DAY, OutboxStore, RecipientMailLimitError } from '../../src/mail/outbox-store.js';
import { tenantMailHooks } from '../../src/tenancy/tenant-mail.js';
import { startOutboxSender, type OutboxSender, type OutboxSenderDeps } from '../../src/mail/sender.js';
import type { MailSettings } from '../../src/mail/settings.js';
import type { SqlClient } from '../../src/db/sql.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { waitFor } from '../helpers/node.js';
import { createSmtpSink, type SmtpSink } from './smtp-sink.js';

export interface MailEnv {
  store: SqlControlPlaneStore;
  /** A second, independent connection to the same database (another node), when the engine has one. */
  secondClient?: () => Promise<{ db: SqlClient; close(): Promise<void> }>;
  dispose(): Promise<void>;
}

const DASHBOARD = 'https://dash.example.test/dashboard';
const FROM = 'DocParse <no-reply@example.test>';
const FAST_RETRY = { baseMs: 100, maxMs: 400 };
const quiet = pino({ level: 'silent' });

export function mailSuite(engine: string, open: () => Promise<MailEnv>): void {
  describe(`tenant lifecycle e-mail (${engine})`, () => {
    let env: MailEnv;
    let sink: SmtpSink;
    const senders: OutboxSender[] = [];

    beforeAll(async () => {
      env = await open();
      sink = await createSmtpSink();
    });
    afterEach(async () => {
      await Promise.all(senders.splice(0).map((s) => s.stop()));
      await sink.stop();
      sink.received.length = 0;
    });
    afterAll(async () => {
      await sink?.stop();
      await env?.dispose();
    });

    const settings = (smtpUrl: string | null): MailSettings => ({ smtpUrl, from: FROM, dashboardUrl: DASHBOARD });
    function sender(over: Partial<OutboxSenderDeps> = {}): OutboxSender {
      const s = startOutboxSender({
        db: env.store.db,
        settings: settings(sink.url),
        logger: quiet,
        pollMs: 50,
        retry: FAST_RETRY,
        hooks: tenantMailHooks,
        ...over,
      });
      senders.push(s);
      return s;
    }
    const outbox = () => new OutboxStore(env.store.db);
    async function newTenant(contactEmail: string | null, owners: string[] = []) {
      const t = await env.store.createTenant({ name: `Acme ${randomUUID().slice(0, 6)}`, contactEmail });
      for (const email of owners) {
        await env.store.db.query("INSERT INTO tenant_members (tenant_id, email, role) VALUES ($1, $2, 'owner')", [t.id, email]);
      }
      return t;
    }
    const mailsFor = (address: string) => sink.received.filter((m) => m.envelopeTo.includes(address));

    it('activation e-mails the owners: right recipients, subject and link, sent once', async () => {
      await sink.start();
      const t = await newTenant('contact@acme.test', ['owner1@acme.test', 'owner2@acme.test']);
      await env.store.db.query("INSERT INTO tenant_members (tenant_id, email, role) VALUES ($1, 'member@acme.test', 'member')", [t.id]);
      sender();
      await env.store.setTenantState(t.id, 'Active');
      await env.store.setTenantState(t.id, 'Active'); // already Active: no second e-mail

      const [mail] = await waitFor(async () => (mailsFor('owner1@acme.test').length ? mailsFor('owner1@acme.test') : null), 'the activation e-mail');
      expect(mail.envelopeTo.sort()).toEqual(['owner1@acme.test', 'owner2@acme.test']);
      expect(mail.user).toBe('sender');
      expect(mail.parsed.subject).toBe(`Your DocParse organisation “${t.name}” is active`);
      expect(mail.parsed.from?.value).toEqual([{ name: 'DocParse', address: 'no-reply@example.test' }]);
      expect(mail.parsed.text).toContain(DASHBOARD);
      expect(mail.parsed.html).toContain(`href="${DASHBOARD}"`);
      expect(mail.parsed.messageId).toMatch(/@dash\.example\.test>?$/);

      const [row] = await outbox().list({ tenantId: t.id });
      await waitFor(async () => (await outbox().get(row.id))?.sentAt, 'the outbox row stamped sent');
      await new Promise((r) => setTimeout(r, 300));
      expect(sink.received.filter((m) => m.parsed.subject?.includes(t.name))).toHaveLength(1);
      expect(mailsFor('member@acme.test')).toHaveLength(0);
      expect(mailsFor('contact@acme.test')).toHaveLength(0);
    });

    it('a tenant without owners is e-mailed at its contact address; reactivation says "active again"', async () => {
      await sink.start();
      const t = await newTenant('ops@globex.test');
      sender();
      await env.store.setTenantState(t.id, 'Active');
      await waitFor(async () => mailsFor('ops@globex.test').length === 1, 'the activation e-mail');
      await env.store.setTenantState(t.id, 'Deactivated');
      await env.store.setTenantState(t.id, 'Active');
      const again = await waitFor(async () => mailsFor('ops@globex.test')[1], 'the reactivation e-mail');
      expect(again.parsed.subject).toBe(`Your DocParse organisation “${t.name}” is active again`);
    });

    it('a tenant with nobody to write to activates without an e-mail', async () => {
      const t = await newTenant(null);
      expect((await env.store.setTenantState(t.id, 'Active')).state).toBe('Active');
      expect(await outbox().list({ tenantId: t.id })).toEqual([]);
    });

    it('the e-mail commits with the state change or not at all', async () => {
      const t = await newTenant('rollback@acme.test');
      await expect(
        env.store.db.transaction(async (tx) => {
          const { SqlControlPlaneStore } = await import('../../src/tenancy/sql-store.js');
          await new SqlControlPlaneStore(tx).setTenantState(t.id, 'Active');
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect((await env.store.getTenant(t.id))!.state).toBe('Pending Activation');
      expect(await outbox().list({ tenantId: t.id })).toEqual([]);
    });

    it('SMTP down during activation: the e-mail stays in the outbox, and is delivered once after the server is back', async () => {
      const t = await newTenant('outage@acme.test');
      sender();
      await env.store.setTenantState(t.id, 'Active');
      const [row] = await outbox().list({ tenantId: t.id });
      const failed = await waitFor(async () => {
        const m = await outbox().get(row.id);
        return m && m.attempts >= 2 ? m : null;
      }, 'two failed attempts');
      expect(failed.sentAt).toBeNull();
      expect(failed.lastError).toMatch(/ECONNREFUSED|connect/i);
      expect(failed.lastError).not.toContain(sink.password);

      await sink.start();
      await waitFor(async () => mailsFor('outage@acme.test').length > 0, 'delivery after the outage');
      await waitFor(async () => (await outbox().get(row.id))?.sentAt, 'the row stamped sent');
      await new Promise((r) => setTimeout(r, 500));
      expect(mailsFor('outage@acme.test')).toHaveLength(1);
    });

    it('a restart loses nothing: a sender stopped with e-mail pending, a new one delivers it', async () => {
      const t = await newTenant('restart@acme.test');
      const first = sender();
      await env.store.setTenantState(t.id, 'Active');
      const [row] = await outbox().list({ tenantId: t.id });
      await waitFor(async () => ((await outbox().get(row.id))?.attempts ?? 0) >= 1, 'a failed attempt');
      await first.stop();

      await sink.start();
      sender();
      await waitFor(async () => mailsFor('restart@acme.test').length > 0, 'delivery by the new sender');
      expect((await waitFor(async () => (await outbox().get(row.id))?.sentAt, 'sent')).length).toBeGreaterThan(0);
    });

    it('several senders on one database never deliver one e-mail twice', async () => {
      await sink.start();
      const tenant = await newTenant(null);
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) {
        const id = await enqueueMail(env.store.db, {
          dedupeKey: `race:${tenant.id}:${i}`,
          message: { template: 'tenant-active', params: { tenantId: tenant.id, tenantName: `race ${i}`, reactivated: false } },
          recipients: [`race${i}@acme.test`],
          tenantId: tenant.id,
        });
        ids.push(id!);
      }
      const other = env.secondClient ? await env.secondClient() : null;
      try {
        // Two "nodes" (on PostgreSQL: two connection pools), each with two senders.
        const dbs = [env.store.db, other?.db ?? env.store.db];
        for (const db of dbs) for (let k = 0; k < 2; k++) sender({ db, batchSize: 3, pollMs: 20 });
        await waitFor(async () => sink.received.filter((m) => m.envelopeTo[0]?.startsWith('race')).length >= 40, 'all 40 e-mails', 30_000);
        await Promise.all(senders.splice(0).map((s) => s.stop()));
        await new Promise((r) => setTimeout(r, 300));
        const raced = sink.received.filter((m) => m.envelopeTo[0]?.startsWith('race'));
        expect(raced).toHaveLength(40);
        expect(new Set(raced.map((m) => m.envelopeTo[0])).size).toBe(40);
        for (const id of ids) expect((await outbox().get(id))!.sentAt).not.toBeNull();
      } finally {
        await other?.close();
      }
    });

    it('STARTTLS is used when the server offers it', async () => {
      const tls = await createSmtpSink({ starttls: true });
      await tls.start();
      try {
        const t = await newTenant('tls@acme.test');
        sender({ settings: settings(tls.url) });
        await env.store.setTenantState(t.id, 'Active');
        const mail = await waitFor(async () => tls.received[0], 'the e-mail over STARTTLS');
        expect(mail.secure).toBe(true);
        expect(mail.envelopeTo).toEqual(['tls@acme.test']);
      } finally {
        await Promise.all(senders.splice(0).map((s) => s.stop()));
        await tls.stop();
      }
    });

    it('an invitation gets its e-mail through the same outbox, and its mailedAt says when', async () => {
      await sink.start();
      const t = await newTenant(null);
      const invitationId = randomUUID();
      await env.store.db.query(
        "INSERT INTO tenant_invitations (id, tenant_id, email, role, invited_by) VALUES ($1, $2, 'new.member@acme.test', 'member', 'operator-key:k1')",
        [invitationId, t.id],
      );
      sender();
      const mail = await waitFor(async () => mailsFor('new.member@acme.test')[0], 'the invitation e-mail');
      expect(mail.parsed.subject).toBe(`You have been invited to join “${t.name}” on DocParse`);
      expect(mail.parsed.text).toContain('as a member');
      expect(mail.parsed.text).toContain(DASHBOARD);
      await waitFor(async () => {
        const { rows } = await env.store.db.query<{ mailed_at: unknown }>('SELECT mailed_at FROM tenant_invitations WHERE id = $1', [invitationId]);
        return rows[0].mailed_at !== null;
      }, 'mailed_at stamped');
      await new Promise((r) => setTimeout(r, 300));
      expect(mailsFor('new.member@acme.test')).toHaveLength(1);
    });

    it('without DOCPARSE_SMTP_URL the e-mail stays in the outbox and the CLI shows it', async () => {
      const t = await newTenant('kept@acme.test');
      sender({ settings: settings(null) });
      await env.store.setTenantState(t.id, 'Active');
      await new Promise((r) => setTimeout(r, 200));

      const lines: string[] = [];
      const cli = async (...argv: string[]) => {
        lines.length = 0;
        const code = await runAdmin(argv, env.store, (l) => lines.push(l), { mail: settings(null) });
        return { code, text: lines.join('\n'), lines: [...lines] };
      };
      const list = await cli('mail', 'list', '--tenant', t.id, '--json');
      expect(list.code).toBe(0);
      const [item] = JSON.parse(list.lines[0]);
      expect(item).toMatchObject({
        status: 'kept',
        template: 'tenant-active',
        to: ['kept@acme.test'],
        subject: `Your DocParse organisation “${t.name}” is active`,
        sentAt: null,
        attempts: 0,
      });

      const human = await cli('mail', 'list', '--tenant', t.id);
      expect(human.text).toContain(item.id);
      expect(human.text).toContain('kept (no DOCPARSE_SMTP_URL)');

      const show = await cli('mail', 'show', item.id);
      expect(show.code).toBe(0);
      expect(show.text).toContain('to:           kept@acme.test');
      expect(show.text).toContain(DASHBOARD);
      const shown = JSON.parse((await cli('mail', 'show', item.id, '--json')).lines[0]);
      expect(shown.html).toContain(`href="${DASHBOARD}"`);
      expect((await cli('mail', 'show', 'nope')).code).toBe(1);
      expect(sink.received).toHaveLength(0);
    });

    // Last: the e-mails these leave unsent would go to the next test's SMTP server.
    it(`an address is sent at most ${MAIL_PER_RECIPIENT_PER_DAY} e-mails a day: an activation leaves it out and still e-mails the other owners`, async () => {
      const busy = `busy.${randomUUID().slice(0, 6)}@acme.test`;
      const first = await newTenant(null);
      const mail = (i: number, overLimit?: 'refuse') => ({
        dedupeKey: `busy:${busy}:${i}`,
        message: { template: 'tenant-active' as const, params: { tenantId: first.id, tenantName: `busy ${i}`, reactivated: false } },
        recipients: [busy.toUpperCase()],
        tenantId: first.id,
        ...(overLimit ? { overLimit } : {}),
      });
      for (let i = 0; i < MAIL_PER_RECIPIENT_PER_DAY; i++) expect(await enqueueMail(env.store.db, mail(i))).not.toBeNull();
      expect(await enqueueMail(env.store.db, mail(MAIL_PER_RECIPIENT_PER_DAY))).toBeNull();
      const refused = await enqueueMail(env.store.db, mail(MAIL_PER_RECIPIENT_PER_DAY, 'refuse')).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RecipientMailLimitError);
      expect((refused as RecipientMailLimitError).address).toBe(busy);
      expect((refused as RecipientMailLimitError).retryAfterSeconds).toBeGreaterThan(0);
      expect((refused as RecipientMailLimitError).retryAfterSeconds).toBeLessThanOrEqual(86_400);

      const t = await newTenant(null, [busy, 'calm.owner@acme.test']);
      await env.store.setTenantState(t.id, 'Active');
      const [activation] = await outbox().list({ tenantId: t.id });
      expect(activation.recipients).toEqual(['calm.owner@acme.test']);
    });

    it('e-mails to one address enqueued at once, from two connections, never pass its limit together', async () => {
      const address = `race.${randomUUID().slice(0, 6)}@acme.test`;
      const tenant = await newTenant(null);
      const other = env.secondClient ? await env.secondClient() : null;
      try {
        const dbs = [env.store.db, other?.db ?? env.store.db];
        const ids = await Promise.all(
          Array.from({ length: 2 * MAIL_PER_RECIPIENT_PER_DAY }, (_, i) =>
            enqueueMail(dbs[i % 2], {
              dedupeKey: `race-limit:${address}:${i}`,
              message: { template: 'tenant-active', params: { tenantId: tenant.id, tenantName: `race ${i}`, reactivated: false } },
              recipients: [address],
              tenantId: tenant.id,
            }),
          ),
        );
        expect(ids.filter((id) => id !== null)).toHaveLength(MAIL_PER_RECIPIENT_PER_DAY);
      } finally {
        await other?.close();
      }
    });
  });
}
