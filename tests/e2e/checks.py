"""What the end-to-end tests (tests/e2e) share: their checks, a live-feed reader, calls to the
API, connecting the stand-ins' accounts as the web client does, and the server command they
start (through the one harness, tests/harness.py, which also has their webhook receiver), wait
for, walk through and stop.

Stdlib only, beside the test suite's harness and stand-ins: through HTTP, as a client would.
"""

import json
import os
import queue
import secrets
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple
from urllib.parse import parse_qs, urlencode, urlsplit

from tests.harness import Delivery, Receiver, ServerDidNotStart, spawn, stop, wait_until_answering
from tests.social.standins import BLUESKY_APP_PASSWORD, BLUESKY_HANDLE, DEVTO_KEY, Providers
from tests.social.telegram_standin import TELEGRAM_CHANNEL, TELEGRAM_TOKEN

__all__ = ["Delivery", "Receiver"]  # the checks' webhook receiver is the harness's

REDIRECT_URI = "https://app.example.com/oauth/callback"
STARTUP_SECONDS = 600  # `make run` installs its virtualenv first in a fresh clone
PASSWORD = "Correct-horse-7"


class Check:
    """`check(ok, what, detail)`: one printed line, `<name>: ok   what` (pytest shows them with
    a failure); the first failure is the test's: an AssertionError saying what was seen."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, ok: Any, what: str, detail: Any = "") -> None:
        if not ok:
            raise AssertionError(f"{self.name}: {what}: {detail}")
        print(f"{self.name}: ok   {what}", flush=True)


def record_of(base: str, token: str, record_id: str) -> dict[str, Any]:
    """A scheduled record as `GET /api/social/schedule/{id}` answers it."""
    status, found = call(base, "GET", f"/api/social/schedule/{record_id}", token=token)
    if status != 200:
        raise AssertionError(f"the record is read: {found}")
    return dict(found["data"])


def wait_record(
    base: str,
    token: str,
    record_id: str,
    ok: Callable[[dict[str, Any]], bool],
    timeout: float,
    *,
    every: float = 1.0,
) -> dict[str, Any]:
    """The record once `ok` holds for it, or as it is at the timeout (the caller checks)."""
    deadline = time.monotonic() + timeout
    while True:
        found = record_of(base, token, record_id)
        if ok(found) or time.monotonic() > deadline:
            return found
        time.sleep(every)


class Live(NamedTuple):
    arrived: float  # time.monotonic() when the reader had it
    id: int
    event: str
    data: Any


class Stream:
    """A live-feed stream (`GET /api/events/stream`) read by a thread: its events as they
    come, each with its arrival time."""

    def __init__(self, url: str, timeout: float = 300) -> None:
        self.response = urllib.request.urlopen(url, timeout=timeout)  # noqa: S310 (loopback)
        self.seen: list[Live] = []
        self.events: queue.Queue[Live] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        fields: dict[str, str] = {}
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\r\n")
                if line == "" and "event" in fields:
                    item = Live(time.monotonic(), int(fields["id"]), fields["event"],
                                json.loads(fields["data"]))  # fmt: skip
                    self.seen.append(item)
                    self.events.put(item)
                    fields = {}
                elif line and not line.startswith(":"):
                    name, _, value = line.partition(": ")
                    fields[name] = value
        except (OSError, ValueError, AttributeError):  # closed by close()
            pass

    def wait(self, predicate: Callable[[str, Any], bool], timeout: float) -> Live | None:
        """The next event `predicate(event, data)` accepts, within `timeout` s (None)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                item = self.events.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if predicate(item.event, item.data):
                return item

    def close(self) -> None:
        self.response.close()


def call(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    token: str = "",
    headers: Mapping[str, str] | None = None,
    raw: bytes | None = None,
) -> tuple[int, Any]:
    """One API call: its status and its JSON body (a JSON body sent, or `raw` bytes)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(f"{base}{path}", data=data, method=method)  # noqa: S310
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 (loopback)
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def sign_up(base: str, check: Check) -> dict[str, Any]:
    """A new user, signed up as the web client does (POST /api/auth/login with a new email):
    the answer's data, `{token, user, ...}`."""
    email = f"{check.name}-{secrets.token_hex(4)}@example.com"
    status, login = call(base, "POST", "/api/auth/login", {"email": email, "password": PASSWORD})
    check(status == 200, "a user signs up (POST /api/auth/login)", login)
    return dict(login["data"])


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def consent(base: str, token: str, provider: str, check: Check, **query: str) -> dict[str, str]:
    """What a browser does: open the consent page our API names, approve, and read the code
    and state the platform sends back to the redirect URI."""
    params = urlencode({"redirectUri": REDIRECT_URI, **query})
    status, page = call(
        base, "GET", f"/api/social/connect/{provider}/authorize?{params}", token=token
    )
    check(status == 200, f"{provider}: the consent page is named", page)
    try:
        urllib.request.build_opener(_NoRedirect).open(page["data"]["url"], timeout=10)
        location = ""
    except urllib.error.HTTPError as error:
        location = error.headers.get("Location", "")
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}


def connect(base: str, token: str, provider: str, providers: Providers, check: Check) -> str:
    """Connect the stand-in's account as the web client does; its id."""
    body: dict[str, Any]
    if provider == "devto":
        body = {"code": DEVTO_KEY}
    elif provider == "bluesky":
        body = {"code": BLUESKY_APP_PASSWORD, "identifier": BLUESKY_HANDLE}
    elif provider == "telegram":
        body = {"code": TELEGRAM_TOKEN, "identifier": TELEGRAM_CHANNEL}
    else:
        extra = {"instance": providers.mastodon.url} if provider == "mastodon" else {}
        back = consent(base, token, provider, check, **extra)
        body = {"code": back.get("code"), "state": back.get("state"),
                "redirectUri": REDIRECT_URI, **extra}  # fmt: skip
    status, account = call(base, "POST", "/api/social/connect", {"provider": provider, **body},
                           token)  # fmt: skip
    check(status == 200, f"{provider} connects", account)
    return str(account["data"]["id"])


def standin_settings(providers: Providers) -> dict[str, str]:
    """The environment pointing the server at the stand-ins (on loopback: the outbound guard
    lets private addresses through for them)."""
    found = {name: str(value) for name, value in providers.settings().items()}
    return {**found, "OUTBOUND_ALLOW_PRIVATE": "true"}


def against_server(
    command: list[str], port: int, env: Mapping[str, str], check: Check,
    walk: Callable[[str], None],
) -> None:  # fmt: skip
    """Start the server command (with `env` and PORT), wait until it answers, `walk` it, and
    stop it (its whole process group) whatever happened."""
    # The settings are `make run`'s own, not the test run's that pytest-django exported.
    inherited = {key: value for key, value in os.environ.items()
                 if key != "DJANGO_SETTINGS_MODULE"}  # fmt: skip
    server = spawn(command, {**inherited, **env, "PORT": str(port)})
    base = f"http://127.0.0.1:{port}"
    try:
        try:
            wait_until_answering(server, f"{base}/api/v1/health", STARTUP_SECONDS,
                                 ready=lambda status: status < 400, interval=1)  # fmt: skip
        except ServerDidNotStart as exc:
            check(False, "the server starts", f"{exc} ({server.returncode})")
        check(True, "the server starts")
        walk(base)
    finally:
        stop(server, 60, whole_group=True)
