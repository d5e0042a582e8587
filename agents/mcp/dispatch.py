"""A tool's REST twin, run in process: a request built from the tool's arguments goes through
Django's whole handler (middleware, the route's authentication, API-key scope, workspace,
permissions, per-key throttle, validation, exception handler), exactly as the same request
over HTTP would, and its envelope is read back. No second copy of any rule."""

import io
import json
import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlencode

from django.core.handlers.wsgi import WSGIHandler, WSGIRequest

from accounts.authentication import IN_PROCESS_KEY
from accounts.models import ApiKey
from core.api.envelope import SERVER_ERROR_MESSAGE, error_body


@dataclass(frozen=True, slots=True)
class Origin:
    """Who called /mcp and how: the credential and the headers the inner requests carry."""

    secret: str  # the API key, sent on as `X-API-Key` ("": an OAuth grant's, by `key`)
    host: str
    scheme: str
    remote_addr: str
    request_id: str = ""
    user_agent: str = ""
    # An OAuth grant's key, authenticated by its access token at /mcp: handed to the inner
    # request in process (accounts.authentication.IN_PROCESS_KEY), as it has no secret.
    key: ApiKey | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """The REST answer: its status and its envelope."""

    status: int
    body: dict[str, Any]

    @property
    def ok(self) -> bool:
        return self.status < 400

    @property
    def data(self) -> Any:
        return self.body.get("data")


@lru_cache(maxsize=1)
def _handler() -> WSGIHandler:
    """Django's request handler, with the project's middleware loaded once per process. Its
    `get_response`, not the WSGI call: the request signals (which close the thread's
    database connection) belong to the /mcp request around it (agents.mcp.server)."""
    return WSGIHandler()


def _environ(origin: Origin, method: str, path: str, query: str, raw: bytes) -> dict[str, Any]:
    name, _, port = origin.host.partition(":")
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": name or "localhost",
        "SERVER_PORT": port or ("443" if origin.scheme == "https" else "80"),
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": origin.remote_addr,
        "HTTP_HOST": origin.host,
        "HTTP_ACCEPT": "application/json",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": origin.scheme,
        "wsgi.input": io.BytesIO(raw),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    if origin.key is not None:
        environ[IN_PROCESS_KEY] = origin.key
    else:
        environ["HTTP_X_API_KEY"] = origin.secret
    if raw:
        environ["CONTENT_TYPE"] = "application/json"
        environ["CONTENT_LENGTH"] = str(len(raw))
    if origin.request_id:
        environ["HTTP_X_REQUEST_ID"] = origin.request_id
    if origin.user_agent:
        environ["HTTP_USER_AGENT"] = origin.user_agent
    return environ


def rest_call(
    origin: Origin,
    method: str,
    path: str,
    *,
    query: dict[str, Any] | None = None,
    body: dict[str, Any] | None = None,
) -> Answer:
    """Run `method path` with this query and JSON body as the origin's caller."""
    raw = json.dumps(body).encode() if body else b""
    encoded = urlencode(
        {k: _query_value(v) for k, v in (query or {}).items() if v is not None}, doseq=True
    )
    response = _handler().get_response(WSGIRequest(_environ(origin, method, path, encoded, raw)))
    status = response.status_code
    content = getattr(response, "content", b"")  # never streamed: the API answers JSON
    try:
        parsed = json.loads(content) if content else {"success": status < 400}
    except ValueError:
        parsed = error_body(code="server_error", message=SERVER_ERROR_MESSAGE)
    if not isinstance(parsed, dict):
        parsed = {"success": status < 400, "data": parsed}
    return Answer(status, parsed)


def _query_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value
