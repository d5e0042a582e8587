"""Local stand-ins of the providers' APIs, behaving like the real ones (providers.md): the
requests they accept, their answers and their error bodies. A test points the settings' base
URLs at them and reads what they received."""

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

DEVTO_KEY = "devto-key-0123456789"
BLUESKY_HANDLE = "ada.bsky.social"
BLUESKY_APP_PASSWORD = "abcd-efgh-ijkl-mnop"
BLUESKY_DID = "did:plc:ada123"


@dataclass
class StandIn:
    url: str = ""
    mode: str = "ok"  # ok, down (503), busy (429 with Retry-After)
    requests: list[dict[str, Any]] = field(default_factory=list)
    deleted_sessions: list[str] = field(default_factory=list)


def _handler(state: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            raw = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _handle(self) -> None:
            parsed = urlparse(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}") if length else {}
            state.requests.append(
                {"method": self.command, "path": parsed.path, "headers": dict(self.headers),
                 "body": body, "query": parse_qs(parsed.query)}
            )  # fmt: skip
            if state.mode == "down":
                return self._send(503, {"error": "ServiceUnavailable"})
            if state.mode == "busy":
                return self._send(429, {"error": "RateLimitExceeded"}, {"Retry-After": "30"})
            route = (self.command, parsed.path)
            if route == ("GET", "/devto/api/users/me"):
                if self.headers.get("api-key") != DEVTO_KEY:
                    return self._send(401, {"error": "unauthorized", "status": 401})
                return self._send(
                    200,
                    {"id": 4242, "username": "ada", "name": "Ada Lovelace",
                     "profile_image": "https://media.dev.to/ada.png"},
                )  # fmt: skip
            if route == ("POST", "/bsky/xrpc/com.atproto.server.createSession"):
                if (body.get("identifier"), body.get("password")) != (
                    BLUESKY_HANDLE,
                    BLUESKY_APP_PASSWORD,
                ):
                    return self._send(
                        401,
                        {"error": "AuthenticationRequired",
                         "message": "Invalid identifier or password"},
                    )  # fmt: skip
                return self._send(
                    200,
                    {"did": BLUESKY_DID, "handle": BLUESKY_HANDLE, "accessJwt": "access-jwt-1",
                     "refreshJwt": "refresh-jwt-1", "email": "ada@example.com"},
                )  # fmt: skip
            if route == ("GET", "/bsky/xrpc/app.bsky.actor.getProfile"):
                if self.headers.get("Authorization") != "Bearer access-jwt-1":
                    return self._send(400, {"error": "ExpiredToken"})
                return self._send(
                    200,
                    {"did": BLUESKY_DID, "handle": BLUESKY_HANDLE, "displayName": "Ada",
                     "avatar": "https://cdn.bsky.app/ada.jpg"},
                )  # fmt: skip
            if route == ("POST", "/bsky/xrpc/com.atproto.server.deleteSession"):
                state.deleted_sessions.append(self.headers.get("Authorization", ""))
                return self._send(200, {})
            return self._send(404, {"error": "NotFound"})

        do_GET = do_POST = _handle

    return Handler


@contextmanager
def provider_standin() -> Iterator[StandIn]:
    state = StandIn()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
