"""Atomic fixed-window counters in the shared cache: the edge limit, login failures, magic links.

One policy for every counter when its store (Redis) is down: fail open. The request is let
through uncounted and a warning is logged, whichever counter it was; an outage of the counter
store must not take sign-in or the API down with it, and the edge limiter and the login limits
must not disagree about it.
"""

import fcntl
import hashlib
import ipaddress
import logging
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from redis.exceptions import RedisError

from core.redis import get_redis

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Window:
    """The state of one counter after a hit."""

    limit: int
    count: int
    reset: int  # whole seconds until the window ends
    counted: bool = True  # False: the store was down and nothing was counted (fail open)

    @property
    def remaining(self) -> int:
        return max(self.limit - self.count, 0)

    @property
    def exceeded(self) -> bool:
        return self.count > self.limit


def client_ip(request: HttpRequest) -> str:
    """The socket's address, or the one `TRUSTED_PROXY_COUNT` proxies vouch for.

    Each trusted proxy appends the address it saw to `X-Forwarded-For`, so the client is the
    n-th entry from the right; entries further left are whatever the client chose to send.
    """
    return client_address(
        remote=request.META.get("REMOTE_ADDR", ""),
        forwarded_for=request.META.get("HTTP_X_FORWARDED_FOR", ""),
    )


def client_address(*, remote: str, forwarded_for: str) -> str:
    """`client_ip` from the socket's address and the X-Forwarded-For header (also for the
    live feed's stream, which is served outside Django's request objects)."""
    trusted = settings.TRUSTED_PROXY_COUNT
    if trusted > 0:
        hops = [h.strip() for h in forwarded_for.split(",")]
        hops = [h for h in hops if h]
        if len(hops) >= trusted:
            remote = hops[-trusted]
    try:
        address = ipaddress.ip_address(remote)
    except ValueError:
        return remote or "unknown"
    if address.version == 6:
        # One IPv6 subscriber usually holds a whole /64: count the prefix, not the address.
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def _key(key: str) -> str:
    return f"{settings.RATE_LIMIT_KEY_PREFIX}:{key}"


def _uncounted(key: str, *, limit: int, period: int) -> Window:
    logger.warning(
        "Rate-limit store unavailable; %s not counted (failing open)", key, exc_info=True
    )
    return Window(limit=limit, count=0, reset=period, counted=False)


def hit(key: str, *, limit: int, period: int) -> Window:
    """Count one request against `key`; the window starts at the key's first request."""
    full_key = _key(key)
    if not settings.REDIS_URL:
        if settings.RATE_LIMIT_FILE_DIR:
            return _hit_file(full_key, limit=limit, period=period, count=True)
        return _hit_cache(full_key, limit=limit, period=period)
    try:
        return _hit_redis(full_key, limit=limit, period=period)
    except RedisError:
        return _uncounted(key, limit=limit, period=period)


def _hit_redis(key: str, *, limit: int, period: int) -> Window:
    # One round trip, atomic (MULTI/EXEC): create the window if absent, count, read its TTL.
    pipe = get_redis().pipeline(transaction=True)
    pipe.set(key, 0, ex=period, nx=True)
    pipe.incr(key)
    pipe.pttl(key)
    _, count, ttl_ms = pipe.execute()
    return Window(limit=limit, count=int(count), reset=max(1, -(-int(ttl_ms) // 1000)))


FILE_STORE_SWEEP_EVERY = 1000  # hits, on average, between two removals of stale counters


def _counter_path(key: str) -> Path:
    folder = Path(settings.RATE_LIMIT_FILE_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    return folder / hashlib.sha256(key.encode()).hexdigest()[:40]


def _hit_file(key: str, *, limit: int, period: int, count: bool) -> Window:
    """The embedded store (no Redis): one small file per counter, read and rewritten under
    an exclusive lock, so every server process on the machine shares one count (locmem
    counted per process: two processes doubled every limit)."""
    path = _counter_path(key)
    now = time.time()
    try:
        with path.open("a+b") as file:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX)
            file.seek(0)
            started, seen = now, 0
            try:
                first, _, number = file.read().decode().partition(",")
                started, seen = float(first), int(number)
            except ValueError:
                pass
            if now >= started + period:
                started, seen = now, 0
            if count:
                seen += 1
                file.seek(0)
                file.truncate()
                file.write(f"{started!r},{seen}".encode())
    except OSError:
        return _uncounted(key, limit=limit, period=period)
    if count and random.randrange(FILE_STORE_SWEEP_EVERY) == 0:  # noqa: S311 (not security)
        _sweep(path.parent)
    return Window(limit=limit, count=seen, reset=max(1, int(started + period - now + 0.999)))


def _sweep(folder: Path) -> None:
    """Remove counters untouched for a day (their windows ended long ago)."""
    stale = time.time() - 86400
    for entry in os.scandir(folder):
        try:
            if entry.stat().st_mtime < stale:
                os.unlink(entry.path)
        except OSError:
            continue


def _hit_cache(key: str, *, limit: int, period: int) -> Window:
    # Django's cache add() and incr() are each atomic; locmem serves one process.
    now = time.time()
    started_key = f"{key}:start"
    cache.add(started_key, now, period)
    cache.add(key, 0, period)
    try:
        count = cache.incr(key)
    except ValueError:  # the window expired between add() and incr()
        cache.add(started_key, now, period)
        cache.add(key, 1, period)
        count = 1
    started = cache.get(started_key, now)
    return Window(limit=limit, count=count, reset=max(1, int(started + period - now + 0.999)))


def peek(key: str, *, limit: int, period: int) -> Window:
    """The counter's state without counting (for limits on failures, checked before work)."""
    full_key = _key(key)
    if settings.REDIS_URL:
        try:
            pipe = get_redis().pipeline(transaction=False)
            pipe.get(full_key)
            pipe.pttl(full_key)
            count, ttl_ms = pipe.execute()
        except RedisError:
            return _uncounted(key, limit=limit, period=period)
        return Window(limit=limit, count=int(count or 0), reset=max(1, -(-int(ttl_ms) // 1000)))
    if settings.RATE_LIMIT_FILE_DIR:
        return _hit_file(full_key, limit=limit, period=period, count=False)
    now = time.time()
    count = cache.get(full_key, 0)
    started = cache.get(f"{full_key}:start", now)
    return Window(limit=limit, count=count, reset=max(1, int(started + period - now + 0.999)))


def reset(key: str) -> None:
    full_key = _key(key)
    if not settings.REDIS_URL:
        if settings.RATE_LIMIT_FILE_DIR:
            _counter_path(full_key).unlink(missing_ok=True)
        cache.delete_many([full_key, f"{full_key}:start"])
        return
    try:
        get_redis().delete(full_key)
    except RedisError:
        logger.warning("Rate-limit store unavailable; %s not reset", key, exc_info=True)


def stamp(key: str, *, period: int) -> None:
    """Remember now as the last event of `key` for `period` seconds (progressive delays)."""
    full_key = f"{_key(key)}:last"
    now = time.time()
    if not settings.REDIS_URL:
        cache.set(full_key, now, period)
        return
    try:
        get_redis().set(full_key, repr(now), ex=period)
    except RedisError:
        logger.warning("Rate-limit store unavailable; %s not stamped", key, exc_info=True)


def last(key: str) -> float | None:
    """When `key` was last stamped (Unix seconds), None if never or the store is down."""
    full_key = f"{_key(key)}:last"
    if not settings.REDIS_URL:
        value = cache.get(full_key)
        return float(value) if value is not None else None
    try:
        raw = get_redis().get(full_key)
    except RedisError:
        logger.warning(
            "Rate-limit store unavailable; %s not read (failing open)", key, exc_info=True
        )
        return None
    return float(raw) if raw is not None else None
