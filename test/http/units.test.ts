// Pure parts of the HTTP front: body backpressure bookkeeping, router, query coercion,
// problem bodies.
import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { BodyStream, ClientAbortedError } from '../../src/http/body.js';
import { Router } from '../../src/http/router.js';
import { parseQuery, StringEnum, canonicalEnum } from '../../src/http/validation.js';
import { ProblemError, problems, toProblemBody } from '../../src/http/problem.js';
import type { RouteDef } from '../../src/http/route.js';

function source() {
  const calls: string[] = [];
  return { calls, pause: () => calls.push('pause'), resume: () => calls.push('resume') };
}

describe('BodyStream', () => {
  it('pauses the socket above the high-water mark and resumes once the consumer catches up', async () => {
    const src = source();
    const body = new BodyStream(src, null);
    const mb = Buffer.alloc(512 * 1024);
    body.push(mb, false);
    body.push(mb, false);
    expect(src.calls).toEqual([]);
    body.push(mb, false); // 1.5 MiB buffered
    expect(src.calls).toEqual(['pause']);
    body.push(mb, true);
    let n = 0;
    for await (const c of body) n += c.length;
    expect(n).toBe(4 * mb.length);
    expect(src.calls).toEqual(['pause', 'resume']);
  });

  it('a failure (client abort) ends iteration with that error', async () => {
    const body = new BodyStream(source(), 100);
    body.push(Buffer.from('abc'), false);
    const it = body[Symbol.asyncIterator]();
    expect((await it.next()).value.toString()).toBe('abc');
    const next = it.next();
    body.fail(new ClientAbortedError());
    await expect(next).rejects.toBeInstanceOf(ClientAbortedError);
  });

  it('readAll refuses a declared or actual size over the limit with 413', async () => {
    await expect(new BodyStream(source(), 10_000).readAll(100)).rejects.toMatchObject({ status: 413 });
    const body = new BodyStream(source(), null);
    body.push(Buffer.alloc(80), false);
    body.push(Buffer.alloc(80), true);
    await expect(body.readAll(100)).rejects.toMatchObject({ status: 413 });
  });

  it('can be consumed only once', async () => {
    const body = new BodyStream(source(), null);
    body.push(Buffer.from('x'), true);
    await body.readAll(10);
    await expect(body.readAll(10)).rejects.toThrow(/already consumed/);
  });
});

describe('Router', () => {
  const r = (method: RouteDef['method'], path: string): RouteDef => ({
    method,
    path,
    operationId: `${method}${path}`,
    summary: '',
    tags: [],
    auth: 'public',
    responses: {},
    handler: async () => ({ status: 204, empty: true }),
  });
  const router = new Router();
  router.add(r('GET', '/a/:id'));
  router.add(r('DELETE', '/a/:id'));
  router.add(r('GET', '/a/fixed'));
  router.add(r('POST', '/a/:id/b'));

  it('matches params, prefers statics, and falls back to params when the static branch has no route', () => {
    expect(router.match('GET', '/a/x%2Fy')).toMatchObject({ kind: 'found', params: { id: 'x/y' } });
    expect(router.match('GET', '/a/fixed')).toMatchObject({ kind: 'found', route: { operationId: 'GET/a/fixed' } });
    expect(router.match('POST', '/a/fixed/b')).toMatchObject({ kind: 'found', params: { id: 'fixed' } });
  });

  it('reports 405 with the allowed methods, 404 otherwise; HEAD maps to GET', () => {
    const m = router.match('PUT', '/a/1');
    expect(m.kind).toBe('method_not_allowed');
    expect(m.kind === 'method_not_allowed' && m.allow).toEqual(expect.arrayContaining(['GET', 'HEAD', 'DELETE', 'OPTIONS']));
    expect(router.match('GET', '/a/1/c').kind).toBe('not_found');
    expect(router.match('GET', '/a').kind).toBe('not_found');
    expect(router.match('HEAD', '/a/1').kind).toBe('found');
    expect(router.match('GET', '/a/%E0%A4%A').kind).toBe('not_found');
  });

  it('answers a static path the same whether spelled exactly or with extra slashes', () => {
    for (const path of ['/a/fixed', '/a/fixed/', '//a//fixed']) {
      expect(router.match('GET', path)).toMatchObject({ kind: 'found', route: { operationId: 'GET/a/fixed' }, params: {} });
      expect(router.match('HEAD', path)).toMatchObject({ kind: 'found', route: { operationId: 'GET/a/fixed' } });
    }
    expect(router.match('PATCH', '/a/fixed').kind).toBe('method_not_allowed');
  });

  it('refuses duplicate routes and conflicting parameter names at registration', () => {
    expect(() => router.add(r('GET', '/a/:id'))).toThrow(/duplicate/);
    expect(() => router.add(r('PUT', '/a/:other'))).toThrow(/conflicts/);
  });
});

describe('query parsing', () => {
  const schema = Type.Object(
    {
      n: Type.Optional(Type.Integer()),
      x: Type.Optional(Type.Number()),
      b: Type.Optional(Type.Boolean()),
      dialect: Type.Optional(StringEnum(['PostgreSql', 'MsSql'] as const, { aliases: { Postgres: 'PostgreSql' } })),
    },
    { additionalProperties: false },
  );
  const q = (s: string) => parseQuery<Record<string, unknown>>(schema, s);

  it('coerces to the schema types and canonicalises enum spellings', () => {
    expect(q('n=-3&x=1.5&b=false&dialect=POSTGRESQL')).toEqual({ n: -3, x: 1.5, b: false, dialect: 'PostgreSql' });
    expect(q('dialect=postgres')).toEqual({ dialect: 'PostgreSql' });
    expect(q('dialect=ms_sql')).toEqual({ dialect: 'MsSql' });
    expect(canonicalEnum({ enum: ['ShpZip'] }, 'SHP_ZIP')).toBe('ShpZip');
  });

  it('decodes form-urlencoded names and values as URLSearchParams does', () => {
    const text = Type.Object({ name: Type.Optional(Type.String()), 'a b': Type.Optional(Type.String()) }, { additionalProperties: false });
    const t = (s: string) => parseQuery<Record<string, unknown>>(text, s);
    for (const s of [
      'name=a+b%20c',
      'name=%E2%82%AC',
      'name=100%',
      'name=%zz%',
      'name=%C3',
      'a+b=1',
      'a%20b=x&&name=y',
      'name',
      'name=',
      '&name=x&',
      'name=a=b',
    ]) {
      expect(t(s)).toEqual(Object.fromEntries(new URLSearchParams(s)));
    }
    expect(t('')).toEqual({});
  });

  it('refuses a parameter given twice, also when spelled differently', () => {
    for (const s of ['n=1&n=2', 'n=1&%6E=2']) {
      expect(() => q(s)).toThrow(/more than once/);
    }
  });

  it('names the parameter on every kind of error', () => {
    for (const [s, p] of [
      ['n=x', 'n'],
      ['x=abc', 'x'],
      ['x=', 'x'],
      ['b=2', 'b'],
      ['dialect=oracle', 'dialect'],
      ['zzz=1', 'zzz'],
    ]) {
      try {
        q(s);
        expect.unreachable(`?${s} should fail`);
      } catch (e) {
        expect(e).toBeInstanceOf(ProblemError);
        expect((e as ProblemError).extras.parameter).toBe(p);
        expect((e as ProblemError).code).toBe('invalid_parameter');
      }
    }
  });
});

describe('problem bodies', () => {
  it('are RFC 9457 with code, requestId and extras', () => {
    const b = toProblemBody(problems.invalidParameter('pdfMode', 'bad', ['Ocr']), '/x', 'rid');
    expect(b).toEqual({
      type: 'https://docparse.dev/problems/invalid_parameter',
      title: 'Invalid parameter',
      status: 400,
      detail: 'bad',
      instance: '/x',
      code: 'invalid_parameter',
      requestId: 'rid',
      parameter: 'pdfMode',
      allowed: ['Ocr'],
    });
  });
});
