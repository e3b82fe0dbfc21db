"""A small Python client for the docparse API, standard library only (urllib).

The same calls as the TypeScript SDK (src/sdk): the token is cached and renewed shortly
before it expires (never one per call, one fetch shared by threads); upload() goes direct
or presigned (upload-request -> PUT -> upload-complete) by size; status, status_batch
(split by 100), wait_for (polling with back-off), result; errors are DocparseError with the
problem document's code; 429 (not quota_exceeded) and, for idempotent calls, 5xx and lost
connections are retried after Retry-After or an exponential back-off with jitter.

    from docparse_client import DocparseClient
    c = DocparseClient("http://localhost:8080", CLIENT_ID, CLIENT_SECRET)
    job = c.upload("cities.csv", csv_route="Tabular")
    c.wait_for(job["documentId"], timeout=60)
    artifact = c.result(job["documentId"])
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, BinaryIO, Callable, Dict, Iterable, List, Optional, Sequence, Union

__all__ = ["DocparseClient", "DocparseError", "DocparseTimeoutError"]

DEFAULT_DIRECT_UPLOAD_MAX_BYTES = 900_000_000  # the server's default DOCPARSE_DIRECT_UPLOAD_MAX_BYTES
BATCH_STATUS_MAX_IDS = 100
TERMINAL = (8, 9)  # completed, failed


class DocparseError(Exception):
    """A refusal of the API: HTTP status, the problem's code, detail and the request id."""

    def __init__(self, status: int, code: str, detail: str, request_id: Optional[str] = None,
                 problem: Optional[Dict[str, Any]] = None, retry_after: Optional[float] = None):
        super().__init__(f"{code} ({status or 'no response'}): {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.request_id = request_id
        self.problem = problem or {}
        self.retry_after = retry_after


class DocparseTimeoutError(Exception):
    def __init__(self, document_ids: List[str], timeout: float):
        super().__init__(f"{len(document_ids)} document(s) not finished after {timeout} s")
        self.document_ids = document_ids


class _Refused(Exception):
    def __init__(self, error: DocparseError):
        super().__init__(str(error))
        self.error = error


class _Response:
    def __init__(self, status: int, headers: Dict[str, str], body: bytes):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


def _retry_after(value: Optional[str]) -> Optional[float]:
    if value and value.strip().isdigit():
        return float(value.strip())
    return None


def _error(status: int, headers: Dict[str, str], body: bytes) -> DocparseError:
    doc: Dict[str, Any] = {}
    try:
        parsed = json.loads(body.decode("utf-8"))
        if isinstance(parsed, dict):
            doc = parsed
    except ValueError:
        pass
    code = doc.get("code") or doc.get("error") or f"http_{status}"
    detail = doc.get("detail") or doc.get("error_description") or doc.get("title") or body[:300].decode("utf-8", "replace")
    return DocparseError(status, code, detail, doc.get("requestId") or headers.get("x-request-id"), doc,
                         _retry_after(headers.get("retry-after")))


class DocparseClient:
    def __init__(self, base_url: str, client_id: str, client_secret: str, *, auth_url: Optional[str] = None,
                 scope: str = "Service.API", direct_upload_max_bytes: int = DEFAULT_DIRECT_UPLOAD_MAX_BYTES,
                 max_retries: int = 4, base_delay: float = 0.25, max_delay: float = 30.0, max_retry_after: float = 120.0,
                 renew_before: float = 60.0, timeout: float = 300.0, now: Callable[[], float] = time.time,
                 on_retry: Optional[Callable[[Dict[str, Any]], None]] = None):
        self.base_url = base_url.rstrip("/")
        self.token_url = (auth_url or self.base_url).rstrip("/") + "/connect/token"
        self.client_id = client_id
        self.client_secret = client_secret
        self.scope = scope
        self.direct_upload_max_bytes = direct_upload_max_bytes
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.max_retry_after = max_retry_after
        self.renew_before = renew_before
        self.timeout = timeout
        self.now = now
        self.on_retry = on_retry
        self.token_requests = 0
        self._token: Optional[str] = None
        self._expires_at = 0.0
        self._token_lock = threading.Lock()

    # ---- the token (spec token rule 1) ----

    def set_token(self, access_token: str, expires_at: float) -> None:
        """Seeds the cache with a token kept elsewhere (expires_at: epoch seconds by this client's clock)."""
        with self._token_lock:
            self._token, self._expires_at = access_token, expires_at

    def _get_token(self) -> str:
        with self._token_lock:  # one fetch at a time; the others then find it cached
            if self._token and self.now() < self._expires_at - self.renew_before:
                return self._token
            asked_at = self.now()
            form = urllib.parse.urlencode({"grant_type": "client_credentials", "scope": self.scope,
                                           "client_id": self.client_id, "client_secret": self.client_secret}).encode()
            self.token_requests += 1
            res = self._send("POST", self.token_url, {"content-type": "application/x-www-form-urlencoded"}, form)
            if res.status != 200:
                raise _error(res.status, res.headers, res.body)
            body = res.json()
            self._token, self._expires_at = body["access_token"], asked_at + body["expires_in"]
            return self._token

    def _refused(self, token: str) -> None:
        with self._token_lock:
            if self._token == token:
                self._token = None

    # ---- one call with its retries ----

    def _send(self, method: str, url: str, headers: Dict[str, str], body: Optional[bytes]) -> _Response:
        req = urllib.request.Request(url, data=body, method=method, headers={"accept": "application/json", **headers})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return _Response(r.status, {k.lower(): v for k, v in r.headers.items()}, r.read())
        except urllib.error.HTTPError as e:
            return _Response(e.code, {k.lower(): v for k, v in e.headers.items()}, e.read())
        except (urllib.error.URLError, OSError) as e:
            raise DocparseError(0, "network_error", f"{method} {url} failed: {e}") from e

    def _call(self, method: str, path_or_url: str, *, body: Optional[bytes] = None, headers: Optional[Dict[str, str]] = None,
              idempotent: bool, auth: bool = True) -> _Response:
        url = path_or_url if path_or_url.startswith("http") else self.base_url + path_or_url
        renewed = False
        attempt = 0
        while True:
            token = None
            try:
                h = dict(headers or {})
                if auth:
                    try:
                        token = self._get_token()
                    except DocparseError as e:
                        if 0 < e.status < 500:
                            raise _Refused(e) from e  # wrong credentials: no retry
                        raise
                    h["authorization"] = f"Bearer {token}"
                res = self._send(method, url, h, body)
                if 200 <= res.status < 300:
                    return res
                err = _error(res.status, res.headers, res.body)
            except _Refused as r:
                raise r.error from None
            except DocparseError as e:
                err = e
            if err.status == 401 and err.code == "token_expired" and token and not renewed:
                renewed = True  # clocks apart: renew once, not counted as a retry
                self._refused(token)
                continue
            retryable = (err.status == 429 and err.code != "quota_exceeded") or (
                idempotent and (err.status == 0 or (err.status >= 500 and err.status != 501)))
            if attempt >= self.max_retries or not retryable:
                raise err
            step = min(self.max_delay, self.base_delay * 2 ** attempt)
            delay = err.retry_after if err.retry_after is not None else step / 2 + random.random() * step / 2
            if delay > self.max_retry_after:
                raise err  # asked to wait longer than we will: fail now rather than retry early
            attempt += 1
            if self.on_retry:
                self.on_retry({"attempt": attempt, "delay": delay, "status": err.status, "code": err.code,
                               "path": urllib.parse.urlsplit(url).path})
            time.sleep(delay)

    def _json(self, method: str, path: str, payload: Any, idempotent: bool) -> Any:
        return self._call(method, path, body=json.dumps(payload).encode(), headers={"content-type": "application/json"},
                          idempotent=idempotent).json()

    # ---- the documents API ----

    def upload(self, source: Union[str, os.PathLike, bytes, bytearray, BinaryIO], *, file_name: Optional[str] = None,
               document_id: Optional[str] = None, document_type: Optional[str] = None, csv_route: Optional[str] = None,
               sql_dialect: Optional[str] = None, pdf_mode: Optional[str] = None, parquet_mode: Optional[str] = None,
               custom_metadata: Optional[Dict[str, Any]] = None, chunk_hints: Optional[bool] = None,
               callback_url: Optional[str] = None) -> Dict[str, Any]:
        """Uploads a file path, bytes or a binary file object; presigned above the direct-upload limit.

        callback_url: an https URL told with a signed webhook when the job ends (docs/webhooks.md).

        A documentId is picked when none is given, so a retried upload is the same job to the server.
        """
        if isinstance(source, (str, os.PathLike)):
            file_name = file_name or os.path.basename(os.fspath(source))
            with open(source, "rb") as f:
                data = f.read()
        elif isinstance(source, (bytes, bytearray)):
            data = bytes(source)
        else:
            file_name = file_name or os.path.basename(getattr(source, "name", "") or "") or None
            data = source.read()
        document_id = document_id or str(uuid.uuid4())
        routing = {k: v for k, v in {"documentType": document_type, "csvRoute": csv_route, "sqlDialect": sql_dialect,
                                     "pdfMode": pdf_mode, "parquetMode": parquet_mode,
                                     "callbackUrl": callback_url}.items() if v is not None}
        if custom_metadata is not None:
            routing["customMetadataJson"] = json.dumps(custom_metadata)
        if chunk_hints is not None:
            routing["chunkHints"] = chunk_hints
        def presigned() -> Dict[str, Any]:
            if not file_name:
                raise ValueError("a presigned upload needs file_name")
            # Only a refusal is retried: a second session would hold a job slot until it expires.
            session = self._json("POST", "/api/v1/documents/upload-request",
                                 {"fileName": file_name, "sizeBytes": len(data), "documentId": document_id}, idempotent=False)
            self._call("PUT", session["uploadUrl"], body=data, headers={"content-type": "application/octet-stream"},
                       idempotent=True, auth=False)
            return self._json("POST", "/api/v1/documents/upload-complete",
                              {"uploadId": session["uploadId"], "fileName": file_name, **routing}, idempotent=True)

        if len(data) > self.direct_upload_max_bytes:
            return presigned()
        query = {"documentId": document_id, **{k: (str(v).lower() if isinstance(v, bool) else v) for k, v in routing.items()}}
        if file_name:
            query["fileName"] = file_name
        try:
            return self._call("POST", "/api/v1/documents/upload?" + urllib.parse.urlencode(query), body=data,
                              headers={"content-type": "application/octet-stream"}, idempotent=True).json()
        except DocparseError as e:
            # A server whose direct limit is lower names it in its 413: go presigned, and keep the limit.
            limit = e.problem.get("maxBytes") if e.code == "document_too_large" else None
            if not isinstance(limit, int) or len(data) <= limit or limit >= self.direct_upload_max_bytes:
                raise
            self.direct_upload_max_bytes = limit
            return presigned()

    def status(self, document_id: str) -> Dict[str, Any]:
        return self._call("GET", f"/api/v1/documents/{urllib.parse.quote(document_id, safe='')}/status", idempotent=True).json()

    def status_batch(self, document_ids: Sequence[str]) -> List[Dict[str, Any]]:
        """Statuses in the order asked, 100 ids per request; unknown ids as {documentId, error}."""
        out: List[Dict[str, Any]] = []
        for i in range(0, len(document_ids), BATCH_STATUS_MAX_IDS):
            out += self._json("POST", "/api/v1/documents/status/batch",
                              {"documentIds": list(document_ids[i:i + BATCH_STATUS_MAX_IDS])}, idempotent=True)["results"]
        return out

    def wait_for(self, document_ids: Union[str, Iterable[str]], timeout: Optional[float] = None,
                 poll: float = 0.25, max_poll: float = 5.0) -> Any:
        """Polls until every job is completed or failed; returns the final status (a list for a list)."""
        single = isinstance(document_ids, str)
        ids = [document_ids] if single else list(document_ids)
        done: Dict[str, Dict[str, Any]] = {}
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = poll
        last: Dict[str, int] = {}
        while True:
            changed = False
            for s in self.status_batch([i for i in ids if i not in done]):
                if "statusInt" not in s:
                    raise DocparseError(404, s["error"]["code"], s["error"]["message"])
                changed = changed or last.get(s["documentId"]) != s["statusInt"]
                last[s["documentId"]] = s["statusInt"]
                if s["statusInt"] in TERMINAL:
                    done[s["documentId"]] = s
            if len(done) == len(set(ids)):
                out = [done[i] for i in ids]
                return out[0] if single else out
            pause = poll if changed else min(max_poll, pause * 1.5)
            if deadline is not None and time.monotonic() + pause > deadline:
                raise DocparseTimeoutError([i for i in ids if i not in done], timeout or 0)
            time.sleep(pause)

    def cancel(self, document_id: str) -> Dict[str, Any]:
        """Cancels a queued or running job (it ends failed with code cancelled; nothing is charged), or
        deletes a finished job's result early (resultDeleted true). Idempotent; an unknown id raises
        DocparseError document_not_found."""
        return self._call("DELETE", f"/api/v1/documents/{urllib.parse.quote(document_id, safe='')}", idempotent=True).json()

    def result(self, document_id: str) -> Dict[str, Any]:
        """The artifact; DocparseError result_not_ready (202), the failure's code (422), document_not_found (404)."""
        res = self._call("GET", f"/api/v1/documents/{urllib.parse.quote(document_id, safe='')}/result", idempotent=True)
        if res.status == 202:
            job = res.json()
            raise DocparseError(202, "result_not_ready", f"document {document_id} is {job.get('status')}",
                                res.headers.get("x-request-id"), {"job": job})
        return res.json()
