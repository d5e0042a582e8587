"""Shared fixtures: API clients, isolated rate-limit counters, real Redis and server helpers."""

import os
import uuid
from collections.abc import Iterator

import pytest
import redis
from django.conf import LazySettings
from rest_framework.test import APIClient

from health import checks


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def admin_client(client, db):
    """Django's test client signed in to the admin as a superuser."""
    from accounts.models import User

    admin = User.objects.create_superuser(email="ops@example.com", password="s3cret-pass")
    client.force_login(admin)
    return client


@pytest.fixture(autouse=True)
def _isolated_rate_limit(settings: LazySettings) -> None:
    # Every test counts from zero, also when the counters live in a shared Redis.
    settings.RATE_LIMIT_KEY_PREFIX = f"test-rl-{uuid.uuid4().hex}"


@pytest.fixture(autouse=True)
def _close_health_probe_connection() -> Iterator[None]:
    # The health probe keeps a connection in its own thread; the test database must be
    # droppable after the session, so that connection is closed after every test.
    yield
    checks.close_database_probe()


@pytest.fixture
def redis_url() -> str:
    """A real Redis: REDIS_URL (as in CI) or the local default. Never a stand-in."""
    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=0.5).ping()
    except redis.RedisError as exc:
        if os.environ.get("REDIS_URL"):
            raise  # configured but down: a failure, not a skip
        pytest.skip(f"no Redis at {url}: {exc}")
    return url


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from django.conf import settings

    on_postgres = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    if on_postgres:
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL (DATABASE_URL); CI runs it")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)
