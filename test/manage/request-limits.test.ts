// No relay for spam or phishing: the management API's limits on tenants a user creates,
// invitations a tenant sends or an address receives, and e-mails an address gets — each
// refusal a 429 rate_limited with Retry-After and an audit entry, nothing created or queued.
// Operators are not limited (but an address's e-mails are, whoever sends them). On a node of
// the embedded default, and on two distributed nodes sharing PostgreSQL and Redis (the limits
// hold across nodes, also for requests racing each other).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { startNode, type RunningNode } from '../../src/node.js';
import type { RequestContext } from '../../src/http/route.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import { MANAGE_LIMITS } from '../../src/manage/api/request-limits.js';
import { MAIL_PER_RECIPIENT_PER_DAY } from '../../src/mail/outbox-store.js';
import { createTestEnv, destroyTestEnv, type Mode, type TestEnv } from '../helpers/node.js';

/** The dashboard's sign-in stood in for (as in api-suite.ts): the signed-in user's address comes in a header. */
const CSRF = 'limits-csrf-token';
const signedInUser = async (ctx: RequestContext) => {
  const email = ctx.headers['x-test-user'];
  return email ? { userId: `user:${email}`, email, csrfToken: CSRF } : null;
};

type As = { key: string } | { user: string };

interface Cluster {
  t: TestEnv;
  nodes: RunningNode[];
  operatorKey: string;
  close(): Promise<void>;
}

async function startCluster(mode: Mode, count: number): Promise<Cluster> {
  const t = await createTestEnv(mode, { DOCPARSE_SEED_DEMO: 'false' });
  const nodes: RunningNode[] = [];
  for (let i = 0; i < count; i++) {
    nodes.push(await startNode(loadConfig(t.env, ['api']), { logger: pino({ level: 'silent' }), redisPrefix: t.redisPrefix, manageSessions: signedInUser }));
  }
  const operatorKey = (await new OperatorKeysStore((nodes[0].controlPlane as SqlControlPlaneStore).db).create('limits')).key;
  return {
    t,
    nodes,
    operatorKey,
    close: async () => {
      for (const n of nodes) await n.close();
      await destroyTestEnv(t);
    },
  };
}

function client(node: RunningNode) {
  return async (method: string, path: string, as: As, body?: unknown) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    if ('key' in as) headers.authorization = `Bearer ${as.key}`;
    else Object.assign(headers, { 'x-test-user': as.user, 'x-csrf-token': CSRF });
    const res = await fetch(`http://127.0.0.1:${node.port}/manage/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, retryAfter: res.headers.get('retry-after') };
  };
}

type Answer = Awaited<ReturnType<ReturnType<typeof client>>>;

function expectLimited(r: Answer, limitName: string, limit: number, maxWait: number): void {
  expect(r.status, JSON.stringify(r.body)).toBe(429);
  expect(r.body).toMatchObject({ code: 'rate_limited', limitName, limit });
  const wait = Number(r.retryAfter);
  expect(wait).toBeGreaterThan(0);
  expect(wait).toBeLessThanOrEqual(maxWait);
}

/**
 * Fixed windows start on the hour and at UTC midnight: a test that fills one waits until the
 * current one has room for the whole test (at most `margin` seconds), so it never straddles two.
 */
async function awayFromWindowEdge(windowSeconds: number, margin = 30): Promise<void> {
  const left = windowSeconds - ((Date.now() / 1000) % windowSeconds);
  if (left < margin) await new Promise((r) => setTimeout(r, left * 1000 + 500));
}

const HOUR = 3600;
const DAY = 86_400;

describe('management API limits (embedded)', () => {
  let c: Cluster;
  let m: ReturnType<typeof client>;
  let op: As;
  const auditActions = async (action: string) => ((await m('GET', '/audit?limit=500', op)).body.items as any[]).filter((e) => e.action === action);
  const tenantsNamed = async (name: string) => ((await m('GET', '/tenants', op)).body.items as any[]).filter((t) => t.name === name);

  beforeAll(async () => {
    c = await startCluster('embedded', 1);
    m = client(c.nodes[0]);
    op = { key: c.operatorKey };
  }, 120_000);
  afterAll(async () => {
    await c?.close();
  });

  async function ownedTenant(owner: string): Promise<string> {
    const t = await m('POST', '/tenants', { user: owner }, { name: `Owned ${randomUUID().slice(0, 6)}` });
    expect(t.status).toBe(201);
    return t.body.id;
  }

  it(`a user owns at most ${MANAGE_LIMITS.pendingTenantsPerUser} Pending Activation tenants; the next is 429, audited, not created — until an operator activates one`, async () => {
    await awayFromWindowEdge(DAY);
    const user = { user: 'pending.owner@limits.test' };
    const made: string[] = [];
    for (let i = 0; i < MANAGE_LIMITS.pendingTenantsPerUser; i++) made.push((await m('POST', '/tenants', user, { name: `Pending ${i}` })).body.id);
    const refused = await m('POST', '/tenants', user, { name: 'One Too Many' });
    expectLimited(refused, 'pendingTenantsPerUser', MANAGE_LIMITS.pendingTenantsPerUser, DAY);
    expect(refused.body.detail).toMatch(/Pending Activation/);
    expect(await tenantsNamed('One Too Many')).toEqual([]);
    const [entry] = await auditActions('tenant.create.refused');
    expect(entry).toMatchObject({
      actor: { kind: 'user', email: 'pending.owner@limits.test' },
      objectType: 'tenant',
      diff: { limitName: 'pendingTenantsPerUser', limit: MANAGE_LIMITS.pendingTenantsPerUser, name: 'One Too Many', reason: refused.body.detail },
    });

    expect((await m('POST', `/tenants/${made[0]}/activate`, op)).status).toBe(200);
    expect((await m('POST', '/tenants', user, { name: 'One Too Many' })).status).toBe(201);
  });

  it(`a user creates at most ${MANAGE_LIMITS.tenantsPerUserPerDay} tenants a day, even with each activated at once`, async () => {
    await awayFromWindowEdge(DAY);
    const user = { user: 'busy.founder@limits.test' };
    for (let i = 0; i < MANAGE_LIMITS.tenantsPerUserPerDay; i++) {
      const t = await m('POST', '/tenants', user, { name: `Busy ${i}` });
      expect(t.status, JSON.stringify(t.body)).toBe(201);
      expect((await m('POST', `/tenants/${t.body.id}/activate`, op)).status).toBe(200);
    }
    const refused = await m('POST', '/tenants', user, { name: 'Busy again' });
    expectLimited(refused, 'tenantsPerUserPerDay', MANAGE_LIMITS.tenantsPerUserPerDay, DAY);
    expect(await tenantsNamed('Busy again')).toEqual([]);
    expect((await auditActions('tenant.create.refused')).map((e) => e.diff.limitName)).toContain('tenantsPerUserPerDay');
    // Another user is not affected.
    expect((await m('POST', '/tenants', { user: 'calm.founder@limits.test' }, { name: 'Calm' })).status).toBe(201);
  });

  it('operators are not limited', async () => {
    for (let i = 0; i < MANAGE_LIMITS.tenantsPerUserPerDay + 1; i++) expect((await m('POST', '/tenants', op, { name: `Operator's ${i}` })).status).toBe(201);
  });

  it(`an address receives at most ${MANAGE_LIMITS.invitationsPerRecipientPerDay} invitations a day from every tenant together`, async () => {
    await awayFromWindowEdge(DAY);
    const target = `target.${randomUUID().slice(0, 6)}@limits.test`;
    for (let i = 0; i < MANAGE_LIMITS.invitationsPerRecipientPerDay; i++) {
      const owner = `inviter${i}@limits.test`;
      const tenant = await ownedTenant(owner);
      expect((await m('POST', `/tenants/${tenant}/invitations`, { user: owner }, { email: target, role: 'member' })).status).toBe(201);
    }
    const owner = 'late.inviter@limits.test';
    const tenant = await ownedTenant(owner);
    const refused = await m('POST', `/tenants/${tenant}/invitations`, { user: owner }, { email: target.toUpperCase(), role: 'member' });
    expectLimited(refused, 'invitationsPerRecipientPerDay', MANAGE_LIMITS.invitationsPerRecipientPerDay, DAY);
    expect((await m('GET', `/tenants/${tenant}/members`, { user: owner })).body.invitations).toEqual([]);
    const audited = await m('GET', `/audit?tenantId=${tenant}`, { user: owner });
    expect(audited.body.items.find((e: any) => e.action === 'member.invite.refused')).toMatchObject({
      objectType: 'invitation',
      diff: { limitName: 'invitationsPerRecipientPerDay', email: target, role: 'member' },
    });
    // An operator may still invite them (their e-mails for the day are not used up).
    expect((await m('POST', `/tenants/${tenant}/invitations`, op, { email: target, role: 'member' })).status).toBe(201);
  });

  it(`a tenant sends at most ${MANAGE_LIMITS.invitationsPerTenantPerHour} invitations an hour`, async () => {
    await awayFromWindowEdge(HOUR);
    const owner = 'recruiter@limits.test';
    const tenant = await ownedTenant(owner);
    for (let i = 0; i < MANAGE_LIMITS.invitationsPerTenantPerHour; i++) {
      const r = await m('POST', `/tenants/${tenant}/invitations`, { user: owner }, { email: `hire${i}.${tenant.slice(0, 6)}@limits.test`, role: 'member' });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const refused = await m('POST', `/tenants/${tenant}/invitations`, { user: owner }, { email: `one.more@limits.test`, role: 'member' });
    expectLimited(refused, 'invitationsPerTenantPerHour', MANAGE_LIMITS.invitationsPerTenantPerHour, HOUR);
    const open = (await m('GET', `/tenants/${tenant}/members`, { user: owner })).body.invitations;
    expect(open).toHaveLength(MANAGE_LIMITS.invitationsPerTenantPerHour);
    // The refused address was not counted against its own daily limit.
    const other = await ownedTenant('other.recruiter@limits.test');
    expect(
      (await m('POST', `/tenants/${other}/invitations`, { user: 'other.recruiter@limits.test' }, { email: 'one.more@limits.test', role: 'member' })).status,
    ).toBe(201);
  });

  it(`an address gets at most ${MAIL_PER_RECIPIENT_PER_DAY} e-mails a day, whoever sends them: the invitation that would be one more is refused, also for an operator; a withdrawn e-mail does not count`, async () => {
    const address = `inbox.${randomUUID().slice(0, 6)}@limits.test`;
    const invitations: { tenant: string; id: string }[] = [];
    for (let i = 0; i < MAIL_PER_RECIPIENT_PER_DAY; i++) {
      const tenant = (await m('POST', '/tenants', op, { name: `Mailer ${i}` })).body.id;
      const r = await m('POST', `/tenants/${tenant}/invitations`, op, { email: address, role: 'member' });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      invitations.push({ tenant, id: r.body.id });
    }
    const mails = (await m('GET', '/mail?limit=1000', op)).body.items.filter((e: any) => e.to.includes(address));
    expect(mails).toHaveLength(MAIL_PER_RECIPIENT_PER_DAY);

    const tenant = (await m('POST', '/tenants', op, { name: 'Mailer one more' })).body.id;
    const refused = await m('POST', `/tenants/${tenant}/invitations`, op, { email: address, role: 'owner' });
    expectLimited(refused, 'mailPerRecipientPerDay', MAIL_PER_RECIPIENT_PER_DAY, DAY);
    expect((await m('GET', `/tenants/${tenant}/members`, op)).body.invitations).toEqual([]);
    expect((await m('GET', '/mail?limit=1000', op)).body.items.filter((e: any) => e.to.includes(address))).toHaveLength(MAIL_PER_RECIPIENT_PER_DAY);
    expect((await auditActions('member.invite.refused')).find((e) => e.tenantId === tenant)?.diff).toMatchObject({ limitName: 'mailPerRecipientPerDay' });
    // An operator's tenant with this contact address is refused whole: no tenant without its invitation.
    const withContact = await m('POST', '/tenants', op, { name: 'Contact over the limit', contactEmail: address });
    expectLimited(withContact, 'mailPerRecipientPerDay', MAIL_PER_RECIPIENT_PER_DAY, DAY);
    expect(await tenantsNamed('Contact over the limit')).toEqual([]);

    // Revoking an invitation withdraws its unsent e-mail, which then no longer counts.
    const revoked = await m('DELETE', `/tenants/${invitations[0].tenant}/invitations/${invitations[0].id}`, op);
    expect(revoked.status).toBe(200);
    const withdrawn = (await m('GET', '/mail?limit=1000', op)).body.items.filter((e: any) => e.to.includes(address) && e.status === 'withdrawn');
    expect(withdrawn).toHaveLength(1);
    expect(withdrawn[0].withdrawnAt).not.toBeNull();
    expect((await m('POST', `/tenants/${tenant}/invitations`, op, { email: address, role: 'owner' })).status).toBe(201);
  });
});

describe('management API limits across two distributed nodes', () => {
  let c: Cluster;
  let op: As;

  beforeAll(async () => {
    c = await startCluster('distributed', 2);
    op = { key: c.operatorKey };
  }, 120_000);
  afterAll(async () => {
    await c?.close();
  });

  it('requests racing on both nodes never pass a limit together', async () => {
    await awayFromWindowEdge(DAY);
    const [a, b] = c.nodes.map(client);
    const user = { user: 'racer@limits.test' };
    const attempts = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b)('POST', '/tenants', user, { name: `Race ${i}` })));
    expect(attempts.filter((r) => r.status === 201)).toHaveLength(MANAGE_LIMITS.pendingTenantsPerUser);
    for (const r of attempts.filter((x) => x.status !== 201)) expectLimited(r, 'pendingTenantsPerUser', MANAGE_LIMITS.pendingTenantsPerUser, DAY);

    const target = `raced.${randomUUID().slice(0, 6)}@limits.test`;
    const owners = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const owner = `race.owner${i}@limits.test`;
        return { owner, tenant: (await a('POST', '/tenants', { user: owner }, { name: `Race owner ${i}` })).body.id as string };
      }),
    );
    const invites = await Promise.all(
      owners.map(({ owner, tenant }, i) => (i % 2 ? a : b)('POST', `/tenants/${tenant}/invitations`, { user: owner }, { email: target, role: 'member' })),
    );
    expect(invites.filter((r) => r.status === 201)).toHaveLength(MANAGE_LIMITS.invitationsPerRecipientPerDay);
    for (const r of invites.filter((x) => x.status !== 201))
      expectLimited(r, 'invitationsPerRecipientPerDay', MANAGE_LIMITS.invitationsPerRecipientPerDay, DAY);
    // Both nodes see the same audit log.
    const refusals = (await b('GET', '/audit?limit=500', op)).body.items.filter((e: any) => e.action.endsWith('.refused'));
    expect(refusals).toHaveLength(8 - MANAGE_LIMITS.pendingTenantsPerUser + 6 - MANAGE_LIMITS.invitationsPerRecipientPerDay);
  });
});
