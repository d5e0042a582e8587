"""Start the real server for tests that need one, a database file or two processes (through
the one harness, tests/harness.py)."""

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

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


def migrate(env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )


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
