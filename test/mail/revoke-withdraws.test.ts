// Revoking an invitation withdraws its e-mail: on a node whose mailer sends through a real SMTP
// server on 127.0.0.1, an invitation revoked before its e-mail went out never reaches the
// server, while one sent after it does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { startNode, type RunningNode } from '../../src/node.js';
import { OutboxStore } from '../../src/mail/outbox-store.js';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { createTestEnv, destroyTestEnv, waitFor, type TestEnv } from '../helpers/node.js';
import { createSmtpSink, type SmtpSink } from './smtp-sink.js';

describe('a revoked invitation’s e-mail', () => {
  let t: TestEnv;
  let node: RunningNode;
  let sink: SmtpSink;
  let op: Record<string, string>;

  beforeAll(async () => {
    sink = await createSmtpSink();
    t = await createTestEnv('embedded', { DOCPARSE_SEED_DEMO: 'false', DOCPARSE_SMTP_URL: sink.url });
    node = await startNode(loadConfig(t.env, ['api']), { logger: pino({ level: 'silent' }) });
    op = {
      authorization: `Bearer ${(await new OperatorKeysStore((node.controlPlane as SqlControlPlaneStore).db).create('mail')).key}`,
      'content-type': 'application/json',
    };
  }, 120_000);
  afterAll(async () => {
    await node?.close();
    await sink?.stop();
    if (t) await destroyTestEnv(t);
  });

  const m = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${node.port}/manage/v1${path}`, {
      method,
      headers: op,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const outbox = () => new OutboxStore((node.controlPlane as SqlControlPlaneStore).db);

  it('is withdrawn unsent: the SMTP server never sees it', async () => {
    // The SMTP server is down while the invitation is made and revoked: the e-mail waits in the outbox.
    const tenant = (await m('POST', '/tenants', { name: 'Withdrawn Ltd' })).body;
    const invitation = (await m('POST', `/tenants/${tenant.id}/invitations`, { email: 'changed.mind@withdrawn.test', role: 'member' })).body;
    const [queued] = await outbox().list({ tenantId: tenant.id });
    expect(queued.recipients).toEqual(['changed.mind@withdrawn.test']);

    expect((await m('DELETE', `/tenants/${tenant.id}/invitations/${invitation.id}`)).status).toBe(200);
    const shown = (await m('GET', `/mail/${queued.id}`)).body;
    expect(shown).toMatchObject({ status: 'withdrawn', sentAt: null, nextAttemptAt: null });
    expect((await m('GET', `/mail?tenantId=${tenant.id}&pending=true`)).body.items).toEqual([]);

    // The server is back, and the withdrawn e-mail is due: were it still queued, the sender would
    // take it in the same pass as (and before) the next invitation's.
    await sink.start();
    await waitFor(async () => Date.parse((await outbox().get(queued.id))!.nextAttemptAt) < Date.now(), 'the withdrawn e-mail to be due');
    await m('POST', `/tenants/${tenant.id}/invitations`, { email: 'still.wanted@withdrawn.test', role: 'member' });
    const delivered = await waitFor(async () => sink.received.find((r) => r.envelopeTo.includes('still.wanted@withdrawn.test')), 'the second invitation');
    expect(delivered.parsed.subject).toBe('You have been invited to join “Withdrawn Ltd” on DocParse');
    expect(sink.received.filter((r) => r.envelopeTo.includes('changed.mind@withdrawn.test'))).toEqual([]);
    expect((await outbox().get(queued.id))!.sentAt).toBeNull();
  });
});
