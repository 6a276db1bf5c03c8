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

    def test_when_the_opt_in_device_events_arrive_then_each_is_a_kind_of_the_types_with_its_data(self):
        phone = {"device_id": "device_1", "client_id": "client_1", "name": "Shop phone"}
        cases = {
            "device.degraded": (webhooks.SimDegradedEventData, {**phone, "at": "x", "sim": 2, "state": "quarantined", "reason": "failure_ratio", "recent_results": {"no_credit": 10}, "probe_after": "y"}),
            "device.recovered": (webhooks.SimRecoveredEventData, {**phone, "at": "x", "sim": 2, "state": "healthy", "reason": "manual", "recent_results": {}}),
            "device.battery_low": (webhooks.BatteryLowEventData, {**phone, "battery": 12, "charging": False, "at": "x"}),
            "device.offline": (webhooks.OfflineEventData, {**phone, "offline_since": "2030-01-01T11:00:00Z", "threshold_seconds": 1800}),
        }
        for kind, (typed, data) in cases.items():
            self.assertIn(kind, typing.get_args(webhooks.EventKind))
            # The typed data names every key the event carries.
            self.assertEqual(set(typed.__annotations__), set(data))
            raw = body(event=kind, data=data)
            event = webhooks.verify(raw, webhooks.sign(raw, SECRET), SECRET, now=NOW)
            self.assertEqual((event["event"], event["data"]), (kind, data))

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


def envelope(event_id, **over):
    event = {
        "event": "sms.sent",
        "event_id": event_id,
        "timestamp": "2030-01-01T12:00:00.000Z",
        "data": {"message_id": f"msg_{event_id}", "status": "sent", "to": "+33612345678", "sim": None, "metadata": {}},
    }
    event.update(over)
    return {k: v for k, v in event.items() if v is not None}


def batch(*events):
    return json.dumps(list(events)).encode()


class RecordingStore:
    """Remembers what it was asked, to show what a refused batch recorded."""

    def __init__(self):
        self.ids = []
        self._inner = smsgw.MemorySeenEvents()

    def add(self, event_id):
        self.ids.append(event_id)
        return self._inner.add(event_id)


class WebhookBatchTest(unittest.TestCase):
    def test_when_a_batch_is_signed_with_the_secret_then_its_events_come_back_parsed_in_the_order_of_the_body(self):
        raw = batch(envelope("evt_a"), envelope("evt_b", event="sms.delivered"), envelope("evt_c", event="device.connected"))
        events = webhooks.verify_batch(raw, webhooks.sign(raw, SECRET), SECRET, now=NOW)
        self.assertEqual(
            [(e["event"], e["event_id"]) for e in events],
            [("sms.sent", "evt_a"), ("sms.delivered", "evt_b"), ("device.connected", "evt_c")],
        )
        self.assertEqual(events[0]["data"]["message_id"], "msg_evt_a")
        self.assertEqual(len(webhooks.verify_batch(raw.decode(), webhooks.sign(raw, SECRET).upper(), SECRET, now=NOW)), 3)

    def test_when_the_signature_an_event_of_the_body_or_the_secret_differ_then_signature_error_and_nothing_is_recorded(self):
        raw = batch(envelope("evt_a"), envelope("evt_b"))
        sig = webhooks.sign(raw, SECRET)
        store = RecordingStore()
        cases = [
            (raw.replace(b"msg_evt_b", b"msg_evt_x"), sig, SECRET),
            (batch(envelope("evt_a")), sig, SECRET),
            (raw, sig, "whsec_other"),
            (raw, None, SECRET),
            (raw, "zz", SECRET),
            (json.dumps(json.loads(raw), indent=1).encode(), sig, SECRET),
        ]
        for raw_body, signature, secret in cases:
            with self.subTest(signature=signature), self.assertRaises(smsgw.WebhookSignatureError) as caught:
                webhooks.verify_batch(raw_body, signature, secret, now=NOW, seen=store)
            self.assertEqual(caught.exception.reason, "signature")
        self.assertEqual(store.ids, [])

    def test_when_the_body_or_one_of_its_events_is_not_an_event_then_payload_error_naming_it_and_nothing_is_recorded(self):
        store = RecordingStore()
        cases = [
            (b"not json", "the body is not JSON"),
            (b"[]", "the batch is empty"),
            (b"null", "event 0 of the batch is not a JSON object"),
            (batch(envelope("evt_a"), 5), "event 1 of the batch is not a JSON object"),
            (batch(envelope("evt_a"), [envelope("evt_b")]), "event 1 of the batch is not a JSON object"),
            (batch(envelope("evt_a"), envelope("evt_b"), envelope("")), "event 2 of the batch has no event_id"),
            (batch(envelope("evt_a"), envelope("evt_b", event=None)), "event 1 of the batch has no event"),
            (batch(envelope("evt_a"), envelope("evt_b", timestamp=5)), "event 1 of the batch has no timestamp"),
        ]
        for raw, message in cases:
            with self.subTest(raw=raw), self.assertRaises(smsgw.WebhookPayloadError) as caught:
                webhooks.verify_batch(raw, webhooks.sign(raw, SECRET), SECRET, now=NOW, seen=store)
            self.assertEqual(str(caught.exception), message)
        self.assertEqual(store.ids, [])

    def test_when_the_batch_or_one_of_its_events_was_signed_outside_the_tolerance_then_timestamp_error_and_nothing_recorded(self):
        store = RecordingStore()
        raw = batch(envelope("evt_a"), envelope("evt_b"))
        sig = webhooks.sign(raw, SECRET)
        for now in (NOW + 301, NOW - 301):
            with self.assertRaises(smsgw.WebhookTimestampError):
                webhooks.verify_batch(raw, sig, SECRET, now=now, seen=store)
        for stale in ("2030-01-01T11:50:00.000Z", "yesterday"):
            other = batch(envelope("evt_a"), envelope("evt_b", timestamp=stale))
            with self.subTest(timestamp=stale), self.assertRaises(smsgw.WebhookTimestampError):
                webhooks.verify_batch(other, webhooks.sign(other, SECRET), SECRET, now=NOW, seen=store)
        self.assertEqual(store.ids, [])
        late = webhooks.verify_batch(raw, sig, SECRET, now=NOW + 500, tolerance=600, seen=store)
        self.assertEqual([e["event_id"] for e in late], ["evt_a", "evt_b"])

    def test_when_some_events_of_a_batch_were_received_before_then_only_the_others_come_back_and_duplicates_give_none(self):
        seen = smsgw.MemorySeenEvents()
        single = body(event_id="evt_b")
        self.assertEqual(webhooks.verify(single, webhooks.sign(single, SECRET), SECRET, now=NOW, seen=seen)["event_id"], "evt_b")
        raw = batch(envelope("evt_a"), envelope("evt_b"), envelope("evt_c"), envelope("evt_a"))
        sig = webhooks.sign(raw, SECRET)
        self.assertEqual([e["event_id"] for e in webhooks.verify_batch(raw, sig, SECRET, now=NOW, seen=seen)], ["evt_a", "evt_c"])
        # The same batch again (its answer was lost): every event is a duplicate, nothing is raised.
        self.assertEqual(webhooks.verify_batch(raw, sig, SECRET, now=NOW, seen=seen), [])
        # The single-event check shares the store: an event of a batch is a duplicate for it too.
        single = body(event_id="evt_c")
        with self.assertRaises(smsgw.WebhookDuplicateError):
            webhooks.verify(single, webhooks.sign(single, SECRET), SECRET, now=NOW, seen=seen)
        following = batch(envelope("evt_c"), envelope("evt_d"))
        fresh = webhooks.verify_batch(following, webhooks.sign(following, SECRET), SECRET, now=NOW, seen=seen)
        self.assertEqual([e["event_id"] for e in fresh], ["evt_d"])

    def test_when_no_store_is_given_then_every_event_comes_back_repeated_ids_included(self):
        raw = batch(envelope("evt_a"), envelope("evt_a"))
        for _ in range(2):
            events = webhooks.verify_batch(raw, webhooks.sign(raw, SECRET), SECRET, now=NOW)
            self.assertEqual([e["event_id"] for e in events], ["evt_a", "evt_a"])

    def test_when_the_store_fails_part_way_through_a_batch_then_its_error_comes_out_and_the_ids_before_stay_recorded(self):
        class FailingStore:
            def __init__(self):
                self.ids = []

            def add(self, event_id):
                if len(self.ids) == 2:
                    raise ConnectionError("store down")
                self.ids.append(event_id)
                return True

        store = FailingStore()
        raw = batch(envelope("evt_a"), envelope("evt_b"), envelope("evt_c"))
        with self.assertRaisesRegex(ConnectionError, "store down"):
            webhooks.verify_batch(raw, webhooks.sign(raw, SECRET), SECRET, now=NOW, seen=store)
        self.assertEqual(store.ids, ["evt_a", "evt_b"])

    def test_when_the_body_is_one_event_not_an_array_then_it_comes_back_as_a_list_of_one(self):
        seen = smsgw.MemorySeenEvents()
        raw = body()
        sig = webhooks.sign(raw, SECRET)
        events = webhooks.verify_batch(raw, sig, SECRET, now=NOW, seen=seen)
        self.assertEqual([(e["event"], e["event_id"]) for e in events], [("sms.delivered", "evt_1")])
        self.assertEqual(webhooks.verify_batch(raw, sig, SECRET, now=NOW, seen=seen), [])

    def test_when_copies_of_a_batch_arrive_on_many_threads_at_once_then_each_event_is_handled_exactly_once(self):
        seen = smsgw.MemorySeenEvents()
        raw = batch(*(envelope(f"evt_{i}") for i in range(20)))
        sig = webhooks.sign(raw, SECRET)
        handled = []
        lock = threading.Lock()

        def receive():
            events = webhooks.verify_batch(raw, sig, SECRET, now=NOW, seen=seen)
            with lock:
                handled.extend(e["event_id"] for e in events)

        threads = [threading.Thread(target=receive) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(sorted(handled), sorted(f"evt_{i}" for i in range(20)))

    def test_when_the_secret_is_empty_then_the_batch_is_not_checked(self):
        raw = batch(envelope("evt_a"))
        with self.assertRaises(ValueError):
            webhooks.verify_batch(raw, webhooks.sign(raw, ""), "")


if __name__ == "__main__":
    unittest.main()
