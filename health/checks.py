"""The readiness checks behind GET /api/health, each bounded in time."""

import logging
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache
from django.db import connections

import core
from aitools.providers import provider_readiness
from core.redis import get_redis
from health import postgres
from health.apps import PROCESS_STARTED

logger = logging.getLogger(__name__)

DATABASE_DEADLINE_SECONDS = 0.8
_CACHE_KEY = f"health:{uuid.uuid4().hex}"


@dataclass
class HealthReport:
    services: dict[str, str]
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def run_checks() -> HealthReport:
    """Database, cache and AI provider; the whole probe ends within 1 s.

    On PostgreSQL the SELECT 1 is sent first and read last, so its round trip overlaps the
    cache's instead of adding to it.
    """
    connection = connections["default"]
    query = None
    database_error = None
    if connection.vendor == "postgresql":
        query = postgres.start(
            connection.settings_dict, deadline=time.monotonic() + DATABASE_DEADLINE_SECONDS
        )
    else:
        try:  # an embedded database has no network to hang on
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
                cursor.fetchone()
        except Exception as exc:
            database_error = _database_error(exc)
    cache_error = check_cache()
    readiness = provider_readiness()
    if query is not None:
        try:
            postgres.finish(query)
        except Exception as exc:
            database_error = _database_error(exc)
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


def _database_error(exc: BaseException) -> str:
    if isinstance(exc, postgres.ProbeTimeout):
        return f"database: no answer within {DATABASE_DEADLINE_SECONDS} s"
    logger.warning("Health check: database unavailable", exc_info=exc)
    return f"database: unavailable ({type(exc).__name__})"


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


def close_database_probe() -> None:
    """Close this thread's probe connection (tests do, before the test database is dropped)."""
    postgres.close()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def uptime_seconds() -> float:
    return round(time.monotonic() - PROCESS_STARTED, 3)


def version() -> str:
    return core.__version__


def environment() -> str:
    return str(settings.ENVIRONMENT)
