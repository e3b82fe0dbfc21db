// Reads the token request's form body. The token route takes its body raw and parses it here
// so that a wrong content type (415) or an oversized body (413) is refused in the endpoint's
// own RFC 6749 format, like its other errors, not as the HTTP front's problem documents.
import type { TokenForm } from './client-auth.js';
import { oauthErrors } from './oauth-errors.js';

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A token request is a few short fields; 16 KiB leaves room for long client ids and secrets. */
export const TOKEN_FORM_MAX_BYTES = 16 * 1024;

/** The body as the front hands it to a raw route (BodyStream), or null when there is none. */
export interface RequestBody extends AsyncIterable<Buffer> {
  /** Declared Content-Length, or null for chunked bodies. */
  readonly declaredLength: number | null;
}

/**
 * Parses an application/x-www-form-urlencoded body (any charset parameter is ignored: the
 * form is UTF-8). Throws OAuthError invalid_request with 415 for another content type, 413
 * past maxBytes (checked against Content-Length before anything is read), and 400 for bytes
 * that are not UTF-8.
 */
export async function readTokenForm(contentType: string | undefined, body: RequestBody | null, maxBytes = TOKEN_FORM_MAX_BYTES): Promise<TokenForm> {
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType !== FORM_CONTENT_TYPE) throw oauthErrors.unsupportedMediaType(mediaType, FORM_CONTENT_TYPE);
  if (!body) return {};
  if (body.declaredLength !== null && body.declaredLength > maxBytes) throw oauthErrors.bodyTooLarge(maxBytes);
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > maxBytes) throw oauthErrors.bodyTooLarge(maxBytes);
    parts.push(chunk);
  }
  let text: string;
  try {
    text = UTF8.decode(Buffer.concat(parts, total));
  } catch {
    throw oauthErrors.invalidRequest('the form is not valid UTF-8');
  }
  // Repeated fields: the last one wins, as with the front's form parser.
  return Object.fromEntries(new URLSearchParams(text));
}
