// The tus 1.0 resumable-upload protocol as the upload URL speaks it (https://tus.io/protocols/resumable-upload):
// the core (HEAD, PATCH), termination (DELETE) and checksum extensions. Creation is
// upload-request's job: a session's URL is the tus upload URL, its sizeBytes the Upload-Length.
import { createHash, getHashes, type Hash } from 'node:crypto';
import { problem, problems, type ProblemError } from '../../http/problem.js';

export const TUS_VERSION = '1.0.0';
export const TUS_EXTENSIONS = 'termination,checksum';
/** What a PATCH body must be sent as. */
export const PATCH_CONTENT_TYPE = 'application/offset+octet-stream';
/** The largest S3 object; a session's own sizeBytes (HEAD's Upload-Length) is its real limit. */
export const TUS_MAX_SIZE = 5 * 1024 ** 4;

/** tus algorithm name → node's; offered only where node has it. */
const ALGORITHMS: Record<string, string> = { sha1: 'sha1', sha256: 'sha256', sha512: 'sha512', md5: 'md5' };
const available = new Set(getHashes());
export const CHECKSUM_ALGORITHMS = Object.keys(ALGORITHMS).filter((a) => available.has(ALGORITHMS[a]));

/** What OPTIONS on an upload URL advertises. */
export const TUS_OPTIONS_HEADERS: Record<string, string> = {
  'Tus-Resumable': TUS_VERSION,
  'Tus-Version': TUS_VERSION,
  'Tus-Extension': TUS_EXTENSIONS,
  'Tus-Max-Size': String(TUS_MAX_SIZE),
  'Tus-Checksum-Algorithm': CHECKSUM_ALGORITHMS.join(','),
};

/** Request headers a browser tus client sends (for the CORS preflight). */
export const TUS_REQUEST_HEADERS = ['Tus-Resumable', 'Upload-Offset', 'Upload-Length', 'Upload-Checksum', 'Upload-Metadata', 'Upload-Defer-Length'];

/** Headers of every tus answer but OPTIONS's. */
export const tusHeaders = (extra: Record<string, string> = {}): Record<string, string> => ({ 'Tus-Resumable': TUS_VERSION, ...extra });

/** Adds the tus headers to a problem answered on an upload URL. */
export function withTusHeaders(err: unknown, extra: Record<string, string> = {}): unknown {
  const p = err as ProblemError;
  if (p?.name === 'ProblemError') Object.assign(p.headers, tusHeaders(extra));
  return err;
}

/** A client that says it speaks another tus version is refused (412); one that says nothing is served. */
export function checkTusVersion(headers: Record<string, string>): void {
  const v = headers['tus-resumable'];
  if (v !== undefined && v !== TUS_VERSION) {
    throw problem(
      'tus_version_unsupported',
      `This server speaks tus ${TUS_VERSION}, not ${JSON.stringify(v)}.`,
      { supported: [TUS_VERSION] },
      { 'Tus-Version': TUS_VERSION },
    );
  }
}

export function readUploadOffset(headers: Record<string, string>): number {
  const raw = headers['upload-offset'];
  if (raw === undefined || !/^\d{1,16}$/.test(raw)) {
    throw problems.invalidParameter('Upload-Offset', 'A PATCH names where its bytes start with an Upload-Offset header (a non-negative integer).');
  }
  return Number(raw);
}

export function checkPatchContentType(headers: Record<string, string>): void {
  const type = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== PATCH_CONTENT_TYPE) {
    throw problem('unsupported_media_type', `A PATCH to an upload URL is sent as Content-Type: ${PATCH_CONTENT_TYPE}.`, { allowed: [PATCH_CONTENT_TYPE] });
  }
}

export interface RequestChecksum {
  algorithm: string;
  expected: Buffer;
  hash: Hash;
}

/** The Upload-Checksum of a PATCH ("sha1 <base64>"), or null when it has none. */
export function readUploadChecksum(headers: Record<string, string>): RequestChecksum | null {
  const raw = headers['upload-checksum'];
  if (raw === undefined) return null;
  const [algorithm, digest, ...rest] = raw.trim().split(/\s+/);
  if (!CHECKSUM_ALGORITHMS.includes(algorithm) || !digest || rest.length || !/^[A-Za-z0-9+/]+={0,2}$/.test(digest)) {
    throw problems.invalidParameter(
      'Upload-Checksum',
      `Upload-Checksum is "<algorithm> <base64 digest>" with one of: ${CHECKSUM_ALGORITHMS.join(', ')}.`,
      CHECKSUM_ALGORITHMS,
    );
  }
  return { algorithm, expected: Buffer.from(digest, 'base64'), hash: createHash(ALGORITHMS[algorithm]) };
}

/** Thrown (before the append is committed) when a PATCH's bytes do not match its Upload-Checksum. */
export class ChecksumMismatchError extends Error {
  constructor(readonly algorithm: string) {
    super(`the body does not match its ${algorithm} Upload-Checksum`);
    this.name = 'ChecksumMismatchError';
  }
}
