"""Start the real server for tests that need one, a database file or two processes."""

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
SERVER_SETTINGS = "tests.server_settings"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
    # The log goes to a file, not a pipe: a chatty server never blocks on a full pipe.
    with tempfile.TemporaryFile() as log:
        port = free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "config.serve"],
            cwd=ROOT,
            env={
                **env,
                "HOST": "127.0.0.1",
                "PORT": str(port),
                "WEB_CONCURRENCY": str(workers),
                "WEB_THREADS": str(threads),
                "ACCESS_LOG": "0",
            },
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                if process.poll() is not None:
                    log.seek(0)
                    raise RuntimeError(f"the server exited early:\n{log.read().decode()}")
                try:
                    requests.get(f"{base}/api/v1/_probe/raise/ready", timeout=1)
                    break
                except (requests.ConnectionError, requests.Timeout):
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
            yield base
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
