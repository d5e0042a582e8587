"""Start real gunicorn processes for tests that need a server, a database file or two workers."""

import os
import socket
import subprocess
import sys
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
def gunicorn(env: dict[str, str], *, workers: int = 1, threads: int = 1) -> Iterator[str]:
    """Yield the base URL of a gunicorn serving the app with `env`; stop it afterwards."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--threads",
            str(threads),
            "--timeout",
            "30",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                output = process.stdout.read().decode() if process.stdout else ""
                raise RuntimeError(f"gunicorn exited early:\n{output}")
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
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
