// 'docparse/node': what only Node has. A file path becomes a Blob read lazily from disk
// (fs.openAsBlob), so an upload of a path streams, knows its size (direct or presigned) and
// can be retried like any Blob.
import fs from 'node:fs';
import path from 'node:path';
import type { DocparseClient } from './client.js';
import type { UploadAccepted, UploadOptions } from './types.js';

export * from './index.js';

/** Opens a file as a Blob (not read until sent). */
export function fileBlob(filePath: string): Promise<Blob> {
  return fs.openAsBlob(filePath);
}

/** Uploads the file at filePath; its base name is the fileName unless options say otherwise. */
export async function uploadFile(client: DocparseClient, filePath: string, options: UploadOptions = {}): Promise<UploadAccepted> {
  return client.upload(await fileBlob(filePath), { fileName: path.basename(filePath), ...options });
}
