"""Checking the webhook deliveries of the SMS gateway: signature, timestamp and duplicates.

>>> event = smsgw.webhooks.verify(request_body_bytes, headers["X-Webhook-Signature"], secret, seen=seen)
>>> events = smsgw.webhooks.verify_batch(request_body_bytes, headers["X-Webhook-Signature"], secret, seen=seen)

``verify`` raises a WebhookVerificationError for a delivery that must not be handled:

- WebhookSignatureError: X-Webhook-Signature is not the hex HMAC-SHA256 of these exact bytes under
  the secret (compared in constant time). Answer 401.
- WebhookPayloadError: the signed body is not an event. Answer 400.
- WebhookTimestampError: signed more than ``tolerance`` seconds away from now. Answer 400.
- WebhookDuplicateError: ``seen`` has the event_id already (delivery is at least once). Answer 200
  so that it is not retried, and do not handle it again.

``verify_batch`` checks a batched endpoint's delivery (a JSON array of events) the same way, and
returns the events not seen before instead of raising WebhookDuplicateError.

Pass the raw body as received, before any JSON parsing: a body parsed and serialised again is not
the one that was signed.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections import OrderedDict
from datetime import datetime
from typing import Any, Callable, Dict, List, Literal, Optional, Protocol, TypedDict, Union

from ._errors import WebhookDuplicateError, WebhookPayloadError, WebhookSignatureError, WebhookTimestampError
from ._types import NotRequired, SmsError

# The kinds of events a delivery carries (its "event").
# otp.fraud_suspected and the device.* kinds after device.disconnected come only to the endpoints that name them.
EventKind = Literal[
    "sms.sent",
    "sms.delivered",
    "sms.failed",
    "sms.received",
    "device.connected",
    "device.disconnected",
    "otp.fraud_suspected",
    "device.degraded",
    "device.recovered",
    "device.battery_low",
    "device.offline",
]

# The data of sms.sent, sms.delivered and sms.failed. An sms.failed's error code is a failure code
# (SmsErrorCode): OPTED_OUT for a message to a number on the suppression list (it never reached a
# phone).
MessageEventData = TypedDict(
    "MessageEventData",
    {
        "message_id": str,
        "status": Literal["sent", "delivered", "failed"],
        "to": str,
        "sim": Optional[int],
        "sent_at": NotRequired[str],
        "delivered_at": NotRequired[str],
        "failed_at": NotRequired[str],
        "error": NotRequired[SmsError],
        "batch_id": NotRequired[str],
        "metadata": Dict[str, Any],
    },
)

# The data of sms.received: an SMS one of the client's phones received. "id" is its rcv_ id (GET
# /v1/sms/inbox/{id}); "from" the sender as the network gave it (an E.164 number, a short code or a
# sender name); "sim" the SIM slot (1 to n), None when the phone does not say; "in_reply_to" the id
# of the message sent with "replies": True that it answers, or None.
ReceivedEventData = TypedDict(
    "ReceivedEventData",
    {
        "id": str,
        "from": str,
        "device_id": str,
        "sim": Optional[int],
        "message": str,
        "received_at": str,
        "in_reply_to": Optional[str],
    },
)

# The data of device.connected and device.disconnected.
DeviceEventData = TypedDict(
    "DeviceEventData",
    {
        "device_id": str,
        "client_id": str,
        "name": str,
        "at": str,
        "reason": str,
    },
)

# The data of otp.fraud_suspected: the pumping guard held a prefix ("scope": "prefix", "prefix" the
# number without its last 4 digits) or a country ("prefix" its calling code) of the client's OTPs;
# "hold_id" is released in the dashboard (docs/api/otp.md).
FraudSuspectedEventData = TypedDict(
    "FraudSuspectedEventData",
    {
        "hold_id": str,
        "scope": Literal["prefix", "country"],
        "prefix": str,
        "country": str,
        "requests": int,
        "verified": int,
        "conversion_rate": float,
        "window_seconds": int,
        "held_at": str,
        "held_until": str,
    },
)


# The data of device.degraded: one of the client's SIMs was quarantined ("reason" is
# "consecutive_failures" or "failure_ratio"; "recent_results" its last results by cause;
# "probe_after" when one probe message will be tried).
SimDegradedEventData = TypedDict(
    "SimDegradedEventData",
    {
        "device_id": str,
        "client_id": str,
        "name": str,
        "at": str,
        "sim": int,
        "state": Literal["quarantined"],
        "reason": Literal["consecutive_failures", "failure_ratio"],
        "recent_results": Dict[str, int],
        "probe_after": str,
    },
)

# The data of device.recovered: the SIM was released ("reason": "probe", a probe message sent, or
# "manual", released in the dashboard).
SimRecoveredEventData = TypedDict(
    "SimRecoveredEventData",
    {
        "device_id": str,
        "client_id": str,
        "name": str,
        "at": str,
        "sim": int,
        "state": Literal["healthy"],
        "reason": Literal["probe", "manual"],
        "recent_results": Dict[str, int],
    },
)

# The data of device.battery_low: a phone at 15 % or less and not charging ("battery" 0 to 100, None
# when the phone did not say), once per episode.
BatteryLowEventData = TypedDict(
    "BatteryLowEventData",
    {
        "device_id": str,
        "client_id": str,
        "name": str,
        "battery": Optional[int],
        "charging": bool,
        "at": str,
    },
)

# The data of device.offline: a phone offline longer than its account's delay ("threshold_seconds"),
# since "offline_since", once per offline spell.
OfflineEventData = TypedDict(
    "OfflineEventData",
    {
        "device_id": str,
        "client_id": str,
        "name": str,
        "offline_since": str,
        "threshold_seconds": int,
    },
)


class WebhookEvent(TypedDict):
    """A delivery's body, as ``verify`` returns it: look at ``event`` to know which data it has."""

    event: str
    # The same on every attempt and replay: de-duplicate on it.
    event_id: str
    # When this attempt was signed (the event's own time is in data).
    timestamp: str
    data: Union[
        MessageEventData,
        ReceivedEventData,
        DeviceEventData,
        FraudSuspectedEventData,
        SimDegradedEventData,
        SimRecoveredEventData,
        BatteryLowEventData,
        OfflineEventData,
        Dict[str, Any],
    ]


class SeenEvents(Protocol):
    """Remembers the event ids already handled.

    ``add`` answers True the first time it sees an id and False afterwards, in one step (with
    Redis: ``SET key 1 NX EX 86400``), so that two copies arriving at once are not both handled.
    """

    def add(self, event_id: str) -> bool: ...


class MemorySeenEvents:
    """Event ids in memory (thread-safe), each forgotten after ``ttl`` seconds (a day by default)."""

    def __init__(self, ttl: float = 86400.0, max_size: int = 100_000, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl
        self._max_size = max_size
        self._clock = clock
        self._seen: "OrderedDict[str, float]" = OrderedDict()
        self._lock = threading.Lock()

    def add(self, event_id: str) -> bool:
        with self._lock:
            now = self._clock()
            while self._seen:
                oldest, at = next(iter(self._seen.items()))
                if now - at <= self._ttl and len(self._seen) < self._max_size:
                    break
                del self._seen[oldest]
            if event_id in self._seen:
                return False
            self._seen[event_id] = now
            return True


def sign(raw_body: Union[bytes, str], secret: str) -> str:
    """The X-Webhook-Signature of ``raw_body`` under ``secret`` (to test a receiver)."""
    data = raw_body.encode("utf-8") if isinstance(raw_body, str) else raw_body
    return hmac.new(secret.encode("utf-8"), data, hashlib.sha256).hexdigest()


def verify(
    raw_body: Union[bytes, str],
    signature: Optional[str],
    secret: str,
    *,
    tolerance: float = 300.0,
    seen: Optional[SeenEvents] = None,
    now: Optional[float] = None,
) -> WebhookEvent:
    """Checks a delivery and returns its event (a dict with event, event_id, timestamp and data).

    ``secret`` is the endpoint's ``whsec_…``, or the client's signing secret for messages sent with
    their own webhook_url. ``now`` (Unix seconds) is for tests. A batched endpoint's deliveries are
    arrays: check them with ``verify_batch``.
    """
    if not secret:
        raise ValueError("the webhook secret is empty")
    event = _signed_body(raw_body, signature, secret)
    if not isinstance(event, dict):
        raise WebhookPayloadError("the body is not a JSON object")
    _check_event(event, "the event", tolerance, now)
    if seen is not None and not seen.add(event["event_id"]):
        raise WebhookDuplicateError(event)
    return event  # type: ignore[return-value]


def verify_batch(
    raw_body: Union[bytes, str],
    signature: Optional[str],
    secret: str,
    *,
    tolerance: float = 300.0,
    seen: Optional[SeenEvents] = None,
    now: Optional[float] = None,
) -> List[WebhookEvent]:
    """Checks a delivery to a batched endpoint and returns its events not seen before, in order.

    The body is a JSON array of events signed as a whole. Each event is checked as ``verify``
    checks one, and any failure refuses the whole batch (WebhookSignatureError, WebhookPayloadError,
    WebhookTimestampError), which then records nothing in ``seen``. Duplicates do not: an event
    whose event_id ``seen`` has already (an id twice in the body, from its second time) is left out
    of the list, so a batch of duplicates gives an empty list; without ``seen`` every event is
    returned. Answer 2xx to every batch that verifies: the answer is for all its events.

    A body that is one event (not an array) gives a list of it, so a receiver keeps working while
    its endpoint's batching is switched on or off. X-Webhook-Batch-Size is not signed, and not
    needed: the body has the events. The ids are recorded one by one once the whole batch has
    verified: if the store raises part way through, the ids recorded before it stay recorded.
    """
    if not secret:
        raise ValueError("the webhook secret is empty")
    body = _signed_body(raw_body, signature, secret)
    elements = body if isinstance(body, list) else [body]
    if not elements:
        raise WebhookPayloadError("the batch is empty")
    for i, element in enumerate(elements):
        name = f"event {i} of the batch"
        if not isinstance(element, dict):
            raise WebhookPayloadError(f"{name} is not a JSON object")
        _check_event(element, name, tolerance, now)
    if seen is None:
        return elements
    return [event for event in elements if seen.add(event["event_id"])]


def _signed_body(raw_body: Union[bytes, str], signature: Optional[str], secret: str) -> Any:
    """The body parsed, once its signature matches (compared in constant time)."""
    data = raw_body.encode("utf-8") if isinstance(raw_body, str) else bytes(raw_body)
    expected = sign(data, secret)
    given = signature.strip().lower().encode("utf-8") if isinstance(signature, str) else b""
    if not hmac.compare_digest(expected.encode("ascii"), given):
        raise WebhookSignatureError("the X-Webhook-Signature does not match the body")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise WebhookPayloadError("the body is not JSON") from None


def _check_event(event: Dict[str, Any], name: str, tolerance: float, now: Optional[float]) -> None:
    """An envelope's event_id, event and timestamp present, and the timestamp within the tolerance."""
    if not isinstance(event.get("event_id"), str) or not event["event_id"]:
        raise WebhookPayloadError(f"{name} has no event_id")
    if not isinstance(event.get("event"), str) or not event["event"]:
        raise WebhookPayloadError(f"{name} has no event")
    timestamp = event.get("timestamp")
    if not isinstance(timestamp, str):
        raise WebhookPayloadError(f"{name} has no timestamp")

    signed_at = _parse_time(timestamp)
    current = time.time() if now is None else now
    if signed_at is None or abs(current - signed_at) > tolerance:
        raise WebhookTimestampError(timestamp)


def _parse_time(text: str) -> Optional[float]:
    try:
        # Python before 3.11 does not read a trailing Z.
        parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return None
    return parsed.timestamp()
