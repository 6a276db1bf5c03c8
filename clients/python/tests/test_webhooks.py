import json
import threading
import unittest
from datetime import datetime, timezone

import typing

import smsgw
from smsgw import _types as smsgw_types
from smsgw import webhooks

SECRET = "whsec_test"
NOW = datetime(2030, 1, 1, 12, 0, tzinfo=timezone.utc).timestamp()


def body(**over):
    event = {
        "event": "sms.delivered",
        "event_id": "evt_1",
        "timestamp": "2030-01-01T12:00:00.000Z",
        "data": {"message_id": "msg_1", "status": "delivered", "to": "+33612345678", "metadata": {}},
    }
    event.update(over)
    return json.dumps({k: v for k, v in event.items() if v is not None}).encode()


class WebhookTest(unittest.TestCase):
    def test_when_an_sms_received_event_arrives_then_its_data_has_the_received_sms_with_sim_or_none(self):
        data = {
            "id": "rcv_01JD3Z8Q6V5N4W2K9T7R1B0C3E",
            "from": "+33698765432",
            "device_id": "device_1",
            "sim": 2,
            "message": "STOP",
            "received_at": "2030-01-01T11:59:58.000Z",
            "in_reply_to": None,
        }
        raw = body(event="sms.received", data=data)
        event = webhooks.verify(raw, webhooks.sign(raw, SECRET), SECRET, now=NOW)
        received: webhooks.ReceivedEventData = event["data"]  # type: ignore[assignment]
        self.assertEqual(event["event"], "sms.received")
        self.assertEqual(
            (received["id"], received["from"], received["sim"], received["message"]), (data["id"], "+33698765432", 2, "STOP")
        )
        self.assertEqual(set(webhooks.ReceivedEventData.__annotations__), set(data))
        raw = body(event="sms.received", data={**data, "sim": None})
        self.assertIsNone(webhooks.verify(raw, webhooks.sign(raw, SECRET), SECRET, now=NOW)["data"]["sim"])

    def test_when_a_message_to_an_opted_out_number_fails_then_its_code_is_opted_out(self):
        error = {"code": "OPTED_OUT", "message": "Le destinataire a demandé à ne plus recevoir de SMS de ce compte."}
        data = {"message_id": "msg_1", "status": "failed", "to": "+33698765432", "error": error, "metadata": {}}
        raw = body(event="sms.failed", data=data)
        event = webhooks.verify(raw, webhooks.sign(raw, SECRET), SECRET, now=NOW)
        self.assertEqual(event["data"]["error"]["code"], "OPTED_OUT")
        self.assertIn("OPTED_OUT", typing.get_args(smsgw_types.SmsErrorCode))
        self.assertIn("sms.received", typing.get_args(webhooks.EventKind))

    def test_when_the_body_is_signed_with_the_secret_then_the_event_comes_back_parsed(self):
        raw = body()
        event = webhooks.verify(raw, webhooks.sign(raw, SECRET), SECRET, now=NOW)
        self.assertEqual((event["event"], event["event_id"], event["data"]["message_id"]), ("sms.delivered", "evt_1", "msg_1"))
        self.assertEqual(webhooks.verify(raw.decode(), webhooks.sign(raw, SECRET).upper(), SECRET, now=NOW)["event_id"], "evt_1")

    def test_when_the_signature_body_or_secret_differ_or_the_header_is_missing_then_signature_error(self):
        raw = body()
        sig = webhooks.sign(raw, SECRET)
        cases = [
            (raw.replace(b"msg_1", b"msg_2"), sig, SECRET),
            (raw, sig, "whsec_other"),
            (raw, None, SECRET),
            (raw, "zz", SECRET),
            (raw, "é" * 64, SECRET),
            (raw, sig[:32], SECRET),
            (json.dumps(json.loads(raw), indent=1).encode(), sig, SECRET),
        ]
        for raw_body, signature, secret in cases:
            with self.subTest(signature=signature), self.assertRaises(smsgw.WebhookSignatureError) as caught:
                webhooks.verify(raw_body, signature, secret, now=NOW)
            self.assertEqual(caught.exception.reason, "signature")
            self.assertIsInstance(caught.exception, smsgw.WebhookVerificationError)

    def test_when_signed_more_than_the_tolerance_away_then_timestamp_error(self):
        raw = body()
        sig = webhooks.sign(raw, SECRET)
        for now in (NOW + 301, NOW - 301):
            with self.assertRaises(smsgw.WebhookTimestampError):
                webhooks.verify(raw, sig, SECRET, now=now)
        self.assertEqual(webhooks.verify(raw, sig, SECRET, now=NOW + 299)["event_id"], "evt_1")
        self.assertEqual(webhooks.verify(raw, sig, SECRET, now=NOW + 500, tolerance=600)["event_id"], "evt_1")

    def test_when_a_signed_body_is_not_an_event_then_payload_error(self):
        for raw in (b"not json", b"[1]", body(event_id=None), body(timestamp=5), body(event=""), body(timestamp="yesterday")):
            with self.subTest(raw=raw):
                with self.assertRaises((smsgw.WebhookPayloadError, smsgw.WebhookTimestampError)) as caught:
                    webhooks.verify(raw, webhooks.sign(raw, SECRET), SECRET, now=NOW)
                expected = smsgw.WebhookTimestampError if b"yesterday" in raw else smsgw.WebhookPayloadError
                self.assertIsInstance(caught.exception, expected)

    def test_when_the_same_event_arrives_twice_then_the_second_is_a_duplicate_and_refusals_are_not_remembered(self):
        seen = smsgw.MemorySeenEvents()
        raw = body()
        sig = webhooks.sign(raw, SECRET)
        with self.assertRaises(smsgw.WebhookSignatureError):
            webhooks.verify(raw, "bad", SECRET, now=NOW, seen=seen)
        with self.assertRaises(smsgw.WebhookTimestampError):
            webhooks.verify(raw, sig, SECRET, now=NOW + 400, seen=seen)
        webhooks.verify(raw, sig, SECRET, now=NOW, seen=seen)
        with self.assertRaises(smsgw.WebhookDuplicateError) as caught:
            webhooks.verify(raw, sig, SECRET, now=NOW, seen=seen)
        self.assertEqual(caught.exception.event["event_id"], "evt_1")
        other = body(event_id="evt_2")
        self.assertEqual(webhooks.verify(other, webhooks.sign(other, SECRET), SECRET, now=NOW, seen=seen)["event_id"], "evt_2")

    def test_when_copies_arrive_on_many_threads_at_once_then_exactly_one_is_handled(self):
        seen = smsgw.MemorySeenEvents()
        raw = body()
        sig = webhooks.sign(raw, SECRET)
        handled = []

        def receive():
            try:
                handled.append(webhooks.verify(raw, sig, SECRET, now=NOW, seen=seen))
            except smsgw.WebhookDuplicateError:
                pass

        threads = [threading.Thread(target=receive) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(len(handled), 1)

    def test_when_remembered_ids_are_older_than_the_ttl_or_too_many_then_the_oldest_are_forgotten(self):
        clock = [0.0]
        seen = smsgw.MemorySeenEvents(ttl=1, max_size=3, clock=lambda: clock[0])
        self.assertTrue(seen.add("a"))
        self.assertFalse(seen.add("a"))
        clock[0] = 1.5
        self.assertTrue(seen.add("a"))
        for eid in "bcd":
            self.assertTrue(seen.add(eid))
        self.assertTrue(seen.add("a"))
        self.assertFalse(seen.add("d"))

    def test_when_the_secret_is_empty_then_nothing_is_checked(self):
        with self.assertRaises(ValueError):
            webhooks.verify(body(), "x", "")


if __name__ == "__main__":
    unittest.main()
