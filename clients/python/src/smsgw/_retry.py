"""When a request is tried again, and how long to wait: the rules of the TypeScript library.

Two kinds of request:

- ``safe``: doing it twice cannot do anything twice. Reads, cancelling, and the four sends, which
  always carry an Idempotency-Key that every retry reuses. Retried after a network error or a
  timeout (the answer was lost), a 429 and a 503.
- ``once``: verify-otp. Retried only when the gateway cannot have counted the first attempt: a
  connection that never opened, or a 429.

Nothing else is retried, except 409 IDEMPOTENCY_IN_PROGRESS for a send: its own earlier attempt,
whose answer was lost, is still running, and waiting for it is how its answer is obtained.
"""
from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

SAFE = "safe"
ONCE = "once"


@dataclass(frozen=True)
class Backoff:
    #: Upper bound of the first delay, in seconds; each retry doubles it.
    base: float = 0.5
    #: No delay is longer than this, Retry-After aside.
    cap: float = 8.0
    #: A Retry-After longer than this is not waited for: the error is raised with its retry_after.
    max_retry_after: float = 60.0
    random: Callable[[], float] = field(default=random.random)


def retry_delay(
    *,
    policy: str,
    retry: int,
    network: bool = False,
    connected: bool = True,
    status: int = 0,
    code: Optional[str] = None,
    retry_after: Optional[float] = None,
    settings: Backoff = Backoff(),
) -> Optional[float]:
    """Seconds to wait before retry number ``retry`` (0 for the first), or None when final.

    Exponential backoff with full jitter (uniform between 0 and the bound); Retry-After wins.
    """

    def backoff() -> float:
        return settings.random() * min(settings.cap, settings.base * 2**retry)

    if network:
        return backoff() if policy == SAFE or not connected else None
    retryable = (
        status == 429
        or (policy == SAFE and status == 503)
        or (policy == SAFE and status == 409 and code == "IDEMPOTENCY_IN_PROGRESS")
    )
    if not retryable:
        return None
    if retry_after is None:
        return backoff()
    return None if retry_after > settings.max_retry_after else retry_after


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Retry-After in seconds: a number of seconds, or an HTTP date; None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        at = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if at is None:
        return None
    return max(0.0, at.timestamp() - (time.time() if now is None else now))
