"""The readiness checks behind GET /api/health, each bounded in time."""

import logging
import threading
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache
from django.db import connections

import config
from config.redis import get_redis
from aitools.providers import provider_readiness
from health.apps import PROCESS_STARTED

logger = logging.getLogger(__name__)

# libpq will not give up on a connect in under 2 s; the probe must answer within 1 s,
# so the query runs in a helper thread and the probe stops waiting at this deadline.
DATABASE_DEADLINE_SECONDS = 0.8
_CACHE_KEY = f"health:{uuid.uuid4().hex}"

_executor: ThreadPoolExecutor | None = None
_inflight: "Future[None] | None" = None
_lock = threading.Lock()


@dataclass
class HealthReport:
    services: dict[str, str]
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def _select_one() -> None:
    connection = connections["default"]
    # The probe thread never passes through Django's per-request connection cleanup, so a
    # connection broken since the last probe (a database restart) is retried once, fresh.
    attempts = 2 if connection.connection is not None else 1
    for attempt in range(attempts):
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
                cursor.fetchone()
            return
        except Exception:
            connection.close()
            if attempt == attempts - 1:
                raise


def _start_database_check() -> "Future[None]":
    """SELECT 1 on the probe thread's own persistent connection.

    Concurrent probes share one in-flight query, so a hung database never piles up threads.
    """
    global _executor, _inflight
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="health-db")
        if _inflight is None or _inflight.done():
            _inflight = _executor.submit(_select_one)
        return _inflight


def _database_error(future: "Future[None]", timeout: float) -> str | None:
    try:
        future.result(timeout=max(timeout, 0))
    except FutureTimeout:
        return f"database: no answer within {DATABASE_DEADLINE_SECONDS} s"
    except Exception as exc:
        logger.warning("Health check: database unavailable", exc_info=exc)
        return f"database: unavailable ({type(exc).__name__})"
    return None


def close_database_probe() -> None:
    """Close the probe thread's connection (tests call this before dropping the database)."""
    with _lock:
        if _executor is not None:
            _executor.submit(connections.close_all).result(timeout=5)


def check_cache() -> str | None:
    """A set/get round trip of a fresh value; on Redis, one pipelined round trip."""
    token = uuid.uuid4().hex
    try:
        if settings.REDIS_URL:
            pipe = get_redis().pipeline(transaction=False)
            pipe.set(_CACHE_KEY, token, ex=30)
            pipe.get(_CACHE_KEY)
            read = pipe.execute()[1]
            read = read.decode() if isinstance(read, bytes) else read
        else:
            cache.set(_CACHE_KEY, token, 30)
            read = cache.get(_CACHE_KEY)
        if read != token:
            return "cache: value read back differs from the value written"
    except Exception as exc:
        logger.warning("Health check: cache unavailable", exc_info=True)
        return f"cache: unavailable ({type(exc).__name__})"
    return None


def run_checks() -> HealthReport:
    """Database and cache are checked side by side; the whole probe ends within 1 s."""
    started = time.monotonic()
    database = _start_database_check()
    cache_error = check_cache()
    readiness = provider_readiness()
    database_error = _database_error(
        database, timeout=started + DATABASE_DEADLINE_SECONDS - time.monotonic()
    )
    return HealthReport(
        services={
            "database": "disconnected" if database_error else "connected",
            "cache": "disconnected" if cache_error else "connected",
            "aiProviderProxy": "ready" if readiness.ready else "unavailable",
        },
        errors=[
            error for error in (database_error, cache_error, readiness.reason or None) if error
        ],
    )


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def uptime_seconds() -> float:
    return round(time.monotonic() - PROCESS_STARTED, 3)


def version() -> str:
    return config.__version__


def environment() -> str:
    return str(settings.ENVIRONMENT)
