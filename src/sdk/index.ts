// `import { DocparseClient } from 'docparse'`: the SDK, for Node 20+ and browsers. It loads
// nothing of the server (types only) and no node: module; reading files by path is in
// 'docparse/node'.
export { DocparseClient, DEFAULT_DIRECT_UPLOAD_MAX_BYTES, BATCH_STATUS_MAX_IDS, type DocparseClientOptions, type WaitOptions } from './client.js';
export { DocparseError, DocparseTimeoutError, type DocparseErrorCode, type ProblemDocument } from './errors.js';
export { FORMAT_CONTENT, type Artifact, type ContentOf, type DocumentFormat } from './artifact.js';
export type { BatchStatusItem, JobStatus, UploadAccepted, UploadOptions, UploadProgress } from './types.js';
export type { UploadInput } from './body.js';
export type { CachedToken, TokenCache, TokenResponse } from './token.js';
export type { RetryEvent, RetryPolicy } from './transport.js';
export { isTerminal, pollingFeed, type StatusFeed, type PollingBackoff } from './wait.js';
export { liveFeed, type OpenEvents } from './live.js';
