"""The SMS gateway's API from Python, with the standard library only.

>>> import smsgw
>>> sms = smsgw.Client(api_key="sgw_live_…", client_id="client_…", base_url="https://sms.example.com")
>>> sms.messages.send("+33612345678", "Bonjour")["message_id"]
'msg_…'
"""
from . import webhooks
from ._client import Auth, Client, Inbox, Messages, OptOuts, Otp, last_response
from ._errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
    SmsGatewayError,
    WebhookDuplicateError,
    WebhookPayloadError,
    WebhookSignatureError,
    WebhookTimestampError,
    WebhookVerificationError,
)
from ._retry import Backoff
from ._transport import ResponseInfo
from ._version import VERSION
from .webhooks import MemorySeenEvents

__version__ = VERSION

__all__ = [
    "Client",
    "Messages",
    "Otp",
    "Auth",
    "Inbox",
    "OptOuts",
    "Backoff",
    "ResponseInfo",
    "last_response",
    "webhooks",
    "MemorySeenEvents",
    "SmsGatewayError",
    "APIError",
    "AuthenticationError",
    "InvalidRequestError",
    "NotFoundError",
    "ConflictError",
    "RateLimitError",
    "ServiceUnavailableError",
    "ServerError",
    "APIConnectionError",
    "APITimeoutError",
    "WebhookVerificationError",
    "WebhookSignatureError",
    "WebhookPayloadError",
    "WebhookTimestampError",
    "WebhookDuplicateError",
    "VERSION",
]

# End-to-end encrypted texts (docs/api/encryption.md): smsgw.envelope.seal / open_envelope.
from . import envelope  # noqa: E402
