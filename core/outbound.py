"""The one way out of the process: every call to a provider's API or to a URL a user gave us.

- One set of urllib3 connection pools per client (a provider, the AI server, webhooks),
  connect timeout 5 s; one transport for every call, traced or not (urllib3's public pool
  API; OpenTelemetry's urllib3 instrumentation makes the spans). Bodies and queries are
  encoded as requests' PreparedRequest encodes them: a JSON body or none here, byte for byte
  the same, the rest (forms, files, streams, query parameters) by PreparedRequest, the one
  part of requests used. No redirect is followed (a 3xx is a permanent error), no cookie
  sent or kept.
- Failures are classified once, here: `TransientError` (timeout, connection error, 408, 429,
  5xx: try again later, `retry_after` when the server said so, `maybe_delivered` when the
  request may have reached the server and done its work), `AuthenticationError` (401, 403: the
  credentials are no good), `PermanentError` (any other 4xx, a refused URL: do not retry).
  A client can refine this for a provider that signals errors in its body (`classify`).
- Reads and other idempotent requests (GET, HEAD, PUT, DELETE, OPTIONS, or a POST the caller
  marks `idempotent` because repeating it creates nothing, e.g. a token revocation) are
  retried on transient failures, a few times, honouring `Retry-After` when it is short and
  the call's time allows; longer waits go back to the caller. A create (a POST that
  publishes) is never marked so, even when it carries an Idempotency-Key: it is sent once per
  attempt, and its retry is the caller's next attempt, counted and subject to the user's
  `autoRetry` (social.md section 5).
- User-given URLs go through the guard (`guarded=True`): https only, every address the host
  resolves to outside the ranges the IANA registries mark not globally reachable, multicast
  and the IPv6 forms that carry an IPv4 address (core/special_addresses.py), and the
  connection is pinned to the address that was checked, so a second DNS answer cannot point
  it elsewhere (DNS rebinding); the pinned pool is kept for the next call to that address.
  `OUTBOUND_ALLOW_PRIVATE` (development and tests only; production refuses to start with it)
  lets http and private addresses through, still pinned.
- Every call has one wall-clock deadline, its `timeout` (or the client's), covering its
  connection, TLS handshake, status line, headers, body and inline retries: a server
  dripping a byte a second is cut off when the time is up (transient, `timed_out`), not
  only when one read waits too long. And a size cap (`OUTBOUND_MAX_RESPONSE_BYTES`, or the
  caller's `max_bytes`): a larger answer is a permanent error, never read into memory whole.
- Calls to user-chosen hosts are bounded in every process (web requests, the scheduler,
  webhook deliveries): at most `OUTBOUND_PER_HOST_CONCURRENCY` in flight to one such host at
  once; a call beyond it fails at once (`HostBusy`, transient, nothing sent), so a slow host
  holds a few threads, never the lanes every other user's calls need. (A client made with
  `wait_for_host`, the webhooks' on their own queue, waits for its turn within its deadline.)
- Nothing here touches the database: callers hold no transaction or row lock while waiting.
"""

import contextlib
import json
import logging
import math
import os
import socket
import ssl
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from email.message import Message
from json import dumps as json_dumps
from typing import Any
from urllib.parse import urlsplit

import certifi
import requests
from django.conf import settings
from requests.utils import check_header_validity
from urllib3 import BaseHTTPResponse, HTTPHeaderDict, PoolManager, Timeout
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool, port_by_scheme
from urllib3.exceptions import (
    ClosedPoolError,
    ConnectTimeoutError,
    LocationValueError,
    NewConnectionError,
    ReadTimeoutError,
)
from urllib3.exceptions import HTTPError as Urllib3Error
from urllib3.util import Retry, create_urllib3_context, parse_url

from core import metrics, special_addresses

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT_SECONDS = 5.0
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
MAX_INLINE_RETRY_WAIT_SECONDS = 5.0  # a longer Retry-After is the caller's to schedule
EXCERPT_BYTES = 1024
POOL_SIZE = 64  # connections kept per host and client
CHUNK_BYTES = 64 * 1024  # an answer's body is read at most this much at a time
PINNED_SESSIONS = 64  # pinned pools (checked addresses of user-chosen hosts) a client keeps


class OutboundError(Exception):
    """A call that did not succeed. `message` is safe to show; details stay in the log."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        maybe_delivered: bool = False,
        timed_out: bool = False,
        excerpt: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.maybe_delivered = maybe_delivered
        self.timed_out = timed_out
        self.excerpt = excerpt


class TransientError(OutboundError):
    """Try again later: timeouts, connection errors, 408, 429, 5xx."""


class HostBusy(TransientError):
    """Too many calls in flight to this user-chosen host from this process: nothing was sent."""


class PermanentError(OutboundError):
    """Do not retry: the request itself is wrong (4xx) or not allowed."""


class AuthenticationError(PermanentError):
    """The credentials were refused (401, 403, or a provider's own token-invalid signal)."""


class UnsafeURL(PermanentError):
    """The guard refused a user-given URL (scheme, or an address that is not public)."""


# A provider's refinement: look at a response, return the error to raise, or None to keep the
# default classification by status code.
Classifier = Callable[["Response"], OutboundError | None]


def excerpt(response: "Response") -> str:
    return response.content[:EXCERPT_BYTES].decode("utf-8", errors="replace")


def retry_after_seconds(response: "Response") -> float | None:
    """`Retry-After` in seconds (delta-seconds or an HTTP date), None when absent or bad."""
    value = response.headers.get("Retry-After", "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        from email.utils import parsedate_to_datetime

        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def classify(response: "Response") -> OutboundError | None:
    """The default classification by status code; None for a success (2xx)."""
    status = response.status_code
    if 200 <= status < 300:
        return None
    text = excerpt(response)
    if status in (401, 403):
        return AuthenticationError(
            f"The server refused the credentials (HTTP {status}).", status=status, excerpt=text
        )
    if status in (408, 429) or status >= 500:
        return TransientError(
            f"The server is unavailable or busy (HTTP {status}).",
            status=status,
            retry_after=retry_after_seconds(response),
            maybe_delivered=status != 429,
            excerpt=text,
        )
    return PermanentError(
        f"The server rejected the request (HTTP {status}).", status=status, excerpt=text
    )


def outcome_of(error: OutboundError | None) -> str:
    """A call's outcome as the metrics name it: ok, timeout, unavailable (other transient
    failures), unauthorized, refused (the guard said no), rejected (other permanent ones)."""
    if error is None:
        return "ok"
    if isinstance(error, TransientError):
        return "timeout" if error.timed_out else "unavailable"
    if isinstance(error, AuthenticationError):
        return "unauthorized"
    return "refused" if isinstance(error, UnsafeURL) else "rejected"


# --- The guard for user-given URLs ------------------------------------------------------------


def _resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (a module function, so tests can stand in for DNS)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _is_public(address: str) -> bool:
    """Whether an address may be reached (core/special_addresses.py: the IANA registries)."""
    return special_addresses.refusal(address) is None


@dataclass(frozen=True, slots=True)
class Target:
    """A checked URL: where to connect (`address`) for which name (`host`)."""

    url: str
    scheme: str
    host: str
    port: int
    address: str


def guard_url(url: str) -> Target:
    """Check a user-given URL and pick the address to connect to; UnsafeURL if refused."""
    allow_private = bool(getattr(settings, "OUTBOUND_ALLOW_PRIVATE", False))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise UnsafeURL("The URL is not valid.") from None
    allowed_schemes = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in allowed_schemes:
        raise UnsafeURL("The URL must use https.")
    host = parts.hostname or ""
    if not host or parts.username or parts.password:
        raise UnsafeURL("The URL must name a host, without credentials.")
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = _resolve(host, port)
    except (OSError, UnicodeError):
        raise UnsafeURL("The URL's host does not resolve.") from None
    if not addresses:
        raise UnsafeURL("The URL's host does not resolve.")
    if not allow_private and not all(_is_public(address) for address in addresses):
        # All, not any: a name with one private answer among public ones is refused too.
        raise UnsafeURL("The URL must resolve to public internet addresses only.")
    return Target(url=url, scheme=parts.scheme, host=host, port=port, address=addresses[0])


# --- One deadline for the whole call ------------------------------------------------------------
#
# A socket's timeout bounds each read, not the call: a server sending its status line one byte
# a second would hold the call for as long as it likes. So each call has a wall-clock deadline
# (`_Deadline`) and every socket it uses (a new connection's before its TLS handshake, a
# kept-alive one's when a request goes out on it) is handed to one thread per process (the
# watchdog) that shuts the sockets of a call whose deadline has passed: the read blocked on it
# returns at once, connect, TLS handshake, status line, headers and body alike.
#
# Past its connect (and a new plain connection's first request), a socket has no timeout of
# its own: it blocks, and the call's deadline is its one bound. With a timeout, every send and
# receive is a poll() first and then the call, each letting go of the GIL, which the
# scheduler's many call threads then hand over again and again.


class _Deadline:
    """One attempt's end (time.monotonic()), the sockets it reads, and what became of it."""

    __slots__ = ("at", "done", "expired", "sending", "sockets")

    def __init__(self, at: float) -> None:
        self.at = at
        self.sockets: list[socket.socket] = []
        self.sending = False  # the request started to go out: it may have reached the server
        self.expired = False  # the watchdog shut its sockets
        self.done = False

    def remaining(self) -> float:
        return self.at - time.monotonic()


class _Watchdog:
    """The thread that ends calls past their deadline. It keeps the calls in flight (a set:
    a call that ends leaves it) and sleeps until the earliest of their deadlines: a call that
    ends in time costs it nothing, and it is woken only by a call due before what it sleeps
    for (none in flight, or a shorter timeout), not once for each call."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.live: set[_Deadline] = set()
        self.wakes_at = math.inf  # what the thread sleeps until (inf: until woken)
        self.thread: threading.Thread | None = None

    def arm(self, deadline: _Deadline) -> None:
        with self.lock:
            self.live.add(deadline)
            if self.thread is None:
                self.thread = threading.Thread(
                    target=self._run, name="outbound-watchdog", daemon=True
                )
                self.thread.start()
            elif deadline.at < self.wakes_at:
                self.wakes_at = deadline.at
                self.lock.notify()

    def watch(self, deadline: _Deadline, sock: socket.socket) -> None:
        with self.lock:
            if deadline.expired:
                _shut(sock)
            elif not deadline.done:
                deadline.sockets.append(sock)

    def disarm(self, deadline: _Deadline) -> None:
        """The call ended: its sockets are left alone (a kept-alive one serves the next)."""
        with self.lock:
            deadline.done = True
            deadline.sockets.clear()
            self.live.discard(deadline)

    def _run(self) -> None:
        with self.lock:
            while True:
                now = time.monotonic()
                for deadline in [each for each in self.live if each.at <= now]:
                    deadline.expired = True
                    for sock in deadline.sockets:
                        _shut(sock)
                    deadline.sockets.clear()
                    self.live.discard(deadline)
                self.wakes_at = min((each.at for each in self.live), default=math.inf)
                self.lock.wait(None if self.wakes_at == math.inf else self.wakes_at - now)


def _shut(sock: socket.socket) -> None:
    """Shut a socket down under the thread reading it (which then sees the connection end).
    The plain socket's shutdown, also for a TLS one: its TLS state stays the reader's."""
    with contextlib.suppress(OSError):  # already closed
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


_watchdog = _Watchdog()
_current: ContextVar[_Deadline | None] = ContextVar("outbound_deadline", default=None)


def _watch(sock: socket.socket | None, *, sending: bool = False) -> None:
    """Hand a socket of the call running in this thread (if any) to the watchdog."""
    deadline = _current.get()
    if deadline is None:
        return
    deadline.sending = deadline.sending or sending
    if sock is not None:
        _watchdog.watch(deadline, sock)


def _settimeout(sock: socket.socket, value: float | None) -> None:
    """urllib3 sets a connection's socket timeout as each request goes out and again for its
    answer, on a kept-alive connection the same (none, see above) every time: a system call
    that lets go of the GIL, for nothing when the timeout is already the one asked for."""
    if value != sock.gettimeout():
        socket.socket.settimeout(sock, value)


class _QuietSocket(socket.socket):
    """A plain connection's socket, whose timeout is set only when it changes (_settimeout)."""

    def settimeout(self, value: float | None) -> None:
        _settimeout(self, value)


class _WatchedTLSSocket(ssl.SSLSocket):
    """A TLS socket handed to the watchdog before its handshake (a server can drip that too),
    its timeout set only when it changes (_settimeout)."""

    def do_handshake(self, block: bool = False) -> None:
        _watch(self)
        super().do_handshake(block)

    def settimeout(self, value: float | None) -> None:
        _settimeout(self, value)


class _WatchedConnection(HTTPConnection):
    """A connection whose request is watched from its first byte, and goes out in one write
    when its body is small: urllib3 writes the head and then the body, two system calls and
    two packets where one does (a part of a call's CPU, docs/performance.md)."""

    _held: bytes | None = None  # while a request is sent: its head, until its body comes

    def request(self, *args: Any, **kwargs: Any) -> None:
        _watch(self.sock, sending=True)  # a new plain connection: connect() hands it over
        if self.sock is not None:  # kept alive: the request goes out blocking (see above)
            self.timeout = None
        self._held = b""
        try:
            super().request(*args, **kwargs)
        finally:
            held, self._held = self._held, None
        if held:  # a request without a body
            super().send(held)

    def send(self, data: Any) -> None:
        held = self._held
        if held is None:
            super().send(data)
        elif not held and isinstance(data, bytes):  # the head
            self._held = data
        else:
            self._held = None
            if isinstance(data, bytes) and len(data) <= CHUNK_BYTES:
                super().send(held + data)
            else:
                super().send(held)
                super().send(data)


class _WatchedHTTPConnection(_WatchedConnection):
    def connect(self) -> None:
        super().connect()
        made = self.sock
        timeout = made.gettimeout()
        self.sock = _QuietSocket(made.family, made.type, made.proto, fileno=made.detach())
        socket.socket.settimeout(self.sock, timeout)
        _watch(self.sock)


class _WatchedHTTPSConnection(_WatchedConnection, HTTPSConnection):
    """Connected (and handed over, before its TLS handshake) before its request is sent."""


class _WatchedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


def _tls_context() -> ssl.SSLContext:
    """urllib3's default TLS settings, its sockets watched (the certificates: certifi's
    bundle, which the pools pass with every connection)."""
    context = create_urllib3_context()
    context.sslsocket_class = _WatchedTLSSocket
    return context


class _Pools(PoolManager):
    """urllib3's pool manager, every connection it makes watched (see above), verified against
    the same certificate bundle requests uses, never blocking for a connection (a call beyond
    POOL_SIZE to one host opens one more, not kept)."""

    def __init__(self, tls: ssl.SSLContext, **pool_kwargs: Any) -> None:
        super().__init__(
            num_pools=16,
            maxsize=POOL_SIZE,
            block=False,
            ssl_context=tls,
            cert_reqs="CERT_REQUIRED",
            ca_certs=certifi.where(),
            **pool_kwargs,
        )
        self.pool_classes_by_scheme = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}
        # (scheme, host, port) -> its pool key and request context: urllib3 would build the
        # key (every pool setting, normalized) again at each call.
        self.keys: dict[tuple[str, str, int | None], tuple[Any, dict[str, Any]]] = {}

    def connection_from_host(
        self,
        host: str | None,
        port: int | None = None,
        scheme: str | None = "http",
        pool_kwargs: dict[str, Any] | None = None,
    ) -> HTTPConnectionPool:
        """PoolManager's, each host's pool key built once (the same key, the same pool)."""
        if not host or pool_kwargs is not None or scheme not in self.pool_classes_by_scheme:
            return super().connection_from_host(host, port, scheme, pool_kwargs)
        where = (scheme, host, port)
        known = self.keys.get(where)
        if known is None:
            context = {**self.connection_pool_kw, "scheme": scheme, "host": host,
                       "port": port or port_by_scheme[scheme]}  # fmt: skip
            known = (self.key_fn_by_scheme[scheme](context), context)
            if len(self.keys) >= URLS_KEPT:
                self.keys.clear()
            self.keys[where] = known
        key, context = known
        # A copy: a new pool is made from it, and urllib3 takes its entries out as it does.
        return self.connection_from_pool_key(key, request_context=dict(context))


# What every call passes urlopen, made once (urllib3 would make the Retry at each call from
# `retries=False, redirect=False`): no retry, no redirect followed; connect within 5 s (or
# the call's budget, when shorter), no read timeout (the watchdog's deadline bounds reads).
_NO_RETRIES = Retry(total=False, redirect=False)
_TIMEOUT = Timeout(connect=CONNECT_TIMEOUT_SECONDS, read=None)

_TLS = _tls_context()
# Pinned pools' own: urllib3 turns the context's check of the name off when it is told which
# name to check (`assert_hostname`), as it then checks it itself.
_PINNED_TLS = _tls_context()


def _pinned_pools(target: Target) -> _Pools:
    """Pools that connect to the checked address while speaking to (and verifying) the host
    name."""
    if target.scheme != "https":
        return _Pools(_PINNED_TLS)
    return _Pools(_PINNED_TLS, server_hostname=target.host, assert_hostname=target.host)


class Response:
    """An answer, read whole within the call's deadline and size cap: what callers read of it
    (the names are requests', which the providers' code was written against)."""

    __slots__ = ("content", "headers", "reason", "status_code", "url")

    def __init__(
        self,
        status_code: int,
        content: bytes = b"",
        headers: Mapping[str, str] | None = None,
        *,
        url: str = "",
        reason: str = "",
    ) -> None:
        self.status_code = status_code
        self.content = content
        self.headers: Mapping[str, str] = (
            headers if isinstance(headers, HTTPHeaderDict) else HTTPHeaderDict(headers or {})
        )
        self.url = url
        self.reason = reason

    @property
    def ok(self) -> bool:
        return 200 <= self.status_code < 300

    @property
    def text(self) -> str:
        """The body as text: in the charset the answer names, else UTF-8 (bad bytes replaced)."""
        charset = Message()
        charset["Content-Type"] = self.headers.get("Content-Type", "")
        encoding = charset.get_content_charset() or "utf-8"
        try:
            return self.content.decode(encoding, errors="replace")
        except LookupError:  # a charset Python does not know
            return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """The body as JSON; ValueError when it is not."""
        return json.loads(self.content)

    def __repr__(self) -> str:
        return f"<Response [{self.status_code}]>"


def _forget_threads() -> None:
    """In a forked child (a Celery pool process): the parent's watchdog thread is not there,
    nor are the calls its gates counted."""
    global _watchdog, _gates_lock
    _watchdog, _gates_lock = _Watchdog(), threading.Lock()
    _gates.clear()


# --- The client ------------------------------------------------------------------------------

# Calls in flight to one user-chosen host, per process, across every client (a Mastodon
# instance is reached by the Mastodon client and the media one, a webhook receiver's host may
# be an instance too): (host, limit) -> its gate.
_gates: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_gates_lock = threading.Lock()
os.register_at_fork(after_in_child=_forget_threads)


def _gate(host: str) -> threading.BoundedSemaphore:
    limit = int(settings.OUTBOUND_PER_HOST_CONCURRENCY)
    with _gates_lock:
        gate = _gates.get((host, limit))
        if gate is None:
            gate = _gates[(host, limit)] = threading.BoundedSemaphore(limit)
        return gate


class Client:
    """One purpose's way out: its pools, timeouts, retries and classification."""

    def __init__(
        self,
        name: str,
        *,
        read_timeout: float,
        retries: int = 2,
        classify: Classifier | None = None,
        user_agent: str = "FreelancerGrowthPlatform/1.0",
        wait_for_host: bool = False,
    ) -> None:
        """`wait_for_host`: a call to a user-chosen host at its bound waits for its turn
        (within the call's deadline) instead of failing at once as busy; for callers whose
        threads serve only such calls (webhook deliveries), never for a web request or the
        scheduler's lanes, which other users' calls need."""
        self.name = name
        self.wait_for_host = wait_for_host
        self.read_timeout = read_timeout
        self.retries = retries
        self.refine = classify
        self.headers = {
            "User-Agent": user_agent,
            "Accept-Encoding": "gzip, deflate",
            "Accept": "*/*",
            "Connection": "keep-alive",
        }
        # Enough kept-alive connections for the scheduler's concurrent calls to one host.
        self.pools = _Pools(_TLS)
        # Pools pinned to checked addresses of user-chosen hosts, most recently used last.
        self.pinned: OrderedDict[tuple[str, str, int, str], _Pools] = OrderedDict()
        self.pinned_lock = threading.Lock()

    def _pinned_pool(self, target: Target) -> HTTPConnectionPool:
        """The pool pinned to a checked address, kept for the next call there with its
        kept-alive connections (a new one for each call cost a guarded call twice the CPU of a
        plain one, docs/performance.md). A new DNS answer gets pools of their own; past
        PINNED_SESSIONS the least recently used ones are closed."""
        key = (target.scheme, target.host, target.port, target.address)
        evicted = None
        with self.pinned_lock:
            pools = self.pinned.get(key)
            if pools is not None:
                self.pinned.move_to_end(key)
            else:
                pools = self.pinned[key] = _pinned_pools(target)
                if len(self.pinned) > PINNED_SESSIONS:
                    evicted = self.pinned.popitem(last=False)[1]
        if evicted is not None:
            evicted.clear()
        return pools.connection_from_host(target.address, target.port, target.scheme)

    def request(
        self,
        method: str,
        url: str,
        *,
        guarded: bool = False,
        idempotent: bool | None = None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
        max_bytes: int | None = None,
        **kwargs: Any,
    ) -> Response:
        """Send one request (and its retries); the 2xx response, or an OutboundError.
        `timeout` is the call's whole budget, its retries included (connect, headers, body);
        `max_bytes` caps the answer."""
        kwargs.pop("stream", None)  # the body is always read here, capped and in time
        kwargs["max_bytes"] = max_bytes or settings.OUTBOUND_MAX_RESPONSE_BYTES
        method = method.upper()
        may_retry = idempotent if idempotent is not None else method in IDEMPOTENT_METHODS
        attempts = 1 + (self.retries if may_retry else 0)
        ends = time.monotonic() + (timeout or self.read_timeout)
        for attempt in range(1, attempts + 1):
            started = time.perf_counter()
            try:
                response = self._send(method, url, guarded, ends, headers, kwargs)
            except HostBusy as error:  # nothing was sent; waiting here would hold the thread
                self._observed(method, started, error)
                raise
            except TransientError as error:
                self._observed(method, started, error)
                wait = error.retry_after if error.retry_after is not None else 0.5 * attempt
                if (
                    attempt == attempts
                    or wait > MAX_INLINE_RETRY_WAIT_SECONDS
                    or time.monotonic() + wait >= ends
                ):
                    raise
                logger.info(
                    "%s: %s %s failed (%s); retry in %.1f s",
                    self.name,
                    method,
                    _safe(url),
                    error.message,
                    wait,
                )
                time.sleep(wait)
            except OutboundError as error:
                self._observed(method, started, error)
                raise
            else:
                self._observed(method, started, None)
                return response
        raise AssertionError("unreachable")  # pragma: no cover

    def _observed(self, method: str, started: float, error: OutboundError | None) -> None:
        """One call in the metrics (docs/operations.md): this client, the method, the outcome."""
        metrics.provider_call(
            provider=self.name,
            operation=method,
            outcome=outcome_of(error),
            seconds=time.perf_counter() - started,
        )

    def _send(
        self,
        method: str,
        url: str,
        guarded: bool,
        ends: float,
        headers: Mapping[str, str] | None,
        kwargs: dict[str, Any],
    ) -> Response:
        _check_headers(headers)
        if not guarded:
            return self._exchange(None, method, url, ends, headers, kwargs)
        target = guard_url(url)
        gate = _gate(target.host)
        taken = (
            gate.acquire(timeout=max(0.0, ends - time.monotonic()))
            if self.wait_for_host
            else gate.acquire(blocking=False)
        )
        if not taken:
            raise HostBusy(f"Too many calls to {target.host} at once; try again shortly.")
        try:
            # urllib3 would name the pool's host (the address); the server must see the name.
            default_port = 443 if target.scheme == "https" else 80
            host_header = target.host if ":" not in target.host else f"[{target.host}]"
            if target.port != default_port:
                host_header = f"{host_header}:{target.port}"
            return self._exchange(
                target, method, url, ends, {**(headers or {}), "Host": host_header}, kwargs
            )
        finally:
            gate.release()

    def _exchange(
        self,
        target: Target | None,
        method: str,
        url: str,
        ends: float,
        headers: Mapping[str, str] | None,
        kwargs: dict[str, Any],
    ) -> Response:
        """One request and its whole answer, by the call's deadline and within its size cap:
        to the pool of its host, or (`target`) the one pinned to the checked address."""
        kwargs = dict(kwargs)  # the caller's retries send the same again
        max_bytes = int(kwargs.pop("max_bytes"))
        try:
            prepared = _prepare(method, url, self.headers, headers, **kwargs)
            where = prepared.url
            if target is None:
                pool = self.pools.connection_from_host(where.host, where.port, where.scheme)
            elif where.hostname != target.host:
                raise UnsafeURL("A request left the checked host.")
            else:
                pool = self._pinned_pool(target)
        except (requests.RequestException, LocationValueError) as exc:
            # a URL or a body that cannot be sent
            raise PermanentError(f"The request could not be sent ({type(exc).__name__}).") from None
        deadline = _Deadline(ends)
        budget = max(deadline.remaining(), 0.001)
        token = _current.set(deadline)
        _watchdog.arm(deadline)
        try:
            try:
                raw = pool.urlopen(
                    method,
                    prepared.url.path,
                    body=prepared.body,
                    headers=prepared.headers,
                    retries=_NO_RETRIES,
                    redirect=False,
                    assert_same_host=False,
                    # No read timeout: the watchdog ends the call (see above).
                    timeout=(
                        _TIMEOUT
                        if budget >= CONNECT_TIMEOUT_SECONDS
                        else Timeout(connect=budget, read=None)
                    ),
                    preload_content=False,
                    decode_content=False,
                    chunked=prepared.chunked,
                )
            except (Urllib3Error, OSError) as exc:
                raise self._failure(exc, deadline, method, url) from None
            try:
                content = _read_body(raw, deadline=deadline, max_bytes=max_bytes)
            except BaseException:
                raw.close()  # its connection is not reused: the answer was not read to its end
                raise
            finally:
                raw.release_conn()
        finally:
            _watchdog.disarm(deadline)
            _current.reset(token)
        response = Response(
            raw.status, content, raw.headers, url=prepared.url.url, reason=raw.reason or ""
        )
        self._raise_for(response, method, url)
        return response

    def _failure(
        self, exc: Urllib3Error | OSError, deadline: _Deadline, method: str, url: str
    ) -> OutboundError:
        """A request that got no answer, classified (the deadline's end first: the watchdog
        cut it, whatever the exception says)."""
        connect_timeout = isinstance(exc, ConnectTimeoutError) and not isinstance(
            exc, NewConnectionError
        )  # urllib3 makes a refused connection a kind of connect timeout
        if connect_timeout or (deadline.expired and not deadline.sending):
            return TransientError("The server could not be reached in time.", timed_out=True)
        if isinstance(exc, ReadTimeoutError) or deadline.expired:
            return TransientError(
                "The server did not answer in time.", maybe_delivered=True, timed_out=True
            )
        logger.info("%s: %s %s: connection error: %s", self.name, method, _safe(url), exc)
        return TransientError(
            "The server could not be reached.", maybe_delivered=not _before_sending(exc)
        )

    def _raise_for(self, response: Response, method: str, url: str) -> None:
        """The answer's error, classified (the provider's refinement first), raised; logged at
        WARNING when the server failed (5xx) or refused our credentials (401)."""
        error = (self.refine(response) if self.refine else None) or classify(response)
        if error is not None:
            status = response.status_code
            logger.log(
                logging.WARNING if status >= 500 or status == 401 else logging.INFO,
                "%s: %s %s answered %s: %s",
                self.name,
                method,
                _safe(url),
                status,
                error.excerpt[:200],
            )
            raise error


@dataclass(frozen=True, slots=True)
class _Url:
    """A URL as requests prepares it, and where it goes: `host`, `port` and `scheme` as
    urllib3 parses them (its pool's key), `hostname` as urlsplit reads it (the guard's check)."""

    url: str
    path: str  # the request line's target: the path and query
    scheme: str
    host: str | None
    port: int | None
    hostname: str | None


# URLs already prepared, by the text the caller gave: a provider's calls name the same few
# URLs again and again, and requests' preparation of one (parsed, IDNA, requoted, parsed again
# for its pool) was a large part of a plain call's own work.
_urls: dict[str, _Url] = {}
URLS_KEPT = 1024


def _url_of(prepared: requests.PreparedRequest) -> _Url:
    parts = parse_url(str(prepared.url))
    return _Url(
        url=str(prepared.url),
        path=prepared.path_url,
        scheme=str(parts.scheme),
        host=parts.host,
        port=parts.port,
        hostname=urlsplit(str(prepared.url)).hostname,
    )


def _prepared_url(url: str) -> _Url:
    """requests' preparation of a URL without parameters (a pure function of its text), kept."""
    found = _urls.get(url)
    if found is None:
        prepared = requests.PreparedRequest()
        prepared.prepare_url(url, None)
        found = _url_of(prepared)
        if len(_urls) >= URLS_KEPT:
            _urls.clear()
        _urls[url] = found
    return found


@dataclass(frozen=True, slots=True)
class _Prepared:
    url: _Url
    headers: dict[str, str]
    body: Any
    chunked: bool  # a body of unknown length (a stream) goes in chunks, as requests sends it


def _prepare(
    method: str,
    url: str,
    defaults: Mapping[str, str],
    headers: Mapping[str, str] | None,
    *,
    params: Any = None,
    data: Any = None,
    json: Any = None,
    files: Any = None,
) -> _Prepared:
    """The request's URL, headers and body encoded as requests encodes them (a query from
    `params`, a form or bytes or a stream from `data`, `json`, multipart `files`); the
    caller's `headers` over the client's `defaults`, names compared without case. No cookie
    is sent and none is kept.

    A request without parameters whose body is JSON or nothing (a provider's create, most
    reads) is encoded here, byte for byte as requests' PreparedRequest encodes it (the same
    JSON encoding: the standard library's, which requests uses when simplejson is not
    installed, as here; the same Content-Type and Content-Length, the headers' checks), its
    URL prepared once; any other goes through PreparedRequest."""
    if params is not None or data or files:
        prepared = requests.PreparedRequest()
        prepared.prepare_method(method)
        prepared.prepare_url(url, params)
        prepared.prepare_headers({**defaults, **(headers or {})})
        prepared.prepare_body(data, files, json)
        return _Prepared(
            url=_url_of(prepared),
            headers=dict(prepared.headers.items()),
            body=prepared.body,
            chunked=not (prepared.body is None or "Content-Length" in prepared.headers),
        )
    where = _prepared_url(url)
    # Lower-cased name -> (name, value): the last one given wins, in the first one's place
    # (requests' CaseInsensitiveDict).
    fields = {name.lower(): (name, value) for name, value in defaults.items()}
    for name, value in (headers or {}).items():
        check_header_validity((name, value))
        fields[name.lower()] = (name, value)
    body: bytes | None = None
    if json is not None:
        try:
            body = json_dumps(json, allow_nan=False).encode("utf-8")
        except ValueError as exc:
            raise requests.exceptions.InvalidJSONError(exc) from None
        fields["content-length"] = ("Content-Length", str(len(body)))
        fields.setdefault("content-type", ("Content-Type", "application/json"))
    elif method not in ("GET", "HEAD") and "content-length" not in fields:
        fields["content-length"] = ("Content-Length", "0")
    return _Prepared(url=where, headers=dict(fields.values()), body=body, chunked=False)


def _read_body(raw: BaseHTTPResponse, *, deadline: _Deadline, max_bytes: int) -> bytes:
    """The answer's body, read in chunks: past `max_bytes` (or a declared Content-Length past
    it) a permanent error, cut by the deadline a transient one (the request was sent: maybe
    delivered). Its size is counted decoded (a compressed answer's cap is on what it becomes)."""
    declared = raw.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise PermanentError(f"The answer is larger than {max_bytes} bytes.", status=raw.status)
    # An answer of a declared length, not encoded, is whole once that many bytes came: no
    # read after them to learn it (urllib3 ends the answer with its last byte).
    whole = int(declared) if declared.isdigit() and "Content-Encoding" not in raw.headers else -1
    chunks: list[bytes] = []
    size = 0
    try:
        # read1: what has arrived (up to a chunk), so a large answer is refused once past the
        # cap, never read whole.
        while chunk := raw.read1(CHUNK_BYTES, decode_content=True):
            size += len(chunk)
            if size > max_bytes:
                raise PermanentError(
                    f"The answer is larger than {max_bytes} bytes.", status=raw.status
                )
            chunks.append(chunk)
            if size == whole:
                break
    except (Urllib3Error, OSError) as exc:
        timed_out = deadline.expired or isinstance(exc, TimeoutError | ReadTimeoutError)
        raise TransientError(
            "The server did not finish answering in time."
            if timed_out
            else "The connection broke while the server answered.",
            maybe_delivered=True,
            timed_out=timed_out,
        ) from None
    if deadline.expired:  # the watchdog's shutdown reads as the answer's end
        raise TransientError(
            "The server did not finish answering in time.", maybe_delivered=True, timed_out=True
        )
    return b"".join(chunks)


def _check_headers(headers: Mapping[str, str] | None) -> None:
    """Header values often carry user text (an API key, a token): one that HTTP cannot carry
    (outside Latin-1, or with a line break that would start another header) is refused as a
    permanent error before anything is sent, never a UnicodeEncodeError out of http.client."""
    for name, value in (headers or {}).items():
        try:
            str(value).encode("latin-1")
        except UnicodeEncodeError:
            raise PermanentError(f"The {name} header cannot carry these characters.") from None
        if "\r" in value or "\n" in value or "\0" in value:
            raise PermanentError(f"The {name} header cannot carry a line break.")


def _before_sending(exc: BaseException) -> bool:
    """True when the connection was never made (nothing can have reached the server), or no
    connection was taken at all: kept pools closed (Client._pinned_pool) as the call went to
    take one from them."""
    pending: list[Any] = [exc]
    seen: set[int] = set()
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(
            current,
            NewConnectionError | ConnectionRefusedError | socket.gaierror | ClosedPoolError,
        ):
            return True
        if isinstance(current, BaseException):
            # urllib3 wraps the socket's error (args, or a MaxRetryError's `reason`).
            pending.extend(
                [current.__cause__, current.__context__, getattr(current, "reason", None)]
            )
            pending.extend(arg for arg in current.args if isinstance(arg, BaseException))
    return False


def _safe(url: str) -> str:
    """A URL for the log: no query string (tokens travel there on some APIs)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"
