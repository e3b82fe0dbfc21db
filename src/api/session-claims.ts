// What a signed upload URL carries (its uploadId, base64url JSON under an HMAC): shared by the
// presigned PUT and the resumable (tus) requests on the same URL.
export interface SessionClaims {
  t: string; // tenant
  d: string; // documentId
  g: string; // generation
  e: number; // expiry, epoch seconds
  h?: string; // SHA-256 declared in upload-request ('' for none; absent in sessions of earlier versions)
  p?: 1; // pending overwrite: the session's record is pendingSessionId(g), not d
  r?: string; // the app's license region: a node of another region forwards or refuses the URL (absent in sessions of earlier versions)
}
