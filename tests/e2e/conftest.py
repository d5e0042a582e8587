"""The end-to-end tests' services: each test a fresh database and a flushed Redis database, as a
fresh `make run` would have, so that one test's user never holds an account (the stand-ins'
identities are fixed) another test's user connects. They run only when asked (`-m e2e`)."""

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.harness import admin_execute, with_database

POSTGRES_SCHEMES = ("postgres", "postgresql", "pgsql")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Each walks `make run` for a minute or more: `make test`'s stages leave them to `.ci/run`.
    if "e2e" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="end to end: run with -m e2e (.ci/run does)")
    for item in items:
        if item.get_closest_marker("e2e"):
            item.add_marker(skip)


@pytest.fixture
def services(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment of this test's `make run`: DATABASE_URL a new database (on DATABASE_URL's
    PostgreSQL server, dropped after; else an SQLite file in a temporary folder), REDIS_URL's
    database flushed first (else the embedded broker in the temporary folder)."""
    env = {"CELERY_DATA_DIR": str(tmp_path / "celery")}
    redis_url = os.environ.get("REDIS_URL", "")
    if redis_url:
        import redis

        redis.Redis.from_url(redis_url, socket_timeout=5).flushdb()
    server = os.environ.get("DATABASE_URL", "")
    if not server or urlsplit(server).scheme not in POSTGRES_SCHEMES:
        yield {**env, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
        return
    name = f"e2e_{request.node.name.removeprefix('test_')}_{uuid.uuid4().hex[:8]}"
    admin_execute(server, f'CREATE DATABASE "{name}"')
    try:
        yield {**env, "DATABASE_URL": with_database(server, name)}
    finally:
        admin_execute(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
