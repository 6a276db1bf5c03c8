"""The exceptions of the library: one base class, and one class per kind of failure."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional


class SmsGatewayError(Exception):
    """Every error this library raises; ``except smsgw.SmsGatewayError`` catches them all."""


class APIError(SmsGatewayError):
    """The gateway answered with an error envelope.

    ``code`` is the envelope's stable code (write your handling against it), ``request_id`` the
    answer's X-Request-ID (quote it when you report a problem), ``details`` the failing fields.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: Optional[List[Dict[str, Any]]] = None,
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        super().__init__(f"{code}: {message}" + (f" (request {request_id})" if request_id else ""))
        self.status = status
        self.code = code
        self.message = message
        self.details: List[Dict[str, Any]] = list(details or [])
        self.request_id = request_id
        #: Seconds to wait before trying again, from Retry-After (429, 503, 409 IDEMPOTENCY_IN_PROGRESS).
        self.retry_after = retry_after
        self.headers: Dict[str, str] = dict(headers or {})

    @staticmethod
    def of(status: int, **kwargs: Any) -> "APIError":
        """The error class of an HTTP status."""
        if status in (401, 403):
            cls: type = AuthenticationError
        elif status == 404:
            cls = NotFoundError
        elif status in (409, 410):
            cls = ConflictError
        elif status == 429:
            cls = RateLimitError
        elif status == 503:
            cls = ServiceUnavailableError
        elif status >= 500:
            cls = ServerError
        elif status >= 400:
            cls = InvalidRequestError
        else:
            cls = APIError
        return cls(status, **kwargs)


class AuthenticationError(APIError):
    """401 or 403: a wrong, revoked or expired key, an unknown client, plain HTTP, a live key of an account whose address is not confirmed yet (ACCOUNT_NOT_VERIFIED), a key used outside its scopes (SCOPE_NOT_ALLOWED) or address ranges (IP_NOT_ALLOWED)."""


class InvalidRequestError(APIError):
    """400, 405, 413, 422, 431: the request breaks a rule; ``details`` names each failing field."""


class NotFoundError(APIError):
    """404: an unknown message, OTP or device."""


class ConflictError(APIError):
    """409 or 410: the resource's state refuses it (not cancellable, OTP already verified, expired)."""


class RateLimitError(APIError):
    """429: too many requests (or OTPs for a number), a key past its daily quota (QUOTA_EXCEEDED); ``retry_after`` says when to try again."""


class ServiceUnavailableError(APIError):
    """503: no phone online, or the gateway could not reach a service."""


class ServerError(APIError):
    """Another 5xx: a bug of the gateway; quote ``request_id``."""


class APIConnectionError(SmsGatewayError):
    """No answer: the connection failed, was reset, or the answer could not be read.

    ``connected`` is False when the connection never opened (the gateway cannot have seen the
    request); the socket error is ``__cause__``.
    """

    def __init__(self, message: str, connected: bool = True) -> None:
        super().__init__(message)
        self.connected = connected


class APITimeoutError(APIConnectionError):
    """No answer within the timeout."""


class WebhookVerificationError(SmsGatewayError):
    """A webhook delivery that must not be handled; ``reason`` is signature, payload, timestamp or duplicate."""

    reason = "invalid"


class WebhookSignatureError(WebhookVerificationError):
    """X-Webhook-Signature does not match the raw body under the secret: answer 401."""

    reason = "signature"


class WebhookPayloadError(WebhookVerificationError):
    """The signed body is not an event (no JSON, no event_id or timestamp): answer 400."""

    reason = "payload"


class WebhookTimestampError(WebhookVerificationError):
    """The delivery was signed too long ago (a captured request replayed later): answer 400."""

    reason = "timestamp"

    def __init__(self, timestamp: Any) -> None:
        super().__init__(f"the delivery was signed at {timestamp}, outside the tolerance")
        self.timestamp = timestamp


class WebhookDuplicateError(WebhookVerificationError):
    """The event was handled already (delivery is at least once): answer 2xx, do not handle it again.

    ``event`` is the verified event.
    """

    reason = "duplicate"

    def __init__(self, event: Dict[str, Any]) -> None:
        super().__init__(f"event {event.get('event_id')} was already received")
        self.event = event
