"""The live feed's serving side: `GET /api/events/stream` as Server-Sent Events (social.md
section 8, docs/live-feed.md).

An open stream is an asyncio task on the server's event loop and a queue: no thread, no
database connection. Each server process has one `Hub`: its open streams by user, and one
listener that feeds them, subscribed to the Redis channel of notifications/services/livefeed.py when
REDIS_URL is set, or polling the `LiveEvent` table every LIVEFEED_POLL_SECONDS otherwise (the
embedded default, where the worker and the server processes share only the database). The
database is touched briefly, from the loop's thread pool, to authenticate, to read a
reconnect's backlog and to poll; connections go back to the pool at once.

`stream_app` is a plain ASGI application, mounted ahead of Django for the stream's paths
(config/asgi.py): Django's ASGI handler would hold a thread per open request for its
thread-sensitive context. The request itself is admitted by Django like any other: it goes
through the whole middleware stack (Host check, CORS and its preflights, the edge's rate limit
and its headers) to `StreamView`, which authenticates it; only the open stream runs here.

A stream lives no longer than what admitted it: it ends when its access token expires (the
ticket's: the token that asked for the ticket), at once when its session is revoked or its
user signed out everywhere or deactivated (a REVOKED message on the channel), and, should
that message be lost, at the hub's next look at its users (LIVEFEED_RECHECK_SECONDS). The
client reconnects and is refused until it signs in or refreshes.
"""

import asyncio
import io
import json
import logging
import signal
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Any
from uuid import UUID

from a2wsgi.wsgi import build_environ
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler, WSGIRequest, get_script_name
from django.core.signals import request_started
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.urls import set_script_prefix
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt
from rest_framework_simplejwt.exceptions import AuthenticationFailed, InvalidToken, TokenError

from accounts.authentication import BearerAuthentication
from accounts.errors import WorkspaceNotFound
from accounts.selectors import Standing, users_standing, users_workspaces
from accounts.services.sessions import SESSION_CLAIM, VERSION_CLAIM
from core import metrics
from core.api.envelope import error_body
from core.errors import INVALID_TOKEN_MESSAGE, MISSING_AUTH_MESSAGE
from notifications.models import LiveEventKind
from notifications.services.livefeed import (
    channel,
    events_latest_id,
    events_recent,
    events_since,
    message_of,
    messages_in,
)

logger = logging.getLogger(__name__)

Message = dict[str, Any]
CLOSE: Message = {"close": True}  # a stream's queue: end the stream
QUEUE_LIMIT = 1000  # events waiting for one slow client before its stream is closed
RECENT_IDS = 20_000  # ids the poller remembers, so a late commit is delivered once
ADMISSION = "livefeed.admission"  # in the environ of stream_app's admission: no header sets it
STREAM_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),  # nginx and its kind: pass each event on at once
    (b"content-encoding", b"identity"),  # never compressed: it would hold events back
]


def _db(function: Callable[..., Any], /, **kwargs: Any) -> Awaitable[Any]:
    """Run a short database call on the loop's thread pool, its connection given back after."""

    def call() -> Any:
        try:
            return function(**kwargs)
        finally:
            close_old_connections()

    return sync_to_async(call, thread_sensitive=False)()


def event_text(message: Message) -> bytes:
    name, body = message["kind"], message["data"]
    if name == LiveEventKind.EVENT:  # a domain event: named by its type, its id in its data
        name, body = body.get("type", name), {"id": message["id"], **body}
    data = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    return f"id: {message['id']}\nevent: {name}\ndata: {data}\n\n".encode()


@dataclass(frozen=True, slots=True)
class Admission:
    """Who a stream is for and what let it in: the sign-in (`sid`, "" when unknown), the
    token version it was issued under and when its access token expires (a Unix time); None:
    not known, not checked."""

    user_id: str
    session: str = ""
    token_version: int | None = None
    expires_at: float | None = None
    # The workspaces whose events it carries when it opens (the user's memberships), and the
    # one `?workspace=` kept it to (None: all of them).
    workspaces: frozenset[str] = frozenset()
    only: str | None = None

    def holds(self, standing: Standing | None) -> bool:
        """Whether the user's current standing (None: inactive or gone) still admits it."""
        if standing is None:
            return False
        if self.token_version is not None and standing.token_version != self.token_version:
            return False
        return not (self.session and self.session in standing.revoked_sessions)


class Stream:
    """One open stream: what admitted it and the queue the hub fills."""

    def __init__(self, admission: Admission) -> None:
        self.admission = admission
        self.user_id = admission.user_id
        self.session = admission.session  # the sign-in that opened it ("" when unknown)
        self.queue: asyncio.Queue[Message] = asyncio.Queue(maxsize=QUEUE_LIMIT)
        self._recent: deque[int] = deque(maxlen=256)  # ids sent or queued: each goes once
        # The workspaces it carries now: the user's memberships (kept by the hub as they
        # change), within the one it was kept to.
        self.memberships: frozenset[str] = frozenset()
        self.workspaces: set[str] = set()
        self.member_of(admission.workspaces)

    def member_of(self, memberships: frozenset[str]) -> tuple[set[str], set[str]]:
        """The user's workspaces are now these: (those it starts carrying, those it stops)."""
        self.memberships = memberships
        only = self.admission.only
        wanted = {only} & memberships if only is not None else set(memberships)
        joined, left = wanted - self.workspaces, self.workspaces - wanted
        self.workspaces = wanted
        return joined, left

    def fresh(self, event_id: int) -> bool:
        """Whether this id is new to the stream (and from now on, known)."""
        if event_id in self._recent:
            return False
        self._recent.append(event_id)
        return True

    def put(self, message: Message) -> None:
        if not self.fresh(message["id"]):
            return
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:  # a client that stopped reading: it reconnects and resumes
            self.close()

    def expires_in(self) -> float | None:
        """Seconds until its access token expires (0 or less: expired); None: no expiry."""
        expires_at = self.admission.expires_at
        return None if expires_at is None else expires_at - time.time()

    def close(self) -> None:
        while True:  # make room for the sentinel: what is dropped is read again on resume
            try:
                self.queue.put_nowait(CLOSE)
                return
            except asyncio.QueueFull:
                self.queue.get_nowait()


class Hub:
    """This process's open streams and the listener that feeds them."""

    def __init__(self) -> None:
        self.streams: dict[str, list[Stream]] = {}
        self.watching: dict[str, list[Stream]] = {}  # by workspace: the streams carrying it
        self.listener: asyncio.Task[None] | None = None
        self.rechecker: asyncio.Task[None] | None = None
        self.shutting_down = False
        self.subscribed = False

    def open(self, admission: Admission) -> Stream:
        """A new stream for the user; past LIVEFEED_MAX_STREAMS_PER_USER the oldest closes."""
        loop = asyncio.get_running_loop()
        if self.listener is not None and self.listener.get_loop() is not loop:
            self.__init__()  # type: ignore[misc]  # a new event loop (tests): start afresh
        stream = Stream(admission)
        mine = self.streams.setdefault(admission.user_id, [])
        mine.append(stream)
        self._watch(stream, stream.workspaces, set())
        while len(mine) > settings.LIVEFEED_MAX_STREAMS_PER_USER:
            mine.pop(0).close()
        if self.listener is None or self.listener.done():
            self.listener = loop.create_task(self._listen())
            closing_on_exit()
        if self.rechecker is None or self.rechecker.done():
            self.rechecker = loop.create_task(self._recheck())
        return stream

    def leave(self, stream: Stream) -> None:
        mine = self.streams.get(stream.user_id, [])
        if stream in mine:
            mine.remove(stream)
        if not mine:
            self.streams.pop(stream.user_id, None)
        self._watch(stream, set(), stream.workspaces)

    def _watch(self, stream: Stream, joined: set[str], left: set[str]) -> None:
        for workspace in joined:
            self.watching.setdefault(workspace, []).append(stream)
        for workspace in left:
            watchers = self.watching.get(workspace, [])
            if stream in watchers:
                watchers.remove(stream)
            if not watchers:
                self.watching.pop(workspace, None)

    def member_of(self, user_id: str, workspaces: frozenset[str]) -> None:
        """The user's memberships are now these: their streams carry those workspaces'
        events from now on, and no others'."""
        for stream in self.streams.get(user_id, ()):
            self._watch(stream, *stream.member_of(workspaces))

    def deliver(self, message: Message) -> None:
        kind, workspace = message.get("kind"), message.get("workspace")
        if workspace is not None:  # a workspace's event: its members' streams
            for stream in self.watching.get(workspace, ()):
                stream.put(message)
            return
        streams = self.streams.get(message["user"], ())
        if kind == LiveEventKind.REVOKED:
            # A revoked session: its streams end now (all the user's when none is named).
            session = str((message.get("data") or {}).get("session") or "")
            for stream in list(streams):
                if not session or stream.session in ("", session):
                    stream.close()
            return
        if kind == LiveEventKind.MEMBERSHIP:  # joined or left a workspace
            data = message.get("data") or {}
            changed, member = str(data.get("workspace") or ""), bool(data.get("member"))
            for stream in list(streams):
                held = stream.memberships
                now = held | {changed} if member else held - {changed}
                self._watch(stream, *stream.member_of(now))
            return
        for stream in streams:
            stream.put(message)

    def end_refused(self, standing: Mapping[str, Standing]) -> int:
        """Close the streams their users' standing no longer admits (deactivated, signed out
        everywhere, their session revoked); how many."""
        ended = 0
        for user_id, streams in list(self.streams.items()):
            for stream in list(streams):
                if not stream.admission.holds(standing.get(user_id)):
                    stream.close()
                    ended += 1
        return ended

    async def _recheck(self) -> None:
        """The safety net of the REVOKED message (lost with a Redis outage, or a user changed
        by hand): every LIVEFEED_RECHECK_SECONDS, one query for all the users with open
        streams in this process, not one per stream."""
        while True:
            await asyncio.sleep(settings.LIVEFEED_RECHECK_SECONDS)
            if not self.streams:
                continue
            users = list(self.streams)
            try:
                standing = await _db(users_standing, user_ids=users)
                workspaces = await _db(users_workspaces, user_ids=users)
            except Exception:
                logger.exception("Live feed: the streams' users could not be checked")
                continue
            self.end_refused(standing)
            for user_id in users:
                self.member_of(user_id, workspaces.get(user_id, frozenset()))

    def shutdown(self) -> None:
        """Close every open stream (the server is stopping): clients reconnect elsewhere."""
        self.shutting_down = True
        for streams in list(self.streams.values()):
            for stream in streams:
                stream.close()

    @property
    def count(self) -> int:
        return sum(len(streams) for streams in self.streams.values())

    async def _listen(self) -> None:
        listen = self._subscribe if settings.REDIS_URL else self._poll
        while True:
            try:
                await listen()
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("Live feed listener failed; restarting in 1 s")
                await asyncio.sleep(1.0)

    async def _subscribe(self) -> None:
        """Redis publish/subscribe; after a reconnect, a look at the table catches up."""
        import redis.asyncio as aioredis

        client = aioredis.from_url(
            settings.REDIS_URL, socket_connect_timeout=settings.REDIS_SOCKET_CONNECT_TIMEOUT
        )
        try:
            async with client.pubsub(ignore_subscribe_messages=True) as pubsub:
                await pubsub.subscribe(channel())
                if self.subscribed:  # a reconnect: what was published meanwhile is in the table
                    await self._catch_up(seconds=30.0)
                self.subscribed = True
                while True:
                    message = await pubsub.get_message(timeout=5.0)
                    if message is not None:
                        for event in messages_in(message["data"]):
                            self.deliver(event)
        finally:
            await client.aclose()

    async def _catch_up(self, *, seconds: float) -> None:
        rows = await _db(events_recent, after=2**62, seconds=seconds)
        for row in rows:
            self.deliver(json.loads(message_of(row)))

    async def _poll(self) -> None:
        """No Redis: read what was written since the last look, and the last few seconds
        again (an id taken early can commit late); each event delivered once."""
        seen: deque[int] = deque(maxlen=RECENT_IDS)
        known: set[int] = set()
        started = timezone.now()  # what was written before the listener is backlog
        high = await _db(events_latest_id)
        lookback = max(5.0, 10 * settings.LIVEFEED_POLL_SECONDS)
        while True:
            rows = await _db(events_recent, after=high, seconds=lookback)
            for row in rows:
                if row.id in known or row.created_at < started:
                    continue
                if len(seen) == seen.maxlen:
                    known.discard(seen[0])
                seen.append(row.id)
                known.add(row.id)
                high = max(high, row.id)
                self.deliver(json.loads(message_of(row)))
            await asyncio.sleep(settings.LIVEFEED_POLL_SECONDS)


hub = Hub()


def _on_exit(previous: Any) -> Callable[[int, Any], None]:
    def handler(signum: int, frame: Any) -> None:
        try:
            asyncio.get_running_loop().call_soon_threadsafe(hub.shutdown)
        except RuntimeError:
            hub.shutdown()
        if callable(previous):
            previous(signum, frame)

    return handler


_hooked: list[bool] = []


def closing_on_exit() -> None:
    """Close the open streams when the server is told to stop, before its graceful wait
    would be spent on them. Hooked in front of the server's own handlers when the first
    stream opens (by then uvicorn has installed them; it restores the earlier ones when it
    stops), once per process."""
    if _hooked:
        return
    _hooked.append(True)
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(signum, _on_exit(signal.getsignal(signum)))
        except ValueError:  # not the main thread: no server runs here
            return


# --- Serving ----------------------------------------------------------------------------------


def _authenticate(*, authorization: str, ticket: str) -> tuple[Admission | None, str, str]:
    """(admission, error code, error message): the Bearer header, or else the ticket. The
    session (the sign-in's `sid`) lets a revocation end exactly its streams; the access
    token's expiry (the ticket's: that of the token that asked for it) ends the stream."""
    from notifications.services.livefeed import ticket_redeem

    if authorization:
        auth = BearerAuthentication()
        try:
            raw = auth.get_raw_token(authorization.encode())
            if raw is None:
                raise AuthenticationFailed(INVALID_TOKEN_MESSAGE)
            validated = auth.get_validated_token(raw)
            user = auth.get_user(validated)
        except (AuthenticationFailed, InvalidToken, TokenError):
            return None, "invalid_token", INVALID_TOKEN_MESSAGE
        admission = Admission(
            user_id=str(user.pk),
            session=str(validated.get(SESSION_CLAIM) or ""),
            token_version=validated.get(VERSION_CLAIM),
            expires_at=float(validated["exp"]),
        )
        return admission, "", ""
    if ticket:
        redeemed = ticket_redeem(ticket=ticket)
        if redeemed is None:
            return None, "invalid_ticket", "The ticket is unknown, used or expired."
        expires_at = redeemed.access_expires_at
        admission = Admission(
            user_id=str(redeemed.user_id),
            session=redeemed.session,
            token_version=redeemed.token_version,
            expires_at=None if expires_at is None else expires_at.timestamp(),
        )
        return admission, "", ""
    return None, "not_authenticated", MISSING_AUTH_MESSAGE


def _workspace_named(raw: str) -> str | None:
    """The workspace `?workspace=` keeps the stream to, as its id is written ("" for a
    malformed one, which no workspace has); None: not asked."""
    if not raw:
        return None
    try:
        return str(UUID(raw))
    except ValueError:
        return ""


def _last_event_id(header: str, query: str) -> int | None:
    raw = header or query
    # ASCII digits only: str.isdigit() is also true of "²", which int() refuses.
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 19 else None


async def events(stream: Stream, last_event_id: int | None) -> AsyncIterator[bytes]:
    """The stream's bytes: a retry hint, what a reconnect missed, then events as they come
    and a heartbeat comment after LIVEFEED_HEARTBEAT_SECONDS without one, until the stream
    is closed or its access token expires (the contract has no event for it: the stream
    just ends, and the client's reconnect is refused until it refreshes its token)."""
    yield b"retry: 3000\n\n"
    if last_event_id is not None:  # the hub already queues new events: no gap, maybe overlap
        backlog = await _db(
            events_since,
            user_id=stream.user_id,
            workspaces=list(stream.workspaces),
            after=last_event_id,
        )
        for row in backlog:
            if stream.fresh(row.id):
                yield event_text(json.loads(message_of(row)))
    heartbeat = settings.LIVEFEED_HEARTBEAT_SECONDS
    quiet_since = time.monotonic()
    while True:
        wait = quiet_since + heartbeat - time.monotonic()
        expires_in = stream.expires_in()
        if expires_in is not None:
            if expires_in <= 0:
                return
            wait = min(wait, expires_in)
        try:
            message = await asyncio.wait_for(stream.queue.get(), timeout=max(wait, 0.0))
        except TimeoutError:
            if time.monotonic() - quiet_since >= heartbeat:
                yield b": heartbeat\n\n"
                quiet_since = time.monotonic()
            continue
        if message is CLOSE:
            return
        yield event_text(message)
        quiet_since = time.monotonic()


def _admit(scope: dict[str, Any]) -> HttpResponseBase:
    """The stream's request through Django's whole stack, as every other route goes (the Host
    check, CORS, the edge's rate limit and its headers), ending at `StreamView`, which
    authenticates it. Run on the loop's thread pool; the caller closes the answer (which
    sends `request_finished`).

    The handler's middleware chain is called for Django's answer object, as the WSGI handler
    does inside: the WSGI call itself returns whatever iterable a library wrapping it
    chooses (Sentry's Django integration wraps it, and every stream answered 500)."""
    environ: dict[str, Any] = {**build_environ(scope, io.BytesIO()), ADMISSION: True}  # type: ignore[arg-type]
    set_script_prefix(get_script_name(environ))
    request_started.send(sender=WSGIHandler, environ=environ)
    return _django().get_response(WSGIRequest(environ))


@cache
def _django() -> WSGIHandler:
    """Django's WSGI handler (its middleware loaded once), made at the first stream."""
    return WSGIHandler()


def _headers(answer: HttpResponseBase, *, body: bool) -> list[tuple[bytes, bytes]]:
    skip = set() if body else {"content-type", "content-length"}
    return [
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in answer.items()
        if name.lower() not in skip
    ]


async def stream_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """`GET /api/events/stream` as a plain ASGI application (see the module's docstring).
    Django admits the stream (or answers the refusal, a preflight, a 429); the stream itself
    runs here, on the event loop."""
    answer = await _db(_admit, scope=scope)
    try:
        if not isinstance(answer, StreamAdmitted):
            content = b"" if answer.streaming else answer.content
            await send(
                {
                    "type": "http.response.start",
                    "status": answer.status_code,
                    "headers": _headers(answer, body=True),
                }
            )
            await send({"type": "http.response.body", "body": content})
            return
        admitted, headers = answer, _headers(answer, body=False)
    finally:
        answer.close()  # request_finished: Django's end of the request
    stream = hub.open(admitted.admission)
    await send(
        {"type": "http.response.start", "status": 200, "headers": [*STREAM_HEADERS, *headers]}
    )

    async def disconnected() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        stream.close()

    watcher = asyncio.get_running_loop().create_task(disconnected())
    metrics.livefeed_stream(opened=True)
    try:
        async for chunk in events(stream, admitted.last_event_id):
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except OSError:
        pass  # the client went away mid-write
    finally:
        watcher.cancel()
        hub.leave(stream)
        metrics.livefeed_stream(opened=False)


class StreamAdmitted(HttpResponse):
    """StreamView's yes: who the stream is for; `stream_app` sends the events."""

    def __init__(self, *, admission: Admission, last_event_id: int | None) -> None:
        super().__init__(status=200)
        self.admission, self.last_event_id = admission, last_event_id


@method_decorator(csrf_exempt, name="dispatch")  # a Bearer token or a ticket, never a cookie
class StreamView(View):
    """The stream's route inside Django: its admission. `stream_app` sends each request for the
    stream through Django's middleware to here, marked by ADMISSION in the environ (a key no
    header can set); this view authenticates it and answers who the stream is for. Reached
    without `stream_app` in front (a WSGI server such as runserver, or Django's ASGI handler),
    it answers a clear error: such a server would hold a thread per open stream, or read the
    endless stream to its end before sending a byte."""

    def get(self, request: HttpRequest) -> HttpResponseBase:
        if not request.META.get(ADMISSION):
            message = "The live feed is served by the ASGI server (python -m config.serve)."
            return JsonResponse(error_body(code="stream_needs_asgi", message=message), status=501)
        admission, code, message = _authenticate(
            authorization=request.headers.get("Authorization", ""),
            ticket=request.GET.get("ticket", ""),
        )
        if admission is None:
            return JsonResponse(error_body(code=code, message=message), status=401)
        # The events of every workspace the user belongs to, or of the one asked for.
        workspaces = users_workspaces(user_ids=[admission.user_id]).get(
            admission.user_id, frozenset()
        )
        only = _workspace_named(request.GET.get("workspace", ""))
        if only is not None and only not in workspaces:
            refused = WorkspaceNotFound()
            return JsonResponse(error_body(code=refused.code, message=refused.message), status=404)
        admission = replace(admission, workspaces=workspaces, only=only)
        if hub.shutting_down:
            answer = JsonResponse(
                error_body(code="shutting_down", message="The server is restarting."), status=503
            )
            answer["Retry-After"] = "1"
            return answer
        return StreamAdmitted(
            admission=admission,
            last_event_id=_last_event_id(
                request.headers.get("Last-Event-ID", ""), request.GET.get("lastEventId", "")
            ),
        )
