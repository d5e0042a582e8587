"""The live feed (social.md section 8): tickets, the stream's events from other processes,
isolation between users, Last-Event-ID resume, heartbeats, the per-user limit and a clean
close on shutdown, against the real server (two processes), embedded and with Redis."""

import http.client
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests

from tests.servers import ROOT, api_server, migrate, server_env

pytestmark = pytest.mark.server

MODES = ["embedded", "redis"]


@dataclass
class Event:
    id: int | None
    kind: str
    data: Any


class Reader:
    """An open stream, read by a thread of its own line by line, so that the test waits on
    a queue with a deadline (a socket read that timed out cannot be resumed)."""

    def __init__(self, connection: http.client.HTTPConnection, response: Any) -> None:
        self.connection, self.response = connection, response
        self.comments: list[str] = []
        self.ended = False
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while raw := self.response.readline():
                self.lines.put(raw.decode().rstrip("\r\n"))
        except (OSError, ValueError, AttributeError, http.client.HTTPException):  # closed
            pass
        self.lines.put(None)

    def next_event(self, timeout: float) -> Event | None:
        """The next event within `timeout` seconds (comments are kept aside), or None."""
        deadline = time.monotonic() + timeout
        fields: dict[str, str] = {}
        while not self.ended:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if line is None:
                self.ended = True
            elif line.startswith(":"):
                self.comments.append(line)
            elif line == "":
                if "event" in fields:
                    return Event(int(fields["id"]) if "id" in fields else None, fields["event"],
                                 json.loads(fields["data"]))  # fmt: skip
                fields = {}
            else:
                name, _, value = line.partition(": ")
                fields[name] = value
        return None

    def events_until(self, kinds: set[str], timeout: float) -> list[Event]:
        seen: list[Event] = []
        deadline = time.monotonic() + timeout
        while not kinds <= {event.kind for event in seen} and time.monotonic() < deadline:
            event = self.next_event(deadline - time.monotonic())
            if event is not None:
                seen.append(event)
        return seen

    def close(self) -> None:
        self.connection.close()


def open_stream(base: str, *, token: str = "", query: str = "", last: int | None = None) -> Any:
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
    headers = {"Accept": "text/event-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if last is not None:
        headers["Last-Event-ID"] = str(last)
    connection.request("GET", f"/api/events/stream{query}", headers=headers)
    response = connection.getresponse()
    if response.status != 200:
        body = json.loads(response.read())
        connection.close()
        return response.status, body
    return Reader(connection, response)


def sign_in(base: str, email: str) -> str:
    credentials = {"email": email, "password": "Correct-horse-7"}
    answer = requests.post(f"{base}/api/auth/login", json=credentials, timeout=30)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["data"]["token"])


def manage(env: dict[str, str], *args: str) -> None:
    """An operator's command: another process than the server's."""
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True,
                   timeout=60, capture_output=True)  # fmt: skip


@contextmanager
def feed_server(
    tmp_path: Any, mode: str, *, workers: int = 2, **extra: str
) -> Iterator[tuple[str, dict[str, str]]]:
    settings: dict[str, str] = {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "LIVEFEED_HEARTBEAT_SECONDS": "1",
        "LIVEFEED_POLL_SECONDS": "0.2",
        **extra,
    }
    if mode == "redis":
        if not os.environ.get("REDIS_URL"):
            pytest.skip("needs Redis (REDIS_URL); CI runs it")
        settings["REDIS_URL"] = os.environ["REDIS_URL"]
    env = server_env(**settings)
    migrate(env)
    with api_server(env, workers=workers) as base:
        yield base, env


@pytest.mark.parametrize("mode", MODES)
def test_events_from_other_processes_reach_their_user_only_and_resume(tmp_path, mode):
    with feed_server(tmp_path, mode) as (base, env):
        ada, bob = sign_in(base, "ada@example.com"), sign_in(base, "bob@example.com")
        ticket = requests.post(f"{base}/api/events/ticket",
                               headers={"Authorization": f"Bearer {ada}"}, timeout=30)  # fmt: skip
        assert ticket.status_code == 200, ticket.text
        code = ticket.json()["data"]["ticket"]
        assert ticket.json()["data"]["expiresAt"]

        ada_stream = open_stream(base, query=f"?ticket={code}")
        assert isinstance(ada_stream, Reader)
        assert ada_stream.response.getheader("Content-Type", "").startswith("text/event-stream")
        assert ada_stream.response.getheader("X-Accel-Buffering") == "no"
        assert ada_stream.response.getheader("Content-Encoding") in (None, "identity")
        bob_stream = open_stream(base, token=bob)
        assert isinstance(bob_stream, Reader)
        time.sleep(0.5)  # both processes' listeners are up

        # A credit grant and a system alert, each from an operator's command (another
        # process): ada's stream gets both, with ids; bob's gets nothing of hers.
        manage(env, "grant_credits", "--email", "ada@example.com", "--credits", "7",
               "--reason", "live feed test")  # fmt: skip
        manage(env, "send_system_alert", "--email", "ada@example.com", "--title", "Hello",
               "--message", "Live")  # fmt: skip
        events = ada_stream.events_until({"credits", "notification"}, timeout=5)
        by_kind = {event.kind: event for event in events}
        assert set(by_kind) >= {"credits", "notification"}, events
        assert isinstance(by_kind["credits"].data["creditsRemaining"], int)
        assert by_kind["notification"].data["title"] == "Hello"
        assert by_kind["notification"].data["type"] == "system_alert"
        assert all(event.id for event in events)
        assert bob_stream.next_event(timeout=1.5) is None
        assert bob_stream.comments, "a heartbeat comment every LIVEFEED_HEARTBEAT_SECONDS"

        # Missed while away: a reconnect with Last-Event-ID gets it, and nothing twice.
        last = max(event.id or 0 for event in events)
        ada_stream.close()
        manage(env, "send_system_alert", "--email", "ada@example.com", "--title", "Missed",
               "--message", "While away")  # fmt: skip
        resumed = open_stream(base, token=ada, last=last)
        assert isinstance(resumed, Reader)
        missed = resumed.events_until({"notification"}, timeout=5)
        assert [event.data["title"] for event in missed if event.kind == "notification"] == [
            "Missed"
        ]
        assert all((event.id or 0) > last for event in missed)
        resumed.close()
        bob_stream.close()

        # A used ticket, a made-up one, a bad token, nothing: 401 in the envelope.
        status, body = open_stream(base, query=f"?ticket={code}")
        assert (status, body["error"]["code"]) == (401, "invalid_ticket")
        status, body = open_stream(base, query="?ticket=evt_made-up")
        assert (status, body["error"]["code"]) == (401, "invalid_ticket")
        status, body = open_stream(base, token="not-a-token")
        assert (status, body["error"]["code"]) == (401, "invalid_token")
        status, body = open_stream(base)
        assert (status, body["success"], body["message"]) == (
            401,
            False,
            "Missing Authorization Header",
        )


def test_past_the_limit_the_oldest_stream_of_the_user_closes(tmp_path):
    limit = {"LIVEFEED_MAX_STREAMS_PER_USER": "2"}
    with feed_server(tmp_path, "embedded", workers=1, **limit) as (base, _):
        ada = sign_in(base, "ada@example.com")
        streams = []
        for _ in range(3):
            stream = open_stream(base, token=ada)
            assert isinstance(stream, Reader)
            streams.append(stream)
            time.sleep(0.2)
        for stream in streams:
            stream.next_event(timeout=1.2)
        assert [stream.ended for stream in streams] == [True, False, False]


@pytest.mark.parametrize("mode", ["embedded"])
def test_open_streams_end_promptly_when_the_server_stops(tmp_path, mode):
    settings = {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    env = server_env(**settings)
    migrate(env)
    with api_server(env, workers=1) as base:
        ada = sign_in(base, "ada@example.com")
        stream = open_stream(base, token=ada)
        assert isinstance(stream, Reader)
        server = next(
            process
            for process in _children()
            if "config.serve" in process[1] and str(urlsplit(base).port) in process[2]
        )
        began = time.monotonic()
        os.kill(server[0], signal.SIGTERM)
        while not stream.ended and time.monotonic() - began < 8:
            stream.next_event(timeout=0.5)
        assert stream.ended
        assert time.monotonic() - began < 5  # not the server's 10 s graceful wait


def _children() -> list[tuple[int, str, str]]:
    """(pid, command line, environment's PORT) of this user's processes."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode()
            with open(f"/proc/{entry}/environ", "rb") as environ:
                port = next((item.decode() for item in environ.read().split(b"\0")
                             if item.startswith(b"PORT=")), "")  # fmt: skip
        except OSError:
            continue
        found.append((int(entry), command, port))
    return found


def _ended_within(reader: Reader, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not reader.ended and time.monotonic() < deadline:
        reader.next_event(deadline - time.monotonic())
    return reader.ended


@pytest.mark.parametrize("mode", MODES)
def test_revocation_ends_the_sessions_open_streams_at_once(tmp_path, mode):
    # Logout ends its own sign-in's streams; logout everywhere (as a takeover, a refresh
    # token's reuse or an erasure do) ends them all, in every server process.
    with feed_server(tmp_path, mode) as (base, _env):
        credentials = {"email": "ada@example.com", "password": "Correct-horse-7"}
        first = requests.post(f"{base}/api/auth/login", json=credentials, timeout=30).json()
        second = requests.post(f"{base}/api/auth/login", json=credentials, timeout=30).json()
        streams = [open_stream(base, token=first["data"]["token"]) for _ in range(2)]
        other = open_stream(base, token=second["data"]["token"])
        assert all(isinstance(s, Reader) for s in [*streams, other])
        time.sleep(0.5)  # both processes' listeners are up

        logout = requests.post(f"{base}/api/auth/logout",
                               json={"refreshToken": first["data"]["refreshToken"]},
                               headers={"Authorization": f"Bearer {first['data']['token']}"},
                               timeout=30)  # fmt: skip
        assert logout.status_code == 200, logout.text
        assert all(_ended_within(stream, 3.0) for stream in streams)
        assert not _ended_within(other, 1.0)

        everywhere = requests.post(f"{base}/api/auth/logout",
                                   json={"refreshToken": second["data"]["refreshToken"],
                                         "everywhere": True},
                                   headers={"Authorization": f"Bearer {second['data']['token']}"},
                                   timeout=30)  # fmt: skip
        assert everywhere.status_code == 200, everywhere.text
        assert _ended_within(other, 3.0)
        for reader in [*streams, other]:
            reader.close()


def test_opening_streams_in_a_loop_is_rate_limited(tmp_path):
    with feed_server(tmp_path, "embedded", workers=1, RATE_LIMIT_PER_MINUTE="20") as (base, _):
        answers = [
            requests.get(f"{base}/api/events/stream?ticket=evt_guess{n}", timeout=10)
            for n in range(30)
        ]
    statuses = [answer.status_code for answer in answers]
    assert set(statuses) == {401, 429}, statuses
    limited = answers[statuses.index(429)]
    assert limited.json()["error"]["code"] == "rate_limited"
    assert int(limited.headers["Retry-After"]) >= 1
    assert statuses[-1] == 429


@pytest.mark.parametrize("mode", MODES)
def test_erasure_ends_the_users_open_streams(tmp_path, mode):
    with feed_server(tmp_path, mode) as (base, _env):
        token = sign_in(base, "ada@example.com")
        stream = open_stream(base, token=token)
        assert isinstance(stream, Reader)
        time.sleep(0.5)  # both processes' listeners are up
        auth = {"Authorization": f"Bearer {token}"}
        proof = {"password": "Correct-horse-7"}
        erased = requests.delete(f"{base}/api/auth/me", json=proof, headers=auth, timeout=30)
        assert erased.status_code == 200, erased.text
        assert _ended_within(stream, 3.0)
        stream.close()


def test_the_stream_passes_the_same_edge_as_every_route(tmp_path):
    """Host check, CORS (its preflight too) and the rate limit's headers come from the one
    middleware stack every other route goes through, not from a copy in the stream's code."""
    app = "https://app.example.com"
    with feed_server(tmp_path, "embedded", workers=1, CORS_ALLOWED_ORIGINS=app) as (base, _):
        preflight = requests.options(
            f"{base}/api/events/stream",
            headers={"Origin": app, "Access-Control-Request-Method": "GET",
                     "Access-Control-Request-Headers": "authorization, last-event-id"},
            timeout=10,
        )  # fmt: skip
        refused = requests.get(
            f"{base}/api/events/stream?ticket=evt_unknown", headers={"Origin": app}, timeout=10
        )
        foreign = requests.get(
            f"{base}/api/events/stream", headers={"Origin": "https://evil.example"}, timeout=10
        )
        bad_host = requests.get(
            f"{base}/api/events/stream", headers={"Host": "attacker.example"}, timeout=10
        )
        wrong_method = requests.post(f"{base}/api/events/stream", timeout=10)
        token = sign_in(base, "ada@example.com")
        parts = urlsplit(base)
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
        connection.request("GET", "/api/events/stream",
                           headers={"Authorization": f"Bearer {token}", "Origin": app})  # fmt: skip
        opened = connection.getresponse()
        opened_headers = {name.lower(): value for name, value in opened.getheaders()}
        connection.close()

    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Origin"] == app
    allowed = preflight.headers["Access-Control-Allow-Headers"]
    assert {"authorization", "last-event-id"} <= set(allowed.split(", "))
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "invalid_ticket"
    assert refused.headers["Access-Control-Allow-Origin"] == app
    assert refused.headers["RateLimit-Policy"].startswith('"default";q=')
    assert "Access-Control-Allow-Origin" not in foreign.headers
    assert bad_host.status_code == 400
    assert bad_host.headers["Content-Type"] == "application/json"
    assert wrong_method.status_code == 405
    assert wrong_method.json()["error"]["code"] == "method_not_allowed"
    assert opened.status == 200
    assert opened_headers["content-type"] == "text/event-stream; charset=utf-8"
    assert opened_headers["access-control-allow-origin"] == app
    assert opened_headers["ratelimit"].startswith('"default";r=')


def _shell(env: dict[str, str], code: str) -> str:
    """Run `code` in `manage.py shell` (another process, the server's settings); the last line
    it printed."""
    done = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=env,
                          check=True, timeout=60, capture_output=True, text=True)  # fmt: skip
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


SHORT_LIVED_TOKEN = """
from datetime import timedelta
from rest_framework_simplejwt.tokens import AccessToken
from accounts.models import User
from accounts.services.sessions import session_issue
token = AccessToken(session_issue(user=User.objects.get(email="ada@example.com")).token)
token.set_exp(lifetime=timedelta(seconds=3))
print(token)
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_stream_ends_with_its_token_and_its_user_s_deactivation(tmp_path, mode):
    with feed_server(tmp_path, mode, LIVEFEED_RECHECK_SECONDS="1") as (base, env):
        sign_in(base, "ada@example.com")
        bob, carol = sign_in(base, "bob@example.com"), sign_in(base, "carol@example.com")
        short = _shell(env, SHORT_LIVED_TOKEN)
        ada_stream, bob_stream, carol_stream = (
            open_stream(base, token=token) for token in (short, bob, carol)
        )
        assert all(isinstance(s, Reader) for s in (ada_stream, bob_stream, carol_stream))
        time.sleep(0.5)  # both processes' listeners are up

        # Deactivated by the service (the admin's), in another process: ended at once.
        _shell(env, "from accounts.models import User\n"
                    "from accounts.services.users import user_set_active\n"
                    "user_set_active(user=User.objects.get(email='bob@example.com'),"
                    " active=False)")  # fmt: skip
        assert _ended_within(bob_stream, 3.0)
        # Deactivated behind the services' back: the next recheck ends it.
        _shell(
            env,
            "from accounts.models import User\n"
            "User.objects.filter(email='carol@example.com').update(is_active=False)",
        )
        assert _ended_within(carol_stream, 4.0)
        # The access token expires (3 s after it was made): the stream ends, the reconnect
        # is refused.
        assert not ada_stream.ended
        assert _ended_within(ada_stream, 5.0)
        status, body = open_stream(base, token=short)
        assert (status, body["error"]["code"]) == (401, "invalid_token")
        status, body = open_stream(base, token=bob)
        assert (status, body["error"]["code"]) == (401, "invalid_token")
        for reader in (ada_stream, bob_stream, carol_stream):
            reader.close()
