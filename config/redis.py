"""One shared Redis client per process, with short timeouts, for what the cache API lacks."""

from functools import cache

import redis
from django.conf import settings


@cache
def get_redis() -> "redis.Redis":
    return redis.Redis.from_url(
        settings.REDIS_URL,
        socket_connect_timeout=settings.REDIS_SOCKET_CONNECT_TIMEOUT,
        socket_timeout=settings.REDIS_SOCKET_TIMEOUT,
        health_check_interval=30,
    )
