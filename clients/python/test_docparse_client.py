"""The Python client against a running node (run from test/sdk/python-client.test.ts, which starts one).

Environment: DOCPARSE_URL, DOCPARSE_CLIENT_ID, DOCPARSE_CLIENT_SECRET, and DOCPARSE_TEST_EXPIRED_TOKEN
(a token signed by the node with an exp in the past).
"""

import os
import tempfile
import time
import unittest

from docparse_client import DocparseClient, DocparseError, DocparseTimeoutError

URL = os.environ["DOCPARSE_URL"]
CID = os.environ["DOCPARSE_CLIENT_ID"]
SECRET = os.environ["DOCPARSE_CLIENT_SECRET"]
CSV = b"city,lat,lon\nParis,48.85,2.35\nLyon,45.76,4.83\n"


class Calls(unittest.TestCase):
    def client(self, **kw):
        return DocparseClient(URL, CID, SECRET, **kw)

    def test_direct_upload_wait_result(self):
        c = self.client()
        job = c.upload(CSV, file_name="cities.csv", csv_route="Tabular", custom_metadata={"from": "python"})
        self.assertEqual(job["statusInt"], 2)
        self.assertEqual(len(job["documentId"]), 36)  # picked by the client
        self.assertEqual(c.wait_for(job["documentId"], timeout=30)["status"], "completed")
        artifact = c.result(job["documentId"])
        self.assertEqual(artifact["document_format"], "csv")
        self.assertEqual(artifact["customMetadata"], {"from": "python"})
        self.assertEqual(c.status(job["documentId"])["documentUnits"], 1)
        self.assertEqual(c.token_requests, 1)

    def test_presigned_upload_of_a_path(self):
        c = self.client(direct_upload_max_bytes=16)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "big.csv")
            with open(path, "wb") as f:
                f.write(CSV)
            job = c.upload(path, csv_route="Spatial", document_id="py-presigned-1")
        self.assertEqual(job["documentId"], "py-presigned-1")
        self.assertEqual(c.wait_for(["py-presigned-1"], timeout=30)[0]["status"], "completed")
        self.assertEqual(c.result("py-presigned-1")["fileName"], "big.csv")

    def test_a_lower_server_limit_sends_the_upload_presigned(self):
        c = self.client()  # the default limit, 900 MB; the node's is 100 bytes
        big = b"city,lat,lon\n" + b"Paris,48.85,2.35\n" * 10
        job = c.upload(big, file_name="over.csv", csv_route="Tabular")
        self.assertEqual(c.direct_upload_max_bytes, 100)
        self.assertEqual(c.wait_for(job["documentId"], timeout=30)["status"], "completed")

    def test_batch_splits_by_100_in_order(self):
        c = self.client()
        job = c.upload(CSV, file_name="a.csv", csv_route="Tabular")
        ids = [job["documentId"] if i == 150 else f"py-missing-{i}" for i in range(250)]
        results = c.status_batch(ids)
        self.assertEqual([r["documentId"] for r in results], ids)
        self.assertIn("statusInt", results[150])
        self.assertEqual(results[0]["error"]["code"], "document_not_found")

    def test_typed_errors(self):
        c = self.client()
        with self.assertRaises(DocparseError) as e:
            c.upload(CSV, file_name="no-route.csv")
        self.assertEqual((e.exception.status, e.exception.code), (400, "invalid_parameter"))
        self.assertEqual(e.exception.problem["parameter"], "csvRoute")
        self.assertTrue(e.exception.request_id)
        with self.assertRaises(DocparseError) as e:
            c.result("py-never-uploaded")
        self.assertEqual((e.exception.status, e.exception.code), (404, "document_not_found"))
        with self.assertRaises(DocparseError) as e:
            c.wait_for("py-never-uploaded")
        self.assertEqual(e.exception.code, "document_not_found")
        with self.assertRaises(DocparseError) as e:
            DocparseClient(URL, CID, "wrong-secret-0123456789").status("x")
        self.assertEqual((e.exception.status, e.exception.code), (401, "invalid_client"))

    def test_wait_for_times_out_on_a_job_that_does_not_end(self):
        c = self.client()
        c._json("POST", "/api/v1/documents/upload-request", {"fileName": "later.csv", "sizeBytes": 10, "documentId": "py-open"}, idempotent=False)
        with self.assertRaises(DocparseTimeoutError) as e:
            c.wait_for("py-open", timeout=0.5)
        self.assertEqual(e.exception.document_ids, ["py-open"])
        with self.assertRaises(DocparseError) as e:
            c.result("py-open")
        self.assertEqual((e.exception.status, e.exception.code), (202, "result_not_ready"))

    def test_cancel(self):
        c = self.client()
        c._json("POST", "/api/v1/documents/upload-request", {"fileName": "later.csv", "sizeBytes": 10, "documentId": "py-cancel"}, idempotent=False)
        for _ in range(2):  # idempotent: the same answer again
            cancelled = c.cancel("py-cancel")
            self.assertEqual((cancelled["statusInt"], cancelled["error"]["code"]), (9, "cancelled"))
        with self.assertRaises(DocparseError) as e:
            c.result("py-cancel")
        self.assertEqual((e.exception.status, e.exception.code), (422, "cancelled"))
        job = c.upload(CSV, file_name="a.csv", csv_route="Tabular")
        c.wait_for(job["documentId"], timeout=30)
        self.assertTrue(c.cancel(job["documentId"])["resultDeleted"])
        with self.assertRaises(DocparseError) as e:
            c.cancel(job["documentId"])
        self.assertEqual((e.exception.status, e.exception.code), (404, "document_not_found"))

    def test_token_renewed_once_near_expiry(self):
        clock = [time.time()]
        c = self.client(now=lambda: clock[0])
        c.status_batch(["a"])
        clock[0] += 14.5 * 60  # within the last minute of 15
        c.status_batch([f"b{i}" for i in range(250)])
        self.assertEqual(c.token_requests, 2)

    def test_token_expired_at_the_server_is_renewed_once(self):
        c = self.client()
        c.set_token(os.environ["DOCPARSE_TEST_EXPIRED_TOKEN"], time.time() + 900)
        results = c.status_batch([f"x{i}" for i in range(250)])
        self.assertEqual(len(results), 250)
        self.assertEqual(c.token_requests, 1)


if __name__ == "__main__":
    unittest.main()
