// The HTTP side of a case: token, upload, status, result. Every response goes through
// `observe`, so a 5xx anywhere is seen by the run, whatever the caller does with it.
import { CLIENT_ID, CLIENT_SECRET } from './node-process.mjs';

const TOKEN_RENEW_MS = 10 * 60 * 1000; // tokens last 15 minutes

export class ApiClient {
  /**
   * @param {string} url      the node's base URL
   * @param {(what: string, status: number, body: string) => void} observe  sees every response
   */
  constructor(url, observe) {
    this.url = url;
    this.observe = observe;
    this.token = null;
    this.tokenAt = 0;
  }

  async fetchToken(signal) {
    const res = await fetch(`${this.url}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }),
      signal,
    });
    const text = await res.text();
    this.observe('token', res.status, text);
    if (!res.ok) throw new Error(`token: ${res.status} ${text}`);
    this.token = JSON.parse(text).access_token;
    this.tokenAt = Date.now();
    return this.token;
  }

  async auth(signal) {
    if (!this.token || Date.now() - this.tokenAt > TOKEN_RENEW_MS) await this.fetchToken(signal);
    return { authorization: `Bearer ${this.token}` };
  }

  /** One authorised request; a 401 renews the token once. Returns {status, text|bytes}. */
  async request(what, pathAndQuery, { method = 'GET', body, json, signal, binary = false } = {}) {
    for (let attempt = 0; ; attempt++) {
      const headers = await this.auth(signal);
      if (json) headers['content-type'] = 'application/json';
      const res = await fetch(`${this.url}${pathAndQuery}`, { method, headers, body: json ? JSON.stringify(json) : body, signal });
      const buf = Buffer.from(await res.arrayBuffer());
      const text = binary && res.status === 200 ? '' : buf.toString('utf8');
      this.observe(what, res.status, text);
      if (res.status === 401 && attempt === 0) {
        this.token = null;
        continue;
      }
      return { status: res.status, text, bytes: buf, headers: res.headers };
    }
  }

  upload(bytes, query, signal) {
    return this.request('upload', `/api/v1/documents/upload?${new URLSearchParams(query)}`, { method: 'POST', body: bytes, signal });
  }

  status(documentId, signal) {
    return this.request('status', `/api/v1/documents/${encodeURIComponent(documentId)}/status`, { signal });
  }

  result(documentId, signal) {
    return this.request('result', `/api/v1/documents/${encodeURIComponent(documentId)}/result`, { signal, binary: true });
  }

  async live(timeoutMs) {
    const res = await fetch(`${this.url}/health/live`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.ok;
  }
}
