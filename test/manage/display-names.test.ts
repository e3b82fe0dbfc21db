// Names are text, not terminal commands: every name field of the management API (tenant, app —
// created and renamed —, plan, operator key) refuses each class of control character, the
// bidirectional formatting characters and names with nothing visible, with 400 naming the
// field and the character; what it takes is kept in NFC without surrounding spaces. Nothing
// refused is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import { createTestEnv, destroyTestEnv, startTestNode, type TestEnv, type TestNode } from '../helpers/node.js';

/** One character of each class the rule refuses, and how the answer names it. */
const REFUSED: [string, string, RegExp][] = [
  ['NUL', '\u0000', /NUL/],
  ['BEL', '\u0007', /U\+0007 \(BEL\), a control character/],
  ['tab', '\t', /U\+0009 \(tab\), a control character/],
  ['LF', '\n', /U\+000A \(line feed\), a control character/],
  ['CR', '\r', /U\+000D \(carriage return\), a control character/],
  ['ESC (an ANSI colour)', '\u001b[31m', /U\+001B \(ESC\), a control character/],
  ['DEL', '\u007f', /U\+007F \(DEL\), a control character/],
  ['C1 NEL', '\u0085', /U\+0085, a control character/],
  ['C1 CSI', '\u009b', /U\+009B \(CSI\), a control character/],
  ['line separator', '\u2028', /U\+2028 \(line separator\)/],
  ['right-to-left override', '\u202e', /U\+202E \(right-to-left override\), a bidirectional formatting character/],
  ['left-to-right embedding', '\u202a', /U\+202A \(left-to-right embedding\), a bidirectional/],
  ['right-to-left isolate', '\u2067', /U\+2067 \(right-to-left isolate\), a bidirectional/],
  ['pop directional isolate', '\u2069', /U\+2069 \(pop directional isolate\), a bidirectional/],
  ['right-to-left mark', '\u200f', /U\+200F \(right-to-left mark\), a bidirectional/],
  ['Arabic letter mark', '\u061c', /U\+061C \(Arabic letter mark\), a bidirectional/],
];
/** Names that show nothing. */
const INVISIBLE: [string, string][] = [
  ['spaces', '   '],
  ['zero-width spaces', '\u200b\u200b'],
  ['a zero-width joiner and a word joiner', '\u200d\u2060'],
  ['the Hangul filler', '\u3164'],
  ['the braille blank', '\u2800'],
  ['a combining accent alone', '\u0301'],
  ['a no-break space and an ideographic space', '\u00a0\u3000'],
];

describe('display names', () => {
  let t: TestEnv;
  let node: TestNode;
  let headers: Record<string, string>;
  let tenantId: string;
  let appId: string;

  beforeAll(async () => {
    t = await createTestEnv('embedded', { DOCPARSE_SEED_DEMO: 'false' });
    node = await startTestNode(t, {}, ['api']);
    const key = (await new OperatorKeysStore((node.node.controlPlane as SqlControlPlaneStore).db).create('names')).key;
    headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    tenantId = (await m('POST', '/tenants', { name: 'Names Ltd' })).body.id;
    appId = (await m('POST', `/tenants/${tenantId}/apps`, { name: 'Names app', licenseRegion: 'local' })).body.app.id;
  }, 120_000);
  afterAll(async () => {
    await node?.close();
    if (t) await destroyTestEnv(t);
  });

  async function m(method: string, path: string, body?: unknown) {
    const res = await fetch(`${node.url}/manage/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  }

  /** Each name field: a request that sets it to `name`, and the name as it was stored. */
  const FIELDS: { field: string; send(name: string): ReturnType<typeof m>; stored(answer: any): string }[] = [
    { field: 'tenant name', send: (name) => m('POST', '/tenants', { name }), stored: (a) => a.name },
    { field: 'app name (create)', send: (name) => m('POST', `/tenants/${tenantId}/apps`, { name, licenseRegion: 'local' }), stored: (a) => a.app.name },
    { field: 'app name (rename)', send: (name) => m('PATCH', `/apps/${appId}`, { name }), stored: (a) => a.name },
    { field: 'plan name', send: (name) => m('POST', '/plans', { name, maxDocumentUnitsPerMonth: 10 }), stored: (a) => a.name },
    { field: 'operator key name', send: (name) => m('POST', '/operator-keys', { name }), stored: (a) => a.operatorKey.name },
  ];

  async function storedNames(): Promise<string[]> {
    const store = node.node.controlPlane;
    const keys = await new OperatorKeysStore((store as SqlControlPlaneStore).db).list();
    return [
      ...(await store.listTenants()).map((x) => x.name),
      ...(await store.listApps()).map((x) => x.name),
      ...(await store.listPlans()).map((x) => x.name),
      ...keys.map((k) => k.name),
    ];
  }

  for (const { field, send } of FIELDS) {
    it(`${field}: each control and bidirectional class is refused with 400 naming the field and the character`, async () => {
      for (const [what, ch, detail] of REFUSED) {
        const r = await send(`Evil${ch}Corp`);
        expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body).toMatchObject({ code: 'invalid_parameter', parameter: 'name' });
        expect(r.body.detail, what).toMatch(detail);
      }
      for (const [what, name] of INVISIBLE) {
        const r = await send(name);
        expect(r.status, what).toBe(400);
        expect(r.body).toMatchObject({ code: 'invalid_parameter', parameter: 'name' });
      }
      expect((await storedNames()).filter((n) => n.startsWith('Evil'))).toEqual([]);
    });
  }

  it('a name is kept in NFC without surrounding spaces; right-to-left scripts, emoji sequences and inner zero-width joiners are names like any other', async () => {
    for (const { field, send, stored } of FIELDS) {
      const decomposed = await send('  Cafe\u0301 Noir  ');
      expect(decomposed.status, field).toBeLessThan(300);
      expect(stored(decomposed.body), field).toBe('Caf\u00e9 Noir');
      for (const name of ['שלום עולם', 'شركة المثال', '👩\u200d💻 Team', 'Ａｃｍｅ']) {
        const r = await send(name);
        expect(r.status, `${field}: ${name}`).toBeLessThan(300);
        expect(stored(r.body)).toBe(name);
      }
    }
  });

  it('the OpenAPI document says what a name may hold', async () => {
    const doc = await (await fetch(`${node.url}/openapi/manage-v1.json`)).json();
    const schema = doc.paths['/manage/v1/tenants'].post.requestBody.content['application/json'].schema;
    const name = schema.properties?.name ?? doc.components?.schemas?.[schema.$ref?.split('/').pop()]?.properties?.name;
    expect(name.description).toMatch(/no control or bidirectional formatting characters/);
    expect(name['x-display-name']).toBe(true);
  });
});
