"""Start the real server for tests that need one, a database file or two processes (through
the one harness, tests/harness.py)."""

import atexit
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from pathlib import Path

from tests.harness import HOST, ROOT, ServerDidNotStart, free_port
from tests.harness import api_server as harness_server

SERVER_SETTINGS = "tests.server_settings"
__all__ = ["ROOT", "SERVER_SETTINGS", "api_server", "free_port", "migrate", "server_env"]


def server_env(**overrides: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update({"DJANGO_SETTINGS_MODULE": SERVER_SETTINGS, "PYTHONUNBUFFERED": "1"})
    env.update(overrides)
    return env


# A migrated SQLite file per settings module, made once in this test process (a folder removed
# at its exit): every server test starts from an empty database, and migrating one takes
# seconds of CPU that copying a migrated file does not.
_MIGRATED: dict[str, Path] = {}


def _run_migrate(env: Mapping[str, str]) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=dict(env),
        check=True,
        timeout=120,
    )


def _new_sqlite_file(url: str) -> Path | None:
    """The file of an `sqlite:///` DATABASE_URL not created yet, else None."""
    if not url.startswith("sqlite:///") or ":memory:" in url:
        return None
    path = Path(url.removeprefix("sqlite:///"))
    return None if path.exists() else path


def migrate(env: Mapping[str, str]) -> None:
    """`manage.py migrate` with `env`: a new SQLite file is a copy (SQLite's backup, so a WAL
    is copied whole) of one migrated once with the same settings module; anything else is
    migrated as it is."""
    target = _new_sqlite_file(env.get("DATABASE_URL", ""))
    if target is None:
        _run_migrate(env)
        return
    settings = env.get("DJANGO_SETTINGS_MODULE", "")
    if settings not in _MIGRATED:
        folder = Path(tempfile.mkdtemp(prefix="fgp-migrated-"))
        atexit.register(shutil.rmtree, folder, True)
        template = folder / "db.sqlite3"
        _run_migrate({**env, "DATABASE_URL": f"sqlite:///{template}"})
        _MIGRATED[settings] = template
    with (
        closing(sqlite3.connect(_MIGRATED[settings])) as source,
        closing(sqlite3.connect(target)) as copy,
    ):
        source.backup(copy)


@contextmanager
def api_server(env: dict[str, str], *, workers: int = 1, threads: int = 4) -> Iterator[str]:
    """Yield the base URL of the real server (config.serve) run with `env`; stop it afterwards."""
    with tempfile.TemporaryFile() as log:
        try:
            server = harness_server(env, ready_path="/api/v1/_probe/raise/ready",
                                    workers=workers, threads=threads, log=log)  # fmt: skip
            with server as (_, port):
                yield f"http://{HOST}:{port}"
        except ServerDidNotStart as exc:
            log.seek(0)
            raise RuntimeError(f"{exc}:\n{log.read().decode()}") from exc
