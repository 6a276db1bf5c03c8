# Over 300 lines: the client object and its groups of calls (messages, otp, inbox, opt_outs, auth),
# each a thin method over one request path, as the TypeScript and Go libraries lay them out.
"""The client object and its groups of calls: messages, otp, inbox, opt_outs and auth."""
from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Union, cast
from urllib.parse import quote

from ._retry import ONCE, SAFE, Backoff
from ._transport import Call, Response, ResponseInfo, Transport
from ._types import (
    OPERATIONS,
    AuthTestResponse,
    BatchResponse,
    CancelResponse,
    HistoryItem,
    HistoryResponse,
    InboxResponse,
    Message,
    MessageStatus,
    OptOut,
    OptOutResponse,
    OptOutsResponse,
    OtpStatsResponse,
    PersonalizedMessage,
    ReceivedSms,
    ReceivedSmsResponse,
    RemoveOptOutResponse,
    SendOtpResponse,
    SendResponse,
    StatsResponse,
    VerifyOtpResponse,
)

DateLike = Union[str, _dt.date, _dt.datetime]


def _call(operation_id: str, *, message_id: Optional[str] = None, param: Optional[str] = None, **kwargs: Any) -> Call:
    """The call of an operation; ``message_id`` or ``param`` (``{id}``, ``{phone_number}``) is one escaped segment."""
    op = OPERATIONS[operation_id]
    path = op.path if message_id is None else op.path.replace("{message_id}", quote(message_id, safe=""))
    if param is not None:
        # quote(safe="") writes the + of a number as %2B.
        path = re.sub(r"\{[a-z_]+\}", lambda _: quote(param, safe=""), path, count=1)
    return Call(
        method=op.method,
        path=path,
        # Only verify-otp may count twice when repeated (_retry.py).
        policy=ONCE if operation_id == "verifyOtp" else SAFE,
        idempotent=op.idempotency_key,
        device=op.device_id,
        **kwargs,
    )


def _body(**fields: Any) -> Dict[str, Any]:
    """The JSON body: the fields given (None is absent), datetimes as ISO 8601."""
    return {k: _time(v) if isinstance(v, _dt.datetime) else v for k, v in fields.items() if v is not None}


def _time(value: _dt.datetime) -> str:
    if value.tzinfo is None:
        raise ValueError("give a timezone-aware datetime (datetime.now(timezone.utc), say): a naive one is ambiguous")
    return value.isoformat()


def _date(value: Optional[DateLike]) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, _dt.datetime):
        return _time(value)
    return value.isoformat()


class Messages:
    """Sending, following and cancelling messages."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def send(
        self,
        to: str,
        message: str,
        *,
        priority: Optional[int] = None,
        webhook_url: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        scheduled_at: Optional[Union[str, _dt.datetime]] = None,
        ttl: Optional[int] = None,
        failover: Optional[bool] = None,
        sim: Optional[int] = None,
        replies: Optional[bool] = None,
        encrypted: Optional[bool] = None,
        **options: Any,
    ) -> SendResponse:
        """Queues one SMS (POST /v1/sms/send); ``scheduled_at`` sends it later.

        ``ttl`` is the seconds it may wait for a phone (60 to 604800); ``failover=True`` lets a
        message sent with a device id move to another phone; ``sim`` is the SIM slot (1 to 8);
        ``replies=True`` (with a ``webhook_url``) posts the recipient's replies there;
        ``encrypted=True`` says ``message`` is an envelope (``smsgw.envelope.seal``, docs/api/encryption.md).
        """
        body = _body(
            to=to,
            message=message,
            priority=priority,
            webhook_url=webhook_url,
            metadata=metadata,
            scheduled_at=scheduled_at,
            ttl=ttl,
            failover=failover,
            sim=sim,
            replies=replies,
            encrypted=encrypted,
        )
        return cast(SendResponse, self._t.request(_call("sendSms", body=body), **options))

    def send_bulk(
        self,
        recipients: Sequence[str],
        message: str,
        *,
        priority: Optional[int] = None,
        webhook_url: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        ttl: Optional[int] = None,
        failover: Optional[bool] = None,
        sim: Optional[int] = None,
        replies: Optional[bool] = None,
        encrypted: Optional[bool] = None,
        **options: Any,
    ) -> BatchResponse:
        """One text to at most 100 recipients, as one batch (POST /v1/sms/send-bulk)."""
        body = _body(
            recipients=list(recipients),
            message=message,
            priority=priority,
            webhook_url=webhook_url,
            metadata=metadata,
            ttl=ttl,
            failover=failover,
            sim=sim,
            replies=replies,
            encrypted=encrypted,
        )
        return cast(BatchResponse, self._t.request(_call("sendBulkSms", body=body), **options))

    def send_personalized(
        self,
        messages: Sequence[PersonalizedMessage],
        *,
        priority: Optional[int] = None,
        webhook_url: Optional[str] = None,
        ttl: Optional[int] = None,
        failover: Optional[bool] = None,
        sim: Optional[int] = None,
        replies: Optional[bool] = None,
        encrypted: Optional[bool] = None,
        **options: Any,
    ) -> BatchResponse:
        """At most 100 messages ({to, message, metadata?, ttl?}), as one batch (POST /v1/sms/send-bulk-personalized).

        ``ttl`` is that of the messages that give none.
        """
        body = _body(
            messages=[dict(m) for m in messages],
            priority=priority,
            webhook_url=webhook_url,
            ttl=ttl,
            failover=failover,
            sim=sim,
            replies=replies,
            encrypted=encrypted,
        )
        return cast(BatchResponse, self._t.request(_call("sendBulkPersonalizedSms", body=body), **options))

    def get(self, message_id: str, **options: Any) -> Message:
        """One message's status, text, timestamps, metadata and error (GET /v1/sms/status/:id)."""
        return cast(Message, self._t.request(_call("getMessageStatus", message_id=message_id), **options))

    def cancel(self, message_id: str, **options: Any) -> CancelResponse:
        """Cancels a message still queued (DELETE /v1/sms/:id); ConflictError otherwise."""
        return cast(CancelResponse, self._t.request(_call("cancelMessage", message_id=message_id), **options))

    def history(
        self,
        *,
        page: Optional[int] = None,
        limit: Optional[int] = None,
        status: Optional[MessageStatus] = None,
        to: Optional[str] = None,
        from_date: Optional[DateLike] = None,
        to_date: Optional[DateLike] = None,
        device_id: Optional[str] = None,
        search: Optional[str] = None,
        **options: Any,
    ) -> HistoryResponse:
        """One page of the history, newest first (GET /v1/sms/history)."""
        query = {
            "page": page,
            "limit": limit,
            "status": status,
            "to": to,
            "from_date": _date(from_date),
            "to_date": _date(to_date),
            "device_id": device_id,
            "search": search,
        }
        return cast(HistoryResponse, self._t.request(_call("getHistory", query=query), **options))

    def list(
        self,
        *,
        limit: int = 100,
        page: int = 1,
        status: Optional[MessageStatus] = None,
        to: Optional[str] = None,
        from_date: Optional[DateLike] = None,
        to_date: Optional[DateLike] = None,
        device_id: Optional[str] = None,
        search: Optional[str] = None,
        **options: Any,
    ) -> Iterator[HistoryItem]:
        """Every matching message of the history, newest first, fetching pages as it goes.

        Messages sent while it runs do not shift the pages under it: after the first page, the
        period ends at the newest message that page saw.
        """
        return _pages(
            lambda p, until: self.history(
                page=p,
                limit=limit,
                status=status,
                to=to,
                from_date=from_date,
                to_date=until,
                device_id=device_id,
                search=search,
                **options,
            ),
            page,
            to_date,
            "created_at",
        )

    def stats(
        self,
        *,
        from_date: Optional[DateLike] = None,
        to_date: Optional[DateLike] = None,
        device_id: Optional[str] = None,
        **options: Any,
    ) -> StatsResponse:
        """Counts and delivery rate over a period, by day (GET /v1/sms/stats)."""
        query = {"from_date": _date(from_date), "to_date": _date(to_date), "device_id": device_id}
        return cast(StatsResponse, self._t.request(_call("getStats", query=query), **options))


class Otp:
    """One-time passwords: the gateway makes the code, sends it, and checks it."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def send(
        self,
        to: str,
        *,
        length: Optional[int] = None,
        expiry: Optional[int] = None,
        template: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        failover: Optional[bool] = None,
        sim: Optional[int] = None,
        end_user_key: Optional[str] = None,
        fallback_after: Optional[int] = None,
        **options: Any,
    ) -> SendOtpResponse:
        """Sends a code by SMS (POST /v1/sms/send-otp); keep ``otp_id``, the code is never returned.

        ``end_user_key`` (your end user's IP address or account id) is limited on its own;
        ``fallback_after`` (seconds) sends a code not yet delivered once more through another phone.
        """
        body = _body(
            to=to,
            length=length,
            expiry=expiry,
            template=template,
            metadata=metadata,
            failover=failover,
            sim=sim,
            end_user_key=end_user_key,
            fallback_after=fallback_after,
        )
        return cast(SendOtpResponse, self._t.request(_call("sendOtp", body=body), **options))

    def verify(self, otp_id: str, code: str, **options: Any) -> VerifyOtpResponse:
        """Checks a code: ``valid`` True, or False with ``attempts_remaining`` (POST /v1/sms/verify-otp).

        Not retried once the gateway may have counted it.
        """
        return cast(VerifyOtpResponse, self._t.request(_call("verifyOtp", body={"otp_id": otp_id, "code": code}), **options))

    def stats(
        self,
        *,
        from_date: Optional[DateLike] = None,
        to_date: Optional[DateLike] = None,
        device_id: Optional[str] = None,
        **options: Any,
    ) -> OtpStatsResponse:
        """Codes sent, verified, expired, wrong codes and the conversion rate, by day and country (GET /v1/otp/stats)."""
        query = {"from_date": _date(from_date), "to_date": _date(to_date), "device_id": device_id}
        return cast(OtpStatsResponse, self._t.request(_call("getOtpStats", query=query), **options))


class Inbox:
    """The SMS the client's phones received (docs/api/receiving.md)."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def page(
        self,
        *,
        page: Optional[int] = None,
        limit: Optional[int] = None,
        from_: Optional[str] = None,
        from_date: Optional[DateLike] = None,
        to_date: Optional[DateLike] = None,
        device_id: Optional[str] = None,
        search: Optional[str] = None,
        **options: Any,
    ) -> InboxResponse:
        """One page of the received SMS, newest first by ``received_at`` (GET /v1/sms/inbox).

        ``from_`` is the query's ``from`` (one sender: a number with its +, a short code or a name).
        """
        query = {
            "page": page,
            "limit": limit,
            "from": from_,
            "from_date": _date(from_date),
            "to_date": _date(to_date),
            "device_id": device_id,
            "search": search,
        }
        return cast(InboxResponse, self._t.request(_call("listInbox", query=query), **options))

    def list(
        self,
        *,
        limit: int = 100,
        page: int = 1,
        from_: Optional[str] = None,
        from_date: Optional[DateLike] = None,
        to_date: Optional[DateLike] = None,
        device_id: Optional[str] = None,
        search: Optional[str] = None,
        **options: Any,
    ) -> Iterator[ReceivedSms]:
        """Every matching received SMS, newest first, fetching pages as it goes.

        SMS received while it runs do not shift the pages under it: after the first page, the
        period ends at the newest SMS that page saw.
        """
        return _pages(
            lambda p, until: self.page(
                page=p,
                limit=limit,
                from_=from_,
                from_date=from_date,
                to_date=until,
                device_id=device_id,
                search=search,
                **options,
            ),
            page,
            to_date,
            "received_at",
        )

    def get(self, received_id: str, **options: Any) -> ReceivedSmsResponse:
        """One received SMS (GET /v1/sms/inbox/:id); NotFoundError (RECEIVED_NOT_FOUND) otherwise."""
        return cast(ReceivedSmsResponse, self._t.request(_call("getReceived", param=received_id), **options))


class OptOuts:
    """The suppression list of the key's mode: numbers that receive nothing (docs/api/opt-outs.md)."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def page(self, *, page: Optional[int] = None, limit: Optional[int] = None, **options: Any) -> OptOutsResponse:
        """One page of the list, newest first (GET /v1/opt-outs)."""
        return cast(OptOutsResponse, self._t.request(_call("listOptOuts", query={"page": page, "limit": limit}), **options))

    def list(self, *, limit: int = 100, page: int = 1, **options: Any) -> Iterator[OptOut]:
        """Every number on the list, newest first, fetching pages as it goes.

        A number added while it runs shifts the later pages by one: an entry may come twice.
        """
        return _pages(lambda p, _: self.page(page=p, limit=limit, **options), page, None, None)

    def add(self, phone_number: str, **options: Any) -> OptOutResponse:
        """Puts a number on the list (POST /v1/opt-outs); one already there answers its first entry."""
        return cast(OptOutResponse, self._t.request(_call("addOptOut", body={"phone_number": phone_number}), **options))

    def remove(self, phone_number: str, **options: Any) -> RemoveOptOutResponse:
        """Takes a number off the list (DELETE /v1/opt-outs/:phone_number, its + as %2B).

        NotFoundError (OPT_OUT_NOT_FOUND) when it is not on the list.
        """
        return cast(RemoveOptOutResponse, self._t.request(_call("removeOptOut", param=phone_number), **options))


class Auth:
    """The credentials check."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def test(self, **options: Any) -> AuthTestResponse:
        """Checks the key, the client and the device (GET /v1/auth/test); answers the key's mode."""
        return cast(AuthTestResponse, self._t.request(_call("testAuth"), **options))


class Client:
    """The SMS gateway's API. One client holds the credentials; make it once and share it.

    >>> sms = smsgw.Client(api_key="sgw_live_…", client_id="client_…", base_url="https://sms.example.com")
    >>> sms.messages.send("+33612345678", "Bonjour")["message_id"]

    Every call also takes ``idempotency_key`` (sends), ``device_id`` (sends and auth.test),
    ``request_id``, ``timeout`` and ``max_retries``.
    """

    def __init__(
        self,
        api_key: str,
        client_id: str,
        base_url: str,
        *,
        device_id: Optional[str] = None,
        ca_file: Optional[str] = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        backoff: Optional[Backoff] = None,
    ) -> None:
        if not api_key:
            raise ValueError("api_key is required")
        if not client_id:
            raise ValueError("client_id is required")
        if not base_url:
            raise ValueError("base_url is required")
        self._transport = Transport(
            base_url=base_url,
            api_key=api_key,
            client_id=client_id,
            device_id=device_id,
            ca_file=ca_file,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff or Backoff(),
        )
        self.messages = Messages(self._transport)
        self.otp = Otp(self._transport)
        self.auth = Auth(self._transport)
        self.inbox = Inbox(self._transport)
        self.opt_outs = OptOuts(self._transport)

    def __repr__(self) -> str:
        # The key stays out of logs and tracebacks.
        return f"smsgw.Client(client_id={self._transport._client_id!r})"


def _pages(
    fetch: Callable[[int, Optional[DateLike]], Mapping[str, Any]],
    page: int,
    to_date: Optional[DateLike],
    pin: Optional[str],
) -> Iterator[Any]:
    """The items of every page `fetch(page, to_date)` answers, from `page` on, until the last or an
    empty one. With `pin` (a date field of the items), the period then ends at the newest item of
    the first page, so that items arriving meanwhile do not shift the pages."""
    first = page
    while True:
        answer = fetch(page, to_date)
        data = answer["data"]
        yield from data
        pagination = answer["pagination"]
        if not data or pagination["current_page"] >= pagination["total_pages"]:
            return
        if pin is not None and page == first:
            to_date = data[0][pin]
        page += 1


def last_response(answer: Union[Mapping[str, Any], List[Any]]) -> ResponseInfo:
    """The ResponseInfo of an answer (the same as ``answer.last_response``, typed)."""
    if not isinstance(answer, Response):
        raise TypeError("not an answer of smsgw.Client")
    return answer.last_response
