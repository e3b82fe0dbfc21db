// NUL (and half a UTF-16 surrogate pair, and bytes that are not UTF-8) at every way into a
// real node: the document API's path, query and JSON body, the management API's path, query
// and JSON body, and a dashboard form. Each is a 400 invalid_parameter naming where — never a
// 500 with a stack trace — and nothing is created. (The token endpoint: test/identity.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import { createApp, getToken } from '../helpers/node.js';
import { signIn, startDashboardRig, type DashboardRig, type SignedInClient } from '../dashboard/pages/rig.js';

let rig: DashboardRig;
let bearer: Record<string, string>;
let operator: Record<string, string>;
let user: SignedInClient;

beforeAll(async () => {
  rig = await startDashboardRig();
  const node = rig.node.node;
  const app = await createApp(node, null);
  bearer = { authorization: `Bearer ${await getToken(rig.base, app.clientId, app.clientSecret)}` };
  operator = { authorization: `Bearer ${(await new OperatorKeysStore((node.controlPlane as SqlControlPlaneStore).db).create('nul test')).key}` };
  user = await signIn(rig, 'nul.user@text.test');
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

async function send(method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer) {
  const res = await fetch(rig.base + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), text, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null };
}

/** The answer every case must get: 400 invalid_parameter naming `parameter`, with no trace of a stack. */
function expectRefused(r: Awaited<ReturnType<typeof send>>, parameter: string, detail: RegExp = /NUL/) {
  expect(r.status, r.text).toBe(400);
  expect(r.type).toBe('application/problem+json');
  expect(r.body).toMatchObject({ code: 'invalid_parameter', parameter });
  expect(r.body.detail).toMatch(detail);
  expect(r.text).not.toMatch(/at .+\.js:\d+|stack/i);
}

const json = { 'content-type': 'application/json' };
const tenantNames = async () => (await rig.node.node.controlPlane.listTenants()).map((t) => t.name);

describe('the document API', () => {
  it('a path parameter with %00', async () => {
    expectRefused(await send('GET', '/api/v1/documents/a%00b/status', bearer), 'path');
    expectRefused(await send('GET', '/api/v1/documents/a%00b/result', bearer), 'path');
  });

  it('a query parameter with %00 (nothing is stored or charged)', async () => {
    const r = await send('POST', '/api/v1/documents/upload?fileName=a%00b.csv&csvRoute=Tabular', { ...bearer, 'content-type': 'text/csv' }, 'a,b\n1,2\n');
    expectRefused(r, 'fileName');
  });

  it('a JSON string with \\u0000, or an unpaired surrogate', async () => {
    expectRefused(await send('POST', '/api/v1/documents/status/batch', { ...bearer, ...json }, '{"documentIds":["ok","a\\u0000b"]}'), 'documentIds');
    expectRefused(await send('POST', '/api/v1/documents/status/batch', { ...bearer, ...json }, '{"documentIds":["\\ud800"]}'), 'documentIds', /surrogate/);
  });

  it('a JSON body that is not UTF-8', async () => {
    const bytes = Buffer.concat([Buffer.from('{"documentIds":["'), Buffer.from([0xff, 0xfe]), Buffer.from('"]}')]);
    expectRefused(await send('POST', '/api/v1/documents/status/batch', { ...bearer, ...json }, bytes), 'body', /UTF-8/);
  });

  it('a static path with %00 is refused too, not just routed to 404', async () => {
    expectRefused(await send('GET', '/health/li%00ve'), 'path');
  });
});

describe('the management API', () => {
  it('a JSON string with \\u0000 in a field, or in a field name; nothing is created', async () => {
    expectRefused(await send('POST', '/manage/v1/tenants', { ...operator, ...json }, '{"name":"Acme\\u0000Corp"}'), 'name');
    expectRefused(await send('POST', '/manage/v1/tenants', { ...operator, ...json }, '{"name":"Acme","x\\u0000":1}'), 'x\u0000');
    expect(await tenantNames()).not.toContain('Acme');
  });

  it('a path parameter and a query parameter with %00', async () => {
    expectRefused(await send('GET', '/manage/v1/tenants/a%00b', operator), 'path');
    expectRefused(await send('GET', '/manage/v1/apps?tenantId=a%00b', operator), 'tenantId');
  });

  it('a body that is not UTF-8', async () => {
    expectRefused(
      await send('POST', '/manage/v1/tenants', { ...operator, ...json }, Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d])),
      'body',
      /UTF-8/,
    );
  });
});

describe('the dashboard', () => {
  const form = (s: SignedInClient) => ({ cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' });
  const csrf = async (s: SignedInClient) => /name="_csrf" value="([^"]+)"/.exec((await send('GET', '/dashboard/plans', { cookie: s.cookie })).text)![1];

  it('a form field with %00 is refused beside the field; nothing is created', async () => {
    const r = await send('POST', '/dashboard/onboarding', form(user), `_csrf=${encodeURIComponent(await csrf(user))}&name=Nul%00Ltd`);
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/<p class="error" id="f-name-error">[^<]*NUL[^<]*<\/p>/);
    expect(await tenantNames()).not.toContain('Nul\u0000Ltd');
  });

  it('a form value the page passes on as an id (a path parameter of the API call) with %00', async () => {
    expect((await send('POST', '/dashboard/onboarding', form(user), `_csrf=${encodeURIComponent(await csrf(user))}&name=Nul+Test+Ltd`)).status).toBe(303);
    const tenant = (await rig.node.node.controlPlane.listTenants()).find((t) => t.name === 'Nul Test Ltd')!;
    const r = await send('POST', `/dashboard/t/${tenant.id}/members/revoke`, form(user), `_csrf=${encodeURIComponent(await csrf(user))}&invitationId=a%00b`);
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/NUL/);
  });

  it('a page path with %00', async () => {
    expectRefused(await send('GET', '/dashboard/t/a%00b/apps', { cookie: user.cookie }), 'path');
  });
});
