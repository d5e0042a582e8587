"""The end-to-end tests' services: each test a fresh database and a flushed Redis database, as a
fresh `make run` would have, so that one test's user never holds an account (the stand-ins'
identities are fixed) another test's user connects. They run only when asked (`-m e2e`), on
pytest-xdist workers too (`.ci/run` runs three): a test's `make run` keeps its Celery files,
beat's schedule and uploads in the test's temporary folder, and a worker's tests use a Redis
database of their own (REDIS_URL's, plus the worker's number).

The databases are copies of one migrated once for the run (PostgreSQL's `CREATE DATABASE ...
TEMPLATE`, or the SQLite file copied): each `make run` still runs `migrate`, which finds every
migration applied, as on a server's second start. Migrating a fresh database is what the smoke
stage and a fresh clone's `make run` check; here it would only repeat the same minute of work."""

import os
import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.harness import ROOT, admin_execute, with_database

POSTGRES_SCHEMES = ("postgres", "postgresql", "pgsql")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Each walks `make run` for a minute or more: `make test`'s stages leave them to `.ci/run`.
    if "e2e" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="end to end: run with -m e2e (.ci/run does)")
    for item in items:
        if item.get_closest_marker("e2e"):
            item.add_marker(skip)


def _on_postgres() -> str:
    """DATABASE_URL when it names a PostgreSQL server, else ""."""
    server = os.environ.get("DATABASE_URL", "")
    return server if server and urlsplit(server).scheme in POSTGRES_SCHEMES else ""


def _migrate(database_url: str) -> None:
    """`manage.py migrate` on `database_url`, with the settings `make run` uses."""
    env = {**os.environ, "DATABASE_URL": database_url}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=300,
    )


def _redis_of_this_worker(url: str) -> str:
    """REDIS_URL's database, plus the pytest-xdist worker's number (gw2: two more)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    index = int(worker.removeprefix("gw")) if worker.startswith("gw") else 0
    parts = urlsplit(url)
    database = int(parts.path.lstrip("/") or 0) + index
    return urlunsplit(parts._replace(path=f"/{database}"))


@pytest.fixture(scope="session")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The database every test's own is copied from, migrated once: its name on DATABASE_URL's
    PostgreSQL server (dropped after the run), else the path of an SQLite file."""
    server = _on_postgres()
    if not server:
        path = tmp_path_factory.mktemp("migrated") / "db.sqlite3"
        _migrate(f"sqlite:///{path}")
        yield str(path)
        return
    name = f"e2e_template_{uuid.uuid4().hex[:8]}"
    admin_execute(server, f'CREATE DATABASE "{name}"')
    try:
        _migrate(with_database(server, name))
        yield name
    finally:
        admin_execute(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def services(
    request: pytest.FixtureRequest, tmp_path: Path, migrated: str
) -> Iterator[dict[str, str]]:
    """The environment of this test's `make run`: DATABASE_URL a new database, a copy of the
    migrated one (on DATABASE_URL's PostgreSQL server, dropped after; else an SQLite file in a
    temporary folder), this worker's Redis database flushed first (else the embedded broker in
    the temporary folder), Celery's files and the uploads in the temporary folder."""
    env = {"CELERY_DATA_DIR": str(tmp_path / "celery"), "MEDIA_ROOT": str(tmp_path / "media")}
    if os.environ.get("REDIS_URL"):
        import redis

        env["REDIS_URL"] = _redis_of_this_worker(os.environ["REDIS_URL"])
        redis.Redis.from_url(env["REDIS_URL"], socket_timeout=5).flushdb()
    server = _on_postgres()
    if not server:
        shutil.copyfile(migrated, tmp_path / "db.sqlite3")
        yield {**env, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
        return
    test = re.sub(r"\W+", "_", request.node.name.removeprefix("test_")).strip("_")
    name = f"e2e_{test}_{uuid.uuid4().hex[:8]}"
    admin_execute(server, f'CREATE DATABASE "{name}" TEMPLATE "{migrated}"')
    try:
        yield {**env, "DATABASE_URL": with_database(server, name)}
    finally:
        admin_execute(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
