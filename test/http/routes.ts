// Test routes exercising every feature of the HTTP front: typed query, path params, JSON
// body, raw streamed body into a DiskBlobStore, streamed responses, and failures.
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../src/http/route.js';
import { StringEnum } from '../../src/http/validation.js';
import { DiskBlobStore } from '../../src/storage/disk-blob-store.js';

export interface TestHooks {
  /** Called when an upload handler starts reading its body. */
  uploadStarted?: (received: () => number) => void;
  /** When set, the slow-upload handler waits for this before reading the body. */
  holdUpload?: Promise<void>;
}

export function testRoutes(blobDir: string, hooks: TestHooks = {}): RouteDef[] {
  const blobs = new DiskBlobStore(blobDir);
  const ItemsQuery = Type.Object(
    {
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
      verbose: Type.Optional(Type.Boolean()),
      sort: Type.Optional(StringEnum(['asc', 'desc'] as const)),
      name: Type.Optional(Type.String({ maxLength: 20 })),
    },
    { additionalProperties: false },
  );
  const EchoBody = Type.Object({ name: Type.String(), count: Type.Optional(Type.Integer()) }, { additionalProperties: false });
  return [
    {
      method: 'GET',
      path: '/items',
      operationId: 'items',
      summary: 'typed query',
      tags: ['t'],
      auth: 'public',
      query: ItemsQuery,
      responses: { 200: { description: 'ok' } },
      handler: async (ctx) => ({
        status: 200,
        json: { query: ctx.query, types: Object.fromEntries(Object.entries(ctx.query).map(([k, v]) => [k, typeof v])) },
      }),
    },
    {
      method: 'GET',
      path: '/items/:id',
      operationId: 'item',
      summary: 'path param',
      tags: ['t'],
      auth: 'public',
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 40 }) }),
      responses: { 200: { description: 'ok' } },
      handler: async (ctx) => ({ status: 200, json: { id: ctx.params.id } }),
    },
    {
      method: 'GET',
      path: '/items/special',
      operationId: 'special',
      summary: 'static beats param',
      tags: ['t'],
      auth: 'public',
      responses: { 200: { description: 'ok' } },
      handler: async () => ({ status: 200, json: { special: true } }),
    },
    {
      method: 'GET',
      path: '/items/:id/parts/:part',
      operationId: 'part',
      summary: 'two params',
      tags: ['t'],
      auth: 'public',
      responses: { 200: { description: 'ok' } },
      handler: async (ctx) => ({ status: 200, json: ctx.params }),
    },
    {
      method: 'POST',
      path: '/echo',
      operationId: 'echo',
      summary: 'json body',
      tags: ['t'],
      auth: 'public',
      body: { kind: 'json', schema: EchoBody, maxBytes: 1024 },
      responses: { 200: { description: 'ok' } },
      handler: async (ctx) => ({ status: 200, json: { body: ctx.body } }),
    },
    {
      method: 'POST',
      path: '/blobs/:key',
      operationId: 'putBlob',
      summary: 'raw body to disk',
      tags: ['t'],
      auth: 'public',
      body: { kind: 'raw', description: 'bytes' },
      responses: { 201: { description: 'stored' } },
      handler: async (ctx) => {
        const body = ctx.bodyStream;
        if (!body) return { status: 400, json: { error: 'no body' } };
        hooks.uploadStarted?.(() => body.received);
        if (hooks.holdUpload) await hooks.holdUpload;
        const r = await blobs.write(`uploads/${ctx.params.key}`, body);
        return { status: 201, json: r };
      },
    },
    {
      method: 'GET',
      path: '/stream/:size',
      operationId: 'stream',
      summary: 'streamed response',
      tags: ['t'],
      auth: 'public',
      query: Type.Object({ chunked: Type.Optional(Type.Boolean()), chunk: Type.Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: false }),
      responses: { 200: { description: 'bytes' } },
      handler: async (ctx) => {
        const size = Number(ctx.params.size);
        const q = ctx.query as { chunked?: boolean; chunk?: number };
        const chunk = q.chunk ?? 64 * 1024;
        const parts: Buffer[] = [];
        for (let at = 0; at < size; at += chunk) parts.push(Buffer.alloc(Math.min(chunk, size - at), 'x'));
        return { status: 200, stream: Readable.from(parts), contentType: 'application/octet-stream', length: q.chunked ? undefined : size };
      },
    },
    {
      method: 'GET',
      path: '/boom',
      operationId: 'boom',
      summary: 'throws',
      tags: ['t'],
      auth: 'public',
      responses: { 200: { description: 'never' } },
      handler: async () => {
        throw new Error('secret internal detail');
      },
    },
    {
      method: 'GET',
      path: '/unserialisable',
      operationId: 'unserialisable',
      summary: 'reply JSON.stringify cannot encode',
      tags: ['t'],
      auth: 'public',
      responses: { 200: { description: 'never' } },
      handler: async () => ({ status: 200, json: { big: 1n } }),
    },
    {
      method: 'GET',
      path: '/private',
      operationId: 'private',
      summary: 'needs a token',
      tags: ['t'],
      auth: 'bearer',
      responses: { 200: { description: 'ok' } },
      handler: async () => ({ status: 200, json: {} }),
    },
  ];
}
