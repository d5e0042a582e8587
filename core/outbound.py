"""The one way out of the process: every call to a provider's API or to a URL a user gave us.

- One pooled `requests` session per client (a provider, the AI server, webhooks), connect
  timeout 5 s and a read timeout on every call; no call without a timeout exists.
- Failures are classified once, here: `TransientError` (timeout, connection error, 408, 429,
  5xx: try again later, `retry_after` when the server said so, `maybe_delivered` when the
  request may have reached the server and done its work), `AuthenticationError` (401, 403: the
  credentials are no good), `PermanentError` (any other 4xx, a refused URL: do not retry).
  A client can refine this for a provider that signals errors in its body (`classify`).
- Reads and other idempotent requests (GET, HEAD, PUT, DELETE, OPTIONS, or a POST the caller
  marks `idempotent` because repeating it creates nothing, e.g. a token revocation) are
  retried on transient failures, a few times, honouring `Retry-After` when it is short;
  longer waits go back to the caller. A create (a POST that publishes) is never marked so,
  even when it carries an Idempotency-Key: it is sent once per attempt, and its retry is the
  caller's next attempt, counted and subject to the user's `autoRetry` (social.md section 5).
- User-given URLs go through the guard (`guarded=True`): https only, the host resolves to
  public addresses only (not private, loopback, link-local, multicast, reserved or
  unspecified, IPv4-mapped ones included), and the connection is pinned to the address that
  was checked, so a second DNS answer cannot point it elsewhere (DNS rebinding). Redirects are
  never followed for them. `OUTBOUND_ALLOW_PRIVATE` (development and tests only; production
  refuses to start with it) lets http and private addresses through, still pinned.
- Every call has a total deadline, not only a timeout per socket read: the answer's body is
  read here in chunks and the call fails (transient, maybe delivered) once its time is up, so a
  server dripping a byte a second cannot hold a thread for minutes; and a size cap
  (`OUTBOUND_MAX_RESPONSE_BYTES`, or the caller's `max_bytes`): a larger answer is a permanent
  error, never read into memory whole. (The status line and headers are bounded by the
  per-read timeout only: requests cannot put a wall-clock limit on them.)
- Calls to user-chosen hosts made inside `bounded_per_host()` (connecting an account: web
  requests) are bounded: at most `OUTBOUND_PER_HOST_CONCURRENCY` of one client to one such
  host at once; a call beyond it fails at once as busy (transient), so a slow instance ties up
  a few threads of its own users' requests, never the server's. Workers (the scheduler,
  webhook deliveries) bound their own concurrency and are not gated: many users share one
  Mastodon instance, and their scheduled posts must not fail as busy.
- Nothing here touches the database: callers hold no transaction or row lock while waiting.
"""

import http.client
import ipaddress
import json
import logging
import os
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers
from urllib3.exceptions import HTTPError as Urllib3Error
from urllib3.exceptions import NewConnectionError
from urllib3.util.wait import wait_for_read

from core import metrics, telemetry

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT_SECONDS = 5.0
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
MAX_INLINE_RETRY_WAIT_SECONDS = 5.0  # a longer Retry-After is the caller's to schedule
EXCERPT_BYTES = 1024
POOL_SIZE = 64  # connections kept per host and client
CHUNK_BYTES = 64 * 1024  # an answer's body is read this much at a time, the deadline checked
MAX_HEADER_LINE, MAX_HEADER_FIELDS = 65536, 100  # an answer's header, as http.client bounds it


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


class PermanentError(OutboundError):
    """Do not retry: the request itself is wrong (4xx) or not allowed."""


class AuthenticationError(PermanentError):
    """The credentials were refused (401, 403, or a provider's own token-invalid signal)."""


class UnsafeURL(PermanentError):
    """The guard refused a user-given URL (scheme, or an address that is not public)."""


_bounded: ContextVar[bool] = ContextVar("outbound_bounded_per_host", default=False)


@contextmanager
def bounded_per_host() -> Iterator[None]:
    """Within it, calls to a user-chosen host are gated per host (see the module docstring)."""
    token = _bounded.set(True)
    try:
        yield
    finally:
        _bounded.reset(token)


# A provider's refinement: look at a response, return the error to raise, or None to keep the
# default classification by status code.
Classifier = Callable[[requests.Response], OutboundError | None]


def excerpt(response: requests.Response) -> str:
    return response.content[:EXCERPT_BYTES].decode("utf-8", errors="replace")


def retry_after_seconds(response: requests.Response) -> float | None:
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


def classify(response: requests.Response) -> OutboundError | None:
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
    """Whether an address is on the public internet, looking through the IPv6 forms that
    carry an IPv4 address (mapped `::ffff:a.b.c.d`, 6to4 `2002:AABB:CCDD::`, Teredo's client
    and server): `[2002:7f00:1::]` is 127.0.0.1 for a host with a 6to4 relay route."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    candidates: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = [ip]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            candidates.append(ip.ipv4_mapped)
        if ip.sixtofour is not None:
            candidates.append(ip.sixtofour)
        if ip.teredo is not None:
            candidates.extend(ip.teredo)
    return all(
        candidate.is_global
        and not (candidate.is_multicast or candidate.is_reserved or candidate.is_unspecified)
        for candidate in candidates
    )


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


class _PinnedAdapter(HTTPAdapter):
    """Connects to the checked address while speaking to (and verifying) the host name."""

    def __init__(self, target: Target) -> None:
        self.target = target
        super().__init__(max_retries=0)

    def build_connection_pool_key_attributes(  # type: ignore[override]
        self, request: requests.PreparedRequest, verify: bool | str, cert: Any = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:  # the stubs' TypedDicts lack assert_hostname
        params, kwargs = super().build_connection_pool_key_attributes(request, verify, cert)
        host_params, pool_kwargs = dict(params), dict(kwargs)
        if host_params["host"] != self.target.host:
            raise UnsafeURL("A request left the checked host.")
        host_params["host"] = self.target.address
        if self.target.scheme == "https":
            pool_kwargs["server_hostname"] = self.target.host  # SNI
            pool_kwargs["assert_hostname"] = self.target.host  # certificate check
        return host_params, pool_kwargs


# --- The plain calls' transport ---------------------------------------------------------------


class _Lean:
    """Calls to our configured hosts (the providers' APIs, the AI server) with the common
    bodies (JSON, a form, bytes) over http.client and kept-alive connections: the same
    request, timeouts, deadline, size cap and classification as through requests, for a
    fraction of its CPU (docs/performance.md): a scheduler burst makes one call per record.
    Anything else (files, a streamed body, redirects followed, user-given URLs) goes through
    requests."""

    IDLE_PER_HOST = POOL_SIZE

    def __init__(self, user_agent: str) -> None:
        self.user_agent = user_agent
        self.lock = threading.Lock()
        self.idle: dict[tuple[str, str, int], list[http.client.HTTPConnection]] = {}
        self._tls: ssl.SSLContext | None = None
        self.pid = os.getpid()

    @staticmethod
    def takes(kwargs: Mapping[str, Any]) -> bool:
        """Whether a call's keyword arguments are ones this transport sends (and the process
        does not trace: requests' instrumentation makes the spans of traced calls)."""
        if telemetry.tracing() or kwargs.get("allow_redirects"):
            return False
        plain = {"json", "data", "params", "max_bytes", "allow_redirects"}
        data = kwargs.get("data")
        return set(kwargs) <= plain and (data is None or isinstance(data, bytes | str | dict))

    def tls(self) -> ssl.SSLContext:
        if self._tls is None:
            import certifi  # requests' own certificate bundle: the same servers trusted

            self._tls = ssl.create_default_context(cafile=certifi.where())
        return self._tls

    def exchange(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        kwargs: Mapping[str, Any],
        connect_timeout: float,
        read_timeout: float,
        deadline: float,
        max_bytes: int,
    ) -> requests.Response:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise PermanentError("The request could not be sent (InvalidURL).")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        target = parts.path or "/"
        query = parts.query
        if kwargs.get("params"):
            extra = _query_of(kwargs["params"])
            query = f"{query}&{extra}" if query else extra
        if query:
            target = f"{target}?{query}"
        body, content_type = _body_of(kwargs)
        sent = {"User-Agent": self.user_agent, "Accept": "*/*"}
        if content_type:
            sent["Content-Type"] = content_type
        sent.update(headers)
        if body is not None or method in ("POST", "PUT", "PATCH"):
            sent["Content-Length"] = str(len(body or b""))
        key = (parts.scheme, parts.hostname, port)
        conn = self._connection(key, connect_timeout)
        try:
            conn.sock.settimeout(read_timeout)
            conn.request(method, target, body=body, headers=sent)
            answer = conn.getresponse()
        except TimeoutError:
            conn.close()
            raise TransientError(
                "The server did not answer in time.", maybe_delivered=True, timed_out=True
            ) from None
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            logger.info("%s %s: connection error: %s", method, _safe(url), exc)
            raise TransientError("The server could not be reached.", maybe_delivered=True) from None
        try:
            content = _read_capped(
                answer.read1, declared=answer.getheader("Content-Length", "") or "",
                status=answer.status, deadline=deadline, max_bytes=max_bytes,
                broken=(OSError, http.client.HTTPException),
            )  # fmt: skip
        except OutboundError:
            conn.close()
            raise
        answer.close()  # read whole: the connection may take the next request
        if answer.will_close:
            conn.close()
        else:
            self._keep(key, conn)
        return _response_of(answer, url, content)

    def _connection(
        self, key: tuple[str, str, int], connect_timeout: float
    ) -> http.client.HTTPConnection:
        """A kept-alive connection to the host that is still open, or a new one."""
        if self.pid != os.getpid():  # a forked child: the parent's sockets are not its own
            self.lock, self.idle, self.pid = threading.Lock(), {}, os.getpid()
        with self.lock:
            idle = self.idle.get(key, [])
            while idle:
                conn = idle.pop()
                if conn.sock is not None and not _dropped(conn.sock):
                    return conn
                conn.close()
        scheme, host, port = key
        conn = (
            http.client.HTTPSConnection(host, port, timeout=connect_timeout, context=self.tls())
            if scheme == "https"
            else http.client.HTTPConnection(host, port, timeout=connect_timeout)
        )
        conn.response_class = _LeanResponse
        try:
            conn.connect()
        except TimeoutError:
            conn.close()
            raise TransientError(
                "The server could not be reached in time.", timed_out=True
            ) from None
        except OSError as exc:  # refused, no such host, a TLS handshake refused: nothing sent
            conn.close()
            logger.info("%s://%s:%s: cannot connect: %s", scheme, host, port, exc)
            raise TransientError("The server could not be reached.") from None
        return conn

    def _keep(self, key: tuple[str, str, int], conn: http.client.HTTPConnection) -> None:
        with self.lock:
            idle = self.idle.setdefault(key, [])
            if len(idle) < self.IDLE_PER_HOST:
                idle.append(conn)
                return
        conn.close()


class _Headers:
    """A response's header fields as http.client's readers use them (get, get_all, items),
    without its email parser, which cost a large share of a create's CPU (docs/performance.md)."""

    def __init__(self, fields: list[tuple[str, str]]) -> None:
        self.fields = fields

    def get(self, name: str, default: str | None = None) -> str | None:
        found = self.get_all(name)
        return found[0] if found else default

    def get_all(self, name: str, failobj: Any = None) -> Any:
        lower = name.lower()
        found = [value for field, value in self.fields if field.lower() == lower]
        return found or failobj

    def items(self) -> list[tuple[str, str]]:
        return list(self.fields)


class _LeanResponse(http.client.HTTPResponse):
    """http.client's response, its header fields read line by line (_Headers)."""

    def begin(self) -> None:
        if self.headers is not None:
            return
        while True:  # an interim answer (100 Continue) and its fields are skipped
            version, status, reason = self._read_status()
            fields = self._read_fields()
            if status != http.client.CONTINUE:
                break
        self.code = self.status = status
        self.reason = reason.strip()
        if version in ("HTTP/1.0", "HTTP/0.9"):
            self.version = 10
        elif version.startswith("HTTP/1."):
            self.version = 11
        else:
            raise http.client.UnknownProtocol(version)
        self.headers = self.msg = _Headers(fields)
        encoding = self.headers.get("transfer-encoding")
        self.chunked = bool(encoding and encoding.lower() == "chunked")
        self.chunk_left = None
        self.will_close = self._check_close()
        self.length = None
        length = self.headers.get("content-length")
        if length and not self.chunked:
            try:
                self.length = int(length)
            except ValueError:
                self.length = None
            if self.length is not None and self.length < 0:
                self.length = None
        if status in (204, 304) or 100 <= status < 200 or self._method == "HEAD":
            self.length = 0
        if not self.will_close and not self.chunked and self.length is None:
            self.will_close = True

    def _read_fields(self) -> list[tuple[str, str]]:
        fields: list[tuple[str, str]] = []
        while True:
            line = self.fp.readline(MAX_HEADER_LINE + 1)
            if len(line) > MAX_HEADER_LINE:
                raise http.client.LineTooLong("header line")
            if line in (b"\r\n", b"\n", b""):
                return fields
            if len(fields) >= MAX_HEADER_FIELDS:
                raise http.client.HTTPException(f"got more than {MAX_HEADER_FIELDS} headers")
            text = line.decode("iso-8859-1").rstrip("\r\n")
            if text[:1] in (" ", "\t") and fields:  # a folded line continues the last field
                name, value = fields[-1]
                fields[-1] = (name, f"{value} {text.strip()}")
                continue
            name, _, value = text.partition(":")
            fields.append((name.strip(), value.strip()))


def _dropped(sock: socket.socket) -> bool:
    """Whether a kept-alive connection was closed (or spoke out of turn) while idle (poll,
    as urllib3 looks: select() cannot watch a descriptor past 1023)."""
    try:
        return bool(wait_for_read(sock, timeout=0.0))
    except (OSError, ValueError):
        return True


def _query_of(params: Any) -> str:
    """Query parameters as requests sends them: a string as it is, pairs or a mapping encoded
    (a list value repeats its name; None leaves the name out)."""
    if isinstance(params, bytes):
        return params.decode()
    if isinstance(params, str):
        return params
    pairs = params.items() if isinstance(params, Mapping) else params
    return urlencode([(name, value) for name, value in pairs if value is not None], doseq=True)


def _body_of(kwargs: Mapping[str, Any]) -> tuple[bytes | None, str]:
    """The request's body and its Content-Type, as requests encodes them."""
    if kwargs.get("json") is not None:
        return json.dumps(kwargs["json"], allow_nan=False).encode(), "application/json"
    data = kwargs.get("data")
    if isinstance(data, dict):
        pairs = [(k, v) for k, v in data.items() if v is not None]
        return urlencode(pairs, doseq=True).encode(), "application/x-www-form-urlencoded"
    if isinstance(data, str):
        return data.encode(), ""
    return data, ""


def _read_capped(
    read1: Callable[[int], bytes],
    *,
    declared: str,
    status: int,
    deadline: float,
    max_bytes: int,
    broken: tuple[type[BaseException], ...],
) -> bytes:
    """An answer's body, read in chunks with `read1` (either transport's): past `max_bytes`
    (or a `declared` Content-Length past it) a permanent error, past the deadline a
    transient one (the request was sent: maybe delivered); `broken` are the exceptions of a
    connection that failed while the server answered."""
    if declared.isdigit() and int(declared) > max_bytes:
        raise PermanentError(f"The answer is larger than {max_bytes} bytes.", status=status)
    chunks: list[bytes] = []
    size = 0
    try:
        # read1: what has arrived (up to a chunk), not a full chunk, so a slow sender's
        # bytes come back one by one and the deadline is looked at between them.
        while chunk := read1(CHUNK_BYTES):
            size += len(chunk)
            if size > max_bytes:
                raise PermanentError(f"The answer is larger than {max_bytes} bytes.", status=status)
            chunks.append(chunk)
            if time.monotonic() > deadline:
                raise TransientError(
                    "The server did not finish answering in time.",
                    maybe_delivered=True,
                    timed_out=True,
                )
    except broken as exc:
        timed_out = isinstance(exc, TimeoutError) or "timed out" in str(exc).lower()
        raise TransientError(
            "The server did not finish answering in time."
            if timed_out
            else "The connection broke while the server answered.",
            maybe_delivered=True,
            timed_out=timed_out,
        ) from None
    return b"".join(chunks)


def _response_of(answer: http.client.HTTPResponse, url: str, content: bytes) -> requests.Response:
    """The answer as a requests Response (what the adapters and classifiers read)."""
    response = requests.Response()
    response.status_code = answer.status
    response.reason = answer.reason
    headers: dict[str, str] = {}
    for name, value in answer.getheaders():
        lower = name.lower()
        headers[lower] = f"{headers[lower]}, {value}" if lower in headers else value
    response.headers = CaseInsensitiveDict(headers)
    response.url = url
    response.encoding = get_encoding_from_headers(response.headers)
    response._content = content
    response._content_consumed = True  # type: ignore[attr-defined]
    return response


# --- The client ------------------------------------------------------------------------------


class Client:
    """One purpose's way out: a pooled session, its timeouts, retries and classification."""

    def __init__(
        self,
        name: str,
        *,
        read_timeout: float,
        retries: int = 2,
        classify: Classifier | None = None,
        user_agent: str = "FreelancerGrowthPlatform/1.0",
    ) -> None:
        self.name = name
        self.read_timeout = read_timeout
        self.retries = retries
        self.refine = classify
        self.session = requests.Session()
        # Enough kept-alive connections for the scheduler's concurrent calls to one host.
        pooled = HTTPAdapter(pool_connections=16, pool_maxsize=POOL_SIZE, max_retries=0)
        self.session.mount("https://", pooled)
        self.session.mount("http://", pooled)
        self.session.headers["User-Agent"] = user_agent
        self.session.trust_env = False  # no proxies or .netrc credentials picked up by accident
        self._hosts: dict[str, threading.BoundedSemaphore] = {}
        self._hosts_lock = threading.Lock()
        self._lean = _Lean(user_agent)

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
    ) -> requests.Response:
        """Send one request (and its retries); the 2xx response, or an OutboundError.
        `timeout` is the call's whole budget (headers and body); `max_bytes` caps the answer."""
        kwargs.pop("stream", None)  # the body is always read here, capped and in time
        kwargs["max_bytes"] = max_bytes or settings.OUTBOUND_MAX_RESPONSE_BYTES
        method = method.upper()
        may_retry = idempotent if idempotent is not None else method in IDEMPOTENT_METHODS
        attempts = 1 + (self.retries if may_retry else 0)
        for attempt in range(1, attempts + 1):
            started = time.perf_counter()
            try:
                response = self._send(method, url, guarded, timeout, headers, kwargs)
            except TransientError as error:
                self._observed(method, started, error)
                wait = error.retry_after if error.retry_after is not None else 0.5 * attempt
                if attempt == attempts or wait > MAX_INLINE_RETRY_WAIT_SECONDS:
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
        timeout: float | None,
        headers: Mapping[str, str] | None,
        kwargs: dict[str, Any],
    ) -> requests.Response:
        _check_headers(headers)
        if not guarded:
            return self._exchange(self.session, method, url, False, timeout, headers, kwargs)
        target = guard_url(url)
        if not _bounded.get():
            return self._send_guarded(target, method, url, timeout, headers, kwargs)
        gate = self._gate(target.host)
        if not gate.acquire(blocking=False):
            raise TransientError(
                f"Too many calls to {target.host} at once; try again shortly.", status=None
            )
        try:
            return self._send_guarded(target, method, url, timeout, headers, kwargs)
        finally:
            gate.release()

    def _gate(self, host: str) -> threading.BoundedSemaphore:
        with self._hosts_lock:
            gate = self._hosts.get(host)
            if gate is None:
                gate = threading.BoundedSemaphore(settings.OUTBOUND_PER_HOST_CONCURRENCY)
                self._hosts[host] = gate
            return gate

    def _send_guarded(
        self,
        target: Target,
        method: str,
        url: str,
        timeout: float | None,
        headers: Mapping[str, str] | None,
        kwargs: dict[str, Any],
    ) -> requests.Response:
        # A session of its own, pinned to the checked address, used for this call only.
        session = requests.Session()
        session.trust_env = False
        session.headers.update(self.session.headers)
        session.mount(f"{target.scheme}://", _PinnedAdapter(target))
        kwargs["allow_redirects"] = False
        # urllib3 would name the pool's host (the address); the server must see the name.
        default_port = 443 if target.scheme == "https" else 80
        host_header = target.host if ":" not in target.host else f"[{target.host}]"
        if target.port != default_port:
            host_header = f"{host_header}:{target.port}"
        try:
            return self._exchange(
                session, method, url, True, timeout, {**(headers or {}), "Host": host_header},
                kwargs,
            )  # fmt: skip
        finally:
            session.close()

    def _exchange(
        self,
        session: requests.Session,
        method: str,
        url: str,
        guarded: bool,
        timeout: float | None,
        headers: Mapping[str, str] | None,
        kwargs: dict[str, Any],
    ) -> requests.Response:
        """One request and its whole answer, within the call's budget and size cap."""
        budget = timeout or self.read_timeout
        deadline = time.monotonic() + budget
        if not guarded and _Lean.takes(kwargs):
            response = self._lean.exchange(
                method, url, headers=dict(headers or {}), kwargs=kwargs,
                connect_timeout=min(CONNECT_TIMEOUT_SECONDS, budget), read_timeout=budget,
                deadline=deadline, max_bytes=int(kwargs["max_bytes"]),
            )  # fmt: skip
            self._raise_for(response, method, url)
            return response
        kwargs = dict(kwargs)  # the caller's retries send the same again
        max_bytes = int(kwargs.pop("max_bytes"))
        if not guarded:
            kwargs.setdefault("allow_redirects", False)
        try:
            response = session.request(
                method,
                url,
                headers=dict(headers or {}),
                timeout=(min(CONNECT_TIMEOUT_SECONDS, budget), budget),
                stream=True,
                **kwargs,
            )
        except requests.ConnectTimeout:
            raise TransientError(
                "The server could not be reached in time.", timed_out=True
            ) from None
        except requests.ReadTimeout:
            raise TransientError(
                "The server did not answer in time.", maybe_delivered=True, timed_out=True
            ) from None
        except requests.ConnectionError as exc:
            refused = _before_sending(exc)
            logger.info("%s: %s %s: connection error: %s", self.name, method, _safe(url), exc)
            raise TransientError(
                "The server could not be reached.", maybe_delivered=not refused
            ) from None
        except requests.RequestException as exc:
            raise PermanentError(f"The request could not be sent ({type(exc).__name__}).") from None
        try:
            _read_body(response, deadline=deadline, max_bytes=max_bytes)
        finally:
            response.close()
        self._raise_for(response, method, url)
        return response

    def _raise_for(self, response: requests.Response, method: str, url: str) -> None:
        """The answer's error, classified (the provider's refinement first), raised."""
        error = (self.refine(response) if self.refine else None) or classify(response)
        if error is not None:
            logger.info(
                "%s: %s %s answered %s: %s",
                self.name,
                method,
                _safe(url),
                response.status_code,
                error.excerpt[:200],
            )
            raise error


def _read_body(response: requests.Response, *, deadline: float, max_bytes: int) -> None:
    """Read the answer's body into the response (_read_capped)."""
    response._content = _read_capped(  # what requests' .content and .json() read
        lambda size: response.raw.read1(size, decode_content=True),
        declared=response.headers.get("Content-Length", ""),
        status=response.status_code,
        deadline=deadline,
        max_bytes=max_bytes,
        broken=(Urllib3Error, OSError),
    )
    response._content_consumed = True  # type: ignore[attr-defined]


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


def _before_sending(exc: requests.ConnectionError) -> bool:
    """True when the connection was never made (nothing can have reached the server)."""
    pending: list[Any] = [exc]
    seen: set[int] = set()
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, NewConnectionError | ConnectionRefusedError | socket.gaierror):
            return True
        if isinstance(current, BaseException):
            # requests wraps urllib3's MaxRetryError (args[0]), which names its `reason`.
            pending.extend(
                [current.__cause__, current.__context__, getattr(current, "reason", None)]
            )
            pending.extend(arg for arg in current.args if isinstance(arg, BaseException))
    return False


def _safe(url: str) -> str:
    """A URL for the log: no query string (tokens travel there on some APIs)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"
