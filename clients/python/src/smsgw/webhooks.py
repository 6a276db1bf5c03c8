"""Checking the webhook deliveries of the SMS gateway: signature, timestamp and duplicates.

>>> event = smsgw.webhooks.verify(request_body_bytes, headers["X-Webhook-Signature"], secret, seen=seen)

``verify`` raises a WebhookVerificationError for a delivery that must not be handled:

- WebhookSignatureError: X-Webhook-Signature is not the hex HMAC-SHA256 of these exact bytes under
  the secret (compared in constant time). Answer 401.
- WebhookPayloadError: the signed body is not an event. Answer 400.
- WebhookTimestampError: signed more than ``tolerance`` seconds away from now. Answer 400.
- WebhookDuplicateError: ``seen`` has the event_id already (delivery is at least once). Answer 200
  so that it is not retried, and do not handle it again.

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
from typing import Any, Callable, Dict, Literal, Optional, Protocol, TypedDict, Union

from ._errors import WebhookDuplicateError, WebhookPayloadError, WebhookSignatureError, WebhookTimestampError
from ._types import NotRequired, SmsError

# The kinds of events a delivery carries (its "event").
# otp.fraud_suspected comes only to the endpoints that name it.
EventKind = Literal[
    "sms.sent", "sms.delivered", "sms.failed", "sms.received", "device.connected", "device.disconnected", "otp.fraud_suspected"
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


class WebhookEvent(TypedDict):
    """A delivery's body, as ``verify`` returns it: look at ``event`` to know which data it has."""

    event: str
    # The same on every attempt and replay: de-duplicate on it.
    event_id: str
    # When this attempt was signed (the event's own time is in data).
    timestamp: str
    data: Union[MessageEventData, ReceivedEventData, DeviceEventData, FraudSuspectedEventData, Dict[str, Any]]


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
    their own webhook_url. ``now`` (Unix seconds) is for tests.
    """
    if not secret:
        raise ValueError("the webhook secret is empty")
    data = raw_body.encode("utf-8") if isinstance(raw_body, str) else bytes(raw_body)
    expected = sign(data, secret)
    given = signature.strip().lower().encode("utf-8") if isinstance(signature, str) else b""
    if not hmac.compare_digest(expected.encode("ascii"), given):
        raise WebhookSignatureError("the X-Webhook-Signature does not match the body")

    try:
        event = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise WebhookPayloadError("the body is not JSON") from None
    if not isinstance(event, dict):
        raise WebhookPayloadError("the body is not a JSON object")
    if not isinstance(event.get("event_id"), str) or not event["event_id"]:
        raise WebhookPayloadError("the event has no event_id")
    if not isinstance(event.get("event"), str) or not event["event"]:
        raise WebhookPayloadError("the event has no event")
    timestamp = event.get("timestamp")
    if not isinstance(timestamp, str):
        raise WebhookPayloadError("the event has no timestamp")

    signed_at = _parse_time(timestamp)
    current = time.time() if now is None else now
    if signed_at is None or abs(current - signed_at) > tolerance:
        raise WebhookTimestampError(timestamp)

    if seen is not None and not seen.add(event["event_id"]):
        raise WebhookDuplicateError(event)
    return event  # type: ignore[return-value]


def _parse_time(text: str) -> Optional[float]:
    try:
        # Python before 3.11 does not read a trailing Z.
        parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return None
    return parsed.timestamp()
