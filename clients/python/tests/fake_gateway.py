"""A stand-in for the gateway on port 0 that records every request and answers from a script."""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Union
from urllib.parse import parse_qs, urlsplit

Reply = Union[Dict[str, Any], str]  # {"status", "body", "headers"} or "reset" or "hang"


@dataclass
class Recorded:
    method: str
    path: str
    query: Dict[str, str]
    headers: Dict[str, str]
    body: Any


def envelope(code: str, message: str = "refusé", details: Optional[List[Dict[str, Any]]] = None) -> Dict[str, Any]:
    error: Dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        error["details"] = details
    return {"success": False, "error": error}


class FakeGateway:
    def __init__(self, tls_context: Any = None) -> None:
        self.requests: List[Recorded] = []
        self.replies: List[Union[Reply, Callable[[Recorded], Reply]]] = []
        self.fallback: Union[Reply, Callable[[Recorded], Reply]] = {"status": 200, "body": {"success": True}}
        self._release = threading.Event()
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                recorded = Recorded(
                    method=self.command,
                    path=parts.path,
                    query={k: v[0] for k, v in parse_qs(parts.query).items()},
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=json.loads(raw) if raw else None,
                )
                gateway.requests.append(recorded)
                nxt = gateway.replies.pop(0) if gateway.replies else gateway.fallback
                reply = nxt(recorded) if callable(nxt) else nxt
                if reply == "reset":
                    self.close_connection = True
                    self.connection.close()
                    return
                if reply == "hang":
                    gateway._release.wait(10)
                    self.close_connection = True
                    return
                assert isinstance(reply, dict)
                body = reply.get("body")
                data = b"" if body is None else (body.encode() if isinstance(body, str) else json.dumps(body).encode())
                self.send_response(reply["status"])
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("X-Request-ID", f"req-{len(gateway.requests)}")
                for k, v in (reply.get("headers") or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls_context is not None:
            self.server.socket = tls_context.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        scheme = "https" if hasattr(self.server.socket, "context") else "http"
        return f"{scheme}://{host}:{port}"

    def reply(self, *replies: Union[Reply, Callable[[Recorded], Reply]]) -> "FakeGateway":
        self.replies.extend(replies)
        return self

    def stop(self) -> None:
        self._release.set()
        self.server.shutdown()
        self.server.server_close()
