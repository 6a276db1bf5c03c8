import datetime as dt
import inspect
import os
import platform
import re
import shutil
import ssl
import subprocess
import tempfile
import time
import unittest

import smsgw
from smsgw._types import OPERATIONS

from .fake_gateway import FakeGateway, envelope

SENT = {"success": True, "message_id": "msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E", "status": "queued", "to": "+33612345678"}
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
FAST = smsgw.Backoff(base=0.005, cap=0.02)


class ClientTest(unittest.TestCase):
    def setUp(self) -> None:
        self.gw = FakeGateway()
        self.addCleanup(self.gw.stop)

    def client(self, **kwargs):
        options = {"backoff": FAST}
        options.update(kwargs)
        return smsgw.Client("sgw_test_k", "client_1", self.gw.url, **options)

    def test_when_a_message_is_sent_then_credentials_a_new_idempotency_key_and_the_body_go_out(self):
        self.gw.reply({"status": 200, "body": SENT, "headers": {"X-Request-ID": "abc", "RateLimit-Limit": "100", "RateLimit-Remaining": "99", "RateLimit-Reset": "60"}})
        res = self.client(device_id="device_A").messages.send(
            "+33612345678", "Bonjour", metadata={"order": 7}, scheduled_at=dt.datetime(2030, 1, 1, 8, 0, tzinfo=dt.timezone.utc)
        )
        self.assertEqual(res, SENT)
        info = smsgw.last_response(res)
        self.assertEqual((info.status, info.request_id, info.replayed, info.attempts, info.rate_limit), (200, "abc", False, 1, (100, 99, 60)))
        r = self.gw.requests[0]
        self.assertEqual((r.method, r.path), ("POST", "/v1/sms/send"))
        self.assertEqual(r.body, {"to": "+33612345678", "message": "Bonjour", "metadata": {"order": 7}, "scheduled_at": "2030-01-01T08:00:00+00:00"})
        self.assertEqual(r.headers["x-api-key"], "sgw_test_k")
        self.assertEqual(r.headers["x-client-id"], "client_1")
        self.assertEqual(r.headers["x-device-id"], "device_A")
        self.assertRegex(r.headers["idempotency-key"], UUID)
        self.assertEqual(info.idempotency_key, r.headers["idempotency-key"])
        self.assertEqual(r.headers["user-agent"], f"smsgw-python/{smsgw.VERSION} python/{platform.python_version()}")

    def test_when_two_messages_are_sent_then_each_has_its_own_key_and_a_callers_key_is_kept(self):
        c = self.client()
        c.messages.send("+33612345678", "a")
        c.messages.send("+33612345678", "b")
        c.messages.send("+33612345678", "c", idempotency_key="order-17")
        keys = [r.headers["idempotency-key"] for r in self.gw.requests]
        self.assertEqual(len(set(keys)), 3)
        self.assertEqual(keys[2], "order-17")

    def test_when_a_send_is_answered_503_then_200_then_it_is_retried_with_the_same_key(self):
        self.gw.reply(
            {"status": 503, "body": envelope("SERVICE_UNAVAILABLE"), "headers": {"Retry-After": "0"}},
            {"status": 200, "body": SENT, "headers": {"Idempotent-Replayed": "true"}},
        )
        res = self.client().messages.send_bulk(["+33612345678"], "x")
        self.assertEqual(len(self.gw.requests), 2)
        self.assertEqual(self.gw.requests[0].headers["idempotency-key"], self.gw.requests[1].headers["idempotency-key"])
        self.assertEqual((res.last_response.attempts, res.last_response.replayed), (2, True))

    def test_when_429_says_retry_after_1_then_the_client_waits_that_second(self):
        self.gw.reply({"status": 429, "body": envelope("RATE_LIMIT_EXCEEDED"), "headers": {"Retry-After": "1"}}, {"status": 200, "body": {"success": True}})
        started = time.monotonic()
        self.client().messages.get("msg_1")
        self.assertGreaterEqual(time.monotonic() - started, 0.95)
        self.assertEqual(len(self.gw.requests), 2)

    def test_when_retry_after_is_over_a_minute_then_nothing_is_retried_and_the_error_carries_it(self):
        self.gw.reply({"status": 429, "body": envelope("OTP_RATE_LIMITED"), "headers": {"Retry-After": "3600"}})
        with self.assertRaises(smsgw.RateLimitError) as caught:
            self.client().otp.send("+33612345678")
        self.assertEqual((caught.exception.status, caught.exception.code, caught.exception.retry_after), (429, "OTP_RATE_LIMITED", 3600))
        self.assertEqual(len(self.gw.requests), 1)

    def test_when_a_key_is_used_outside_its_scopes_or_ranges_or_past_its_quota_then_the_class_and_code_say_which(self):
        c = self.client()
        for code in ("SCOPE_NOT_ALLOWED", "IP_NOT_ALLOWED"):
            with self.subTest(code=code):
                self.gw.reply({"status": 403, "body": envelope(code)})
                with self.assertRaises(smsgw.AuthenticationError) as caught:
                    c.messages.get("msg_1")
                self.assertEqual((caught.exception.status, caught.exception.code), (403, code))
        # Until the next UTC midnight: longer than the client waits, raised at once.
        self.gw.reply({"status": 429, "body": envelope("QUOTA_EXCEEDED"), "headers": {"Retry-After": "40000"}})
        before = len(self.gw.requests)
        with self.assertRaises(smsgw.RateLimitError) as caught:
            c.messages.send("+33612345678", "x")
        self.assertEqual((caught.exception.status, caught.exception.code, caught.exception.retry_after), (429, "QUOTA_EXCEEDED", 40000))
        self.assertEqual(len(self.gw.requests) - before, 1)

    def test_when_the_gateway_keeps_answering_503_then_the_call_gives_up_after_max_retries(self):
        self.gw.fallback = {"status": 503, "body": envelope("DEVICE_OFFLINE")}
        with self.assertRaises(smsgw.ServiceUnavailableError) as caught:
            self.client(max_retries=3).messages.send("+33612345678", "x")
        self.assertEqual(caught.exception.code, "DEVICE_OFFLINE")
        self.assertEqual(len(self.gw.requests), 4)
        self.assertEqual(len({r.headers["idempotency-key"] for r in self.gw.requests}), 1)

    def test_when_the_answer_is_a_4xx_or_a_500_then_it_is_raised_at_once_as_its_class(self):
        cases = [
            (400, "INVALID_PHONE_NUMBER", smsgw.InvalidRequestError),
            (401, "INVALID_API_KEY", smsgw.AuthenticationError),
            (404, "MESSAGE_NOT_FOUND", smsgw.NotFoundError),
            (409, "MESSAGE_NOT_CANCELLABLE", smsgw.ConflictError),
            (410, "OTP_EXPIRED", smsgw.ConflictError),
            (422, "IDEMPOTENCY_KEY_REUSED", smsgw.InvalidRequestError),
            (500, "INTERNAL_ERROR", smsgw.ServerError),
        ]
        c = self.client()
        for status, code, cls in cases:
            with self.subTest(status=status):
                self.gw.reply({"status": status, "body": envelope(code, "Numéro invalide", [{"field": "to", "code": code}]), "headers": {"X-Request-ID": f"r-{status}"}})
                before = len(self.gw.requests)
                with self.assertRaises(cls) as caught:
                    c.messages.send("x", "y")
                err = caught.exception
                self.assertIsInstance(err, smsgw.APIError)
                self.assertIsInstance(err, smsgw.SmsGatewayError)
                self.assertEqual((err.status, err.code, err.request_id, err.details), (status, code, f"r-{status}", [{"field": "to", "code": code}]))
                self.assertIn(code, str(err))
                self.assertEqual(len(self.gw.requests) - before, 1)

    def test_when_a_send_meets_idempotency_in_progress_then_it_waits_and_gets_the_stored_answer(self):
        self.gw.reply("reset", {"status": 409, "body": envelope("IDEMPOTENCY_IN_PROGRESS"), "headers": {"Retry-After": "0"}}, {"status": 200, "body": SENT})
        res = self.client().messages.send("+33612345678", "x")
        self.assertEqual(res["message_id"], SENT["message_id"])
        self.assertEqual(len(self.gw.requests), 3)
        self.assertEqual(len({r.headers["idempotency-key"] for r in self.gw.requests}), 1)

    def test_when_verify_otp_loses_its_connection_or_gets_503_then_it_is_not_retried(self):
        self.gw.reply("reset")
        with self.assertRaises(smsgw.APIConnectionError) as caught:
            self.client().otp.verify("otp_1", "123456")
        self.assertTrue(caught.exception.connected)
        self.gw.reply({"status": 503, "body": envelope("SERVICE_UNAVAILABLE")})
        with self.assertRaises(smsgw.ServiceUnavailableError):
            self.client().otp.verify("otp_1", "123456")
        self.assertEqual(len(self.gw.requests), 2)
        self.assertNotIn("idempotency-key", self.gw.requests[1].headers)

    def test_when_verify_otp_is_refused_with_429_then_it_is_retried(self):
        self.gw.reply({"status": 429, "body": envelope("RATE_LIMIT_EXCEEDED"), "headers": {"Retry-After": "0"}}, {"status": 200, "body": {"success": True, "valid": True}})
        self.assertTrue(self.client().otp.verify("otp_1", "123456")["valid"])
        self.assertEqual(len(self.gw.requests), 2)

    def test_when_nothing_listens_then_the_call_fails_with_a_connection_error_that_never_connected(self):
        url = self.gw.url
        self.gw.stop()
        c = smsgw.Client("k", "c", url, max_retries=2, backoff=smsgw.Backoff(base=0.001, cap=0.002))
        with self.assertRaises(smsgw.APIConnectionError) as caught:
            c.otp.verify("otp_1", "1")
        self.assertFalse(caught.exception.connected)
        self.assertIsInstance(caught.exception.__cause__, ConnectionRefusedError)
        self.gw = FakeGateway()

    def test_when_the_gateway_does_not_answer_in_time_then_each_attempt_times_out_and_a_read_is_retried(self):
        self.gw.fallback = "hang"
        with self.assertRaises(smsgw.APITimeoutError):
            self.client(timeout=0.2, max_retries=1).messages.get("msg_1")
        self.assertEqual(len(self.gw.requests), 2)

    def test_when_an_error_answer_has_no_envelope_then_it_is_still_an_api_error_of_its_status(self):
        self.gw.reply({"status": 502, "body": "<html>Bad gateway</html>"})
        with self.assertRaises(smsgw.ServerError) as caught:
            self.client().messages.get("msg_1")
        self.assertEqual(caught.exception.code, "UNEXPECTED_RESPONSE")
        self.assertIn("Bad gateway", str(caught.exception))

    def test_when_the_history_is_listed_then_every_page_is_fetched_with_the_period_pinned(self):
        def item(n):
            return {"message_id": f"msg_{n}", "created_at": f"2030-01-01T00:00:0{9 - n}.000Z"}

        def page(n, data):
            return {"status": 200, "body": {"success": True, "data": data, "pagination": {"current_page": n, "per_page": 2, "total_pages": 3, "total_items": 5}}}

        self.gw.reply(page(1, [item(1), item(2)]), page(2, [item(3), item(4)]), page(3, [item(5)]))
        ids = [m["message_id"] for m in self.client().messages.list(limit=2, status="delivered")]
        self.assertEqual(ids, ["msg_1", "msg_2", "msg_3", "msg_4", "msg_5"])
        self.assertEqual(
            [r.query for r in self.gw.requests],
            [
                {"page": "1", "limit": "2", "status": "delivered"},
                {"page": "2", "limit": "2", "status": "delivered", "to_date": "2030-01-01T00:00:08.000Z"},
                {"page": "3", "limit": "2", "status": "delivered", "to_date": "2030-01-01T00:00:08.000Z"},
            ],
        )

    def test_when_every_method_is_called_then_together_they_reach_every_operation_of_the_document(self):
        c = self.client()
        c.messages.send("+1", "a")
        c.messages.send_bulk(["+1"], "a")
        c.messages.send_personalized([{"to": "+1", "message": "a"}])
        c.messages.get("msg_1/../x")
        c.messages.cancel("msg_1")
        c.messages.history(page=2, search="bonjour", from_date=dt.date(2030, 1, 1))
        c.messages.stats(from_date="2030-01-01")
        c.otp.send("+1")
        c.otp.verify("otp_1", "1")
        c.otp.stats(from_date="2030-01-01", device_id="device_A")
        c.inbox.page(from_="+33698765432", limit=10)
        c.inbox.get("rcv_1")
        c.opt_outs.page(page=2)
        c.opt_outs.add("+33612345678")
        c.opt_outs.remove("+33612345678")
        c.auth.test(device_id="device_B")
        reached = sorted(f"{r.method} {r.path}" for r in self.gw.requests)
        expected = sorted(
            f"{op.method} "
            + op.path.replace("{message_id}", "msg_1%2F..%2Fx" if op.method == "GET" else "msg_1")
            .replace("{id}", "rcv_1")
            .replace("{phone_number}", "%2B33612345678")
            for op in OPERATIONS.values()
        )
        self.assertEqual(reached, expected)
        keyed = sorted(r.path for r in self.gw.requests if "idempotency-key" in r.headers)
        self.assertEqual(keyed, sorted(op.path for op in OPERATIONS.values() if op.idempotency_key))
        self.assertEqual(self.gw.requests[5].query["from_date"], "2030-01-01")
        self.assertEqual(self.gw.requests[-1].headers["x-device-id"], "device_B")

    def test_when_the_document_lists_a_body_field_then_the_method_takes_it_by_name(self):
        methods = {
            "sendSms": smsgw.Messages.send,
            "sendBulkSms": smsgw.Messages.send_bulk,
            "sendBulkPersonalizedSms": smsgw.Messages.send_personalized,
            "sendOtp": smsgw.Otp.send,
            "verifyOtp": smsgw.Otp.verify,
            "getHistory": smsgw.Messages.history,
            "getStats": smsgw.Messages.stats,
            "getOtpStats": smsgw.Otp.stats,
            "listInbox": smsgw.Inbox.page,
            "listOptOuts": smsgw.OptOuts.page,
            "addOptOut": smsgw.OptOuts.add,
        }
        for op_id, method in methods.items():
            with self.subTest(op_id):
                # A name that is a Python keyword takes a final _ (from_ is the query's from).
                params = [p.rstrip("_") for p in inspect.signature(method).parameters if p not in ("self", "options")]
                self.assertEqual(sorted(params), sorted(OPERATIONS[op_id].body_fields + OPERATIONS[op_id].query))

    def test_when_a_message_is_sent_with_ttl_and_failover_then_both_go_in_the_body(self):
        c = self.client(device_id="device_A")
        c.messages.send("+33612345678", "a", ttl=600, failover=True)
        c.messages.send_bulk(["+33612345678"], "a", ttl=3600, failover=False)
        c.messages.send_personalized([{"to": "+33612345678", "message": "a", "ttl": 120}], ttl=60, failover=True)
        c.otp.send("+33612345678", failover=True, end_user_key="203.0.113.7", fallback_after=30)
        c.messages.send("+33612345678", "b")
        self.assertEqual(
            [r.body for r in self.gw.requests],
            [
                {"to": "+33612345678", "message": "a", "ttl": 600, "failover": True},
                {"recipients": ["+33612345678"], "message": "a", "ttl": 3600, "failover": False},
                {"messages": [{"to": "+33612345678", "message": "a", "ttl": 120}], "ttl": 60, "failover": True},
                {"to": "+33612345678", "failover": True, "end_user_key": "203.0.113.7", "fallback_after": 30},
                {"to": "+33612345678", "message": "b"},
            ],
        )

    def test_when_the_inbox_is_asked_for_then_its_filters_go_in_the_query_and_one_sms_comes_by_its_escaped_id(self):
        received = {
            "id": "rcv_01JD3Z8Q6V5N4W2K9T7R1B0C3E",
            "from": "+33698765432",
            "device_id": "device_A",
            "sim": 1,
            "message": "Oui",
            "received_at": "2026-11-25T09:12:03.000Z",
            "created_at": "2026-11-25T09:12:03.412Z",
        }
        self.gw.reply(
            {"status": 200, "body": {"success": True, "data": [received], "pagination": {"current_page": 1, "per_page": 50, "total_pages": 1, "total_items": 1}}},
            {"status": 200, "body": dict(received, success=True)},
            {"status": 404, "body": envelope("RECEIVED_NOT_FOUND")},
        )
        c = self.client(device_id="device_A")
        page = c.inbox.page(
            from_="+33698765432", device_id="device_A", from_date=dt.date(2026, 11, 1), to_date="2026-11-30", search="oui", page=1, limit=50
        )
        self.assertEqual(page["data"], [received])
        self.assertEqual(c.inbox.get(received["id"])["message"], "Oui")
        with self.assertRaises(smsgw.NotFoundError) as caught:
            c.inbox.get("rcv_x/../y")
        self.assertEqual(caught.exception.code, "RECEIVED_NOT_FOUND")
        self.assertEqual(
            self.gw.requests[0].query,
            {"from": "+33698765432", "device_id": "device_A", "from_date": "2026-11-01", "to_date": "2026-11-30", "search": "oui", "page": "1", "limit": "50"},
        )
        self.assertEqual(
            [f"{r.method} {r.path}" for r in self.gw.requests],
            ["GET /v1/sms/inbox", f"GET /v1/sms/inbox/{received['id']}", "GET /v1/sms/inbox/rcv_x%2F..%2Fy"],
        )
        for r in self.gw.requests:
            self.assertNotIn("idempotency-key", r.headers)
            self.assertNotIn("x-device-id", r.headers)

    def test_when_the_inbox_is_listed_then_every_page_is_fetched_with_the_period_pinned(self):
        def page(n, data):
            return {"status": 200, "body": {"success": True, "data": data, "pagination": {"current_page": n, "per_page": 2, "total_pages": 2, "total_items": 3}}}

        def item(n):
            return {"id": f"rcv_{n}", "received_at": f"2030-01-01T00:00:0{9 - n}.000Z"}

        self.gw.reply(page(1, [item(1), item(2)]), page(2, [item(3)]))
        ids = [m["id"] for m in self.client().inbox.list(limit=2, from_="BANQUE")]
        self.assertEqual(ids, ["rcv_1", "rcv_2", "rcv_3"])
        self.assertEqual(
            [r.query for r in self.gw.requests],
            [
                {"page": "1", "limit": "2", "from": "BANQUE"},
                {"page": "2", "limit": "2", "from": "BANQUE", "to_date": "2030-01-01T00:00:08.000Z"},
            ],
        )

    def test_when_the_opt_outs_are_listed_added_and_removed_then_the_plus_is_escaped_in_the_path(self):
        def entry(n):
            return {"phone_number": f"+3361234567{n}", "source": "api", "keyword": None, "created_at": "2026-11-25T09:20:00.000Z"}

        def page(n, data):
            return {"status": 200, "body": {"success": True, "data": data, "pagination": {"current_page": n, "per_page": 2, "total_pages": 2, "total_items": 3}}}

        self.gw.reply(
            page(1, [entry(1), entry(2)]),
            page(2, [entry(3)]),
            {"status": 200, "body": dict(entry(4), success=True)},
            {"status": 200, "body": {"success": True, "phone_number": "+33612345674", "removed": True}},
            {"status": 404, "body": envelope("OPT_OUT_NOT_FOUND")},
        )
        c = self.client()
        self.assertEqual([o["phone_number"] for o in c.opt_outs.list(limit=2)], ["+33612345671", "+33612345672", "+33612345673"])
        self.assertEqual(c.opt_outs.add("+33612345674")["source"], "api")
        self.assertTrue(c.opt_outs.remove("+33612345674")["removed"])
        with self.assertRaises(smsgw.NotFoundError) as caught:
            c.opt_outs.remove("+33612345674")
        self.assertEqual(caught.exception.code, "OPT_OUT_NOT_FOUND")
        self.assertEqual(
            [(r.method, r.path, r.query, r.body) for r in self.gw.requests],
            [
                ("GET", "/v1/opt-outs", {"page": "1", "limit": "2"}, None),
                ("GET", "/v1/opt-outs", {"page": "2", "limit": "2"}, None),
                ("POST", "/v1/opt-outs", {}, {"phone_number": "+33612345674"}),
                ("DELETE", "/v1/opt-outs/%2B33612345674", {}, None),
                ("DELETE", "/v1/opt-outs/%2B33612345674", {}, None),
            ],
        )
        self.assertNotIn("idempotency-key", self.gw.requests[2].headers)

    def test_when_a_datetime_has_no_timezone_then_it_is_refused_rather_than_guessed(self):
        with self.assertRaises(ValueError):
            self.client().messages.send("+1", "a", scheduled_at=dt.datetime(2030, 1, 1))
        self.assertEqual(self.gw.requests, [])

    def test_when_options_miss_a_credential_or_the_url_is_not_http_then_the_constructor_refuses_them(self):
        for args in (("", "c", "https://x"), ("k", "", "https://x"), ("k", "c", ""), ("k", "c", "ftp://x")):
            with self.subTest(args=args), self.assertRaises(ValueError):
                smsgw.Client(*args)
        self.assertNotIn("sgw_", repr(smsgw.Client("sgw_live_secret", "client_1", "https://x")))

    def test_when_the_base_url_is_plain_http_to_another_machine_then_it_is_refused_and_this_machine_is_accepted(self):
        for url in ("http://sms.example.com", "http://10.0.0.5:8443", "http://[2001:db8::1]/", "http://127.0.0.1.example.com"):
            with self.subTest(url=url), self.assertRaisesRegex(ValueError, "plain http only to this machine"):
                smsgw.Client("k", "c", url)
        for url in ("http://localhost:8443", "http://127.0.0.1:9", "http://127.1.2.3", "http://[::1]:8443", "https://sms.example.com"):
            with self.subTest(url=url):
                smsgw.Client("k", "c", url)

    def test_when_the_gateway_answers_a_redirect_then_it_is_not_followed_and_the_call_fails_with_its_status(self):
        self.gw.fallback = {"status": 307, "headers": {"Location": "https://collector.example.com/steal"}, "body": ""}
        with self.assertRaises(smsgw.APIError) as caught:
            self.client().auth.test()
        self.assertEqual(caught.exception.status, 307)
        self.assertEqual(len(self.gw.requests), 1)

    def test_when_a_base_url_has_a_path_prefix_then_the_api_paths_are_appended_to_it(self):
        smsgw.Client("k", "c", self.gw.url + "/sms-api/").auth.test()
        self.assertEqual(self.gw.requests[0].path, "/sms-api/v1/auth/test")


@unittest.skipUnless(shutil.which("openssl"), "openssl makes the test certificate")
class TlsTest(unittest.TestCase):
    def test_when_the_ca_file_is_given_then_the_certificate_is_trusted_and_without_it_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
            subprocess.run(
                ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                 "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                check=True, capture_output=True,
            )
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            gw = FakeGateway(tls_context=context)
            try:
                gw.fallback = {"status": 200, "body": {"success": True, "mode": "test"}}
                self.assertTrue(gw.url.startswith("https://"))
                self.assertEqual(smsgw.Client("k", "c", gw.url, ca_file=cert).auth.test()["mode"], "test")
                with self.assertRaises(smsgw.APIConnectionError) as caught:
                    smsgw.Client("k", "c", gw.url, max_retries=0).auth.test()
                self.assertIsInstance(caught.exception.__cause__, ssl.SSLCertVerificationError)
                self.assertFalse(caught.exception.connected)
            finally:
                gw.stop()


if __name__ == "__main__":
    unittest.main()
