"""HTTPS requests with the client's credentials, retried as _retry.py says."""
from __future__ import annotations

import http.client
import ipaddress
import json
import platform
import socket
import ssl
import time
import uuid
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple
from urllib.parse import urlencode, urlsplit

from ._errors import APIConnectionError, APIError, APITimeoutError
from ._retry import ONCE, Backoff, parse_retry_after, retry_delay
from ._version import VERSION

#: The largest answer read: the API's are a few kilobytes; a page of history is under 200 KB.
MAX_ANSWER_BYTES = 8 * 1024 * 1024


def _loopback(hostname: str) -> bool:
    """Whether a URL's hostname is this machine: localhost, 127.0.0.0/8 or ::1."""
    if hostname.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(hostname).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ResponseInfo:
    """What the gateway said besides the body."""

    status: int
    #: X-Request-ID: quote it when you report a problem.
    request_id: Optional[str]
    #: The Idempotency-Key the call was sent with (sends only).
    idempotency_key: Optional[str]
    #: True when the gateway answered a stored earlier answer: nothing was sent again.
    replayed: bool
    #: Attempts made, retries included.
    attempts: int
    #: (limit, remaining, reset) from the RateLimit-* headers, when present.
    rate_limit: Optional[Tuple[int, int, int]]


class Response(dict):  # type: ignore[type-arg]
    """An answer: a plain dict of the JSON body, with ``last_response`` (a ResponseInfo)."""

    last_response: ResponseInfo


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    policy: str
    idempotent: bool
    device: bool
    query: Optional[Mapping[str, Any]] = None
    body: Optional[Any] = None


class Transport:
    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        client_id: str,
        device_id: Optional[str],
        ca_file: Optional[str],
        timeout: float,
        max_retries: int,
        backoff: Backoff,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise ValueError(f"base_url must be an https URL, not {base_url!r}")
        # The key would travel in clear: plain http only to this machine (a gateway under development).
        if parts.scheme == "http" and not _loopback(parts.hostname):
            raise ValueError(
                f"base_url must be an https URL (plain http only to this machine: localhost, 127.0.0.1, [::1]), not {base_url!r}"
            )
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._api_key = api_key
        self._client_id = client_id
        self._device_id = device_id
        self._timeout = timeout
        self._max_retries = max_retries
        self._backoff = backoff
        self._tls = ssl.create_default_context(cafile=ca_file) if parts.scheme == "https" else None
        self._user_agent = f"smsgw-python/{VERSION} python/{platform.python_version()}"

    def request(
        self,
        call: Call,
        *,
        idempotency_key: Optional[str] = None,
        device_id: Optional[str] = None,
        request_id: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Response:
        path = self._prefix + call.path
        query = {k: _query_value(v) for k, v in (call.query or {}).items() if v is not None and v != ""}
        if query:
            path += "?" + urlencode(query)
        payload = None if call.body is None else json.dumps(call.body, ensure_ascii=False).encode("utf-8")
        key = (idempotency_key or str(uuid.uuid4())) if call.idempotent else None
        device = (device_id or self._device_id) if call.device else None
        headers = {
            "Accept": "application/json",
            "User-Agent": self._user_agent,
            "X-API-Key": self._api_key,
            "X-Client-ID": self._client_id,
        }
        if payload is not None:
            headers["Content-Type"] = "application/json"
        if key:
            headers["Idempotency-Key"] = key
        if device:
            headers["X-Device-ID"] = device
        if request_id:
            headers["X-Request-ID"] = request_id
        retries = self._max_retries if max_retries is None else max_retries
        per_attempt = self._timeout if timeout is None else timeout

        attempt = 0
        while True:
            attempt += 1
            try:
                status, answer_headers, raw = self._once(call.method, path, headers, payload, per_attempt)
            except APIConnectionError as err:
                delay = None
                if attempt <= retries:
                    delay = retry_delay(
                        policy=call.policy, retry=attempt - 1, network=True, connected=err.connected, settings=self._backoff
                    )
                if delay is None:
                    raise
                time.sleep(delay)
                continue
            info = ResponseInfo(
                status=status,
                request_id=answer_headers.get("x-request-id"),
                idempotency_key=key,
                replayed=answer_headers.get("idempotent-replayed") == "true",
                attempts=attempt,
                rate_limit=_rate_limit(answer_headers),
            )
            if 200 <= status < 300:
                body = _json(raw)
                if not isinstance(body, dict):
                    raise APIError(status, "UNEXPECTED_RESPONSE", "the answer is not a JSON object", request_id=info.request_id)
                result = Response(body)
                result.last_response = info
                return result
            error = _api_error(status, answer_headers, raw, info.request_id)
            delay = None
            if attempt <= retries:
                delay = retry_delay(
                    policy=call.policy,
                    retry=attempt - 1,
                    status=status,
                    code=error.code,
                    retry_after=error.retry_after,
                    settings=self._backoff,
                )
            if delay is None:
                raise error
            time.sleep(delay)

    def _once(
        self, method: str, path: str, headers: Dict[str, str], payload: Optional[bytes], timeout: float
    ) -> Tuple[int, Dict[str, str], bytes]:
        if self._scheme == "https":
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                self._host, self._port, timeout=timeout, context=self._tls
            )
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=timeout)
        try:
            try:
                conn.connect()
            except socket.timeout as err:
                raise APITimeoutError(f"no connection within {timeout} s", connected=False) from err
            except (OSError, ssl.SSLError) as err:
                raise APIConnectionError(f"no answer from the gateway: {err}", connected=False) from err
            try:
                conn.request(method, path, body=payload, headers=headers)
                res = conn.getresponse()
                raw = res.read(MAX_ANSWER_BYTES + 1)
            except socket.timeout as err:
                raise APITimeoutError(f"no answer within {timeout} s") from err
            except (OSError, http.client.HTTPException) as err:
                raise APIConnectionError(f"no answer from the gateway: {err}") from err
            if len(raw) > MAX_ANSWER_BYTES:
                raise APIConnectionError(f"the answer is larger than {MAX_ANSWER_BYTES} bytes")
            return res.status, {k.lower(): v for k, v in res.getheaders()}, raw
        finally:
            conn.close()


def _query_value(value: Any) -> str:
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def _rate_limit(headers: Mapping[str, str]) -> Optional[Tuple[int, int, int]]:
    if "ratelimit-limit" not in headers:
        return None
    try:
        return (
            int(headers["ratelimit-limit"]),
            int(headers.get("ratelimit-remaining", "0")),
            int(headers.get("ratelimit-reset", "0")),
        )
    except ValueError:
        return None


def _api_error(status: int, headers: Mapping[str, str], raw: bytes, request_id: Optional[str]) -> APIError:
    body = _json(raw)
    envelope = body.get("error") if isinstance(body, dict) else None
    envelope = envelope if isinstance(envelope, dict) else {}
    code = envelope.get("code")
    message = envelope.get("message")
    details = envelope.get("details")
    text = raw.decode("utf-8", "replace")[:200] or "no body"
    return APIError.of(
        status,
        code=code if isinstance(code, str) else "UNEXPECTED_RESPONSE",
        message=message if isinstance(message, str) else f"HTTP {status}: {text}",
        details=details if isinstance(details, list) else [],
        request_id=request_id,
        retry_after=parse_retry_after(headers.get("retry-after")),
        headers=headers,
    )
