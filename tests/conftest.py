"""Shared fixtures: the users every package signs in as, API clients, on-commit work, isolated
rate-limit counters and a real Redis. A fixture's name means the same thing in every package."""

import os
import subprocess
import uuid
from collections.abc import Iterator

import pytest
import redis
from django.conf import LazySettings
from rest_framework.test import APIClient

from accounts.models import User
from health import checks
from tests.factories import UserFactory, client_for


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def ada(db) -> User:
    """A user as sign-up makes one (starting credits included), with no password."""
    return UserFactory.create(email="ada@example.com", full_name="Ada")


@pytest.fixture
def ada_client(ada) -> APIClient:
    return client_for(ada)


@pytest.fixture
def bob(db) -> User:
    """A second user, for what one user must not see or change of another's."""
    return UserFactory.create(email="bob@example.com", full_name="Bob")


@pytest.fixture
def bob_client(bob) -> APIClient:
    return client_for(bob)


@pytest.fixture
def ada_with_password(db) -> User:
    """Ada as `ada`, who also set the password "correct-horse" to sign in with."""
    return UserFactory.create(email="ada@example.com", full_name="Ada", password="correct-horse")


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """`with committed(): ...`: on-commit work (queued tasks, outbox dispatch) queued inside
    runs as a committed transaction would run it; yields the callbacks."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


@pytest.fixture
def admin_client(client, db):
    """Django's test client signed in to the admin as a superuser."""
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


@pytest.fixture(autouse=True)
def _processes_only_in_server_tests(request: pytest.FixtureRequest, monkeypatch) -> None:
    # A test that starts another process (the real server, a worker, manage.py, a settings
    # check) is slow: it runs in `make pytest`'s second stage, so it must say so.
    if request.node.get_closest_marker("server") is not None:
        return

    def refuse(*args: object, **kwargs: object) -> None:
        command = args[0] if args else kwargs.get("args")
        pytest.fail(
            f"{request.node.nodeid} starts a process ({command!r}): mark it "
            "@pytest.mark.server (it then runs in the server stage of `make pytest`)",
            pytrace=False,
        )

    monkeypatch.setattr(subprocess, "Popen", refuse)


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
