"""One shared Redis client per process, with short timeouts, for what the cache API lacks."""

from functools import cache

import redis
from django.conf import settings


def get_redis() -> "redis.Redis":
    return _client(settings.REDIS_URL)


@cache
def _client(url: str) -> "redis.Redis":
    return redis.Redis.from_url(
        url,
        socket_connect_timeout=settings.REDIS_SOCKET_CONNECT_TIMEOUT,
        socket_timeout=settings.REDIS_SOCKET_TIMEOUT,
        health_check_interval=30,
    )
