"""`make run`'s supervisor (scripts/run.sh): a busy port is said before anything starts, and a
crashed Celery worker is started again instead of taking the API down with it."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.servers import ROOT, free_port, migrate

VENV = str(Path(sys.executable).parent.parent)


def run_env(port: int, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(
        VENV=VENV,
        HOST="127.0.0.1",
        PORT=str(port),
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        CELERY_DATA_DIR=str(tmp_path / "celery"),
    )
    return env


@pytest.mark.server
def test_a_busy_port_is_said_at_once_without_the_banner(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            ["scripts/run.sh", "serve"], cwd=ROOT, env=run_env(port, tmp_path),
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert result.returncode == 1
    assert f"Port {port} on 127.0.0.1 is already in use" in result.stderr
    assert "is running" not in result.stdout


@pytest.mark.server
def test_a_crashed_worker_is_started_again_and_the_api_stays_up(tmp_path):
    port = free_port()
    env = run_env(port, tmp_path)
    migrate(env)
    log = (tmp_path / "run.log").open("w+")
    process = subprocess.Popen(["scripts/run.sh", "serve"], cwd=ROOT, env=env, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while "is running" not in (tmp_path / "run.log").read_text():
            assert process.poll() is None, (tmp_path / "run.log").read_text()
            assert time.monotonic() < deadline
            time.sleep(0.2)
        workers = subprocess.run(["pgrep", "-f", f"{VENV}/bin/celery -A config --quiet worker"],
                                 capture_output=True, text=True).stdout.split()  # fmt: skip
        assert workers
        for pid in workers:
            os.kill(int(pid), signal.SIGKILL)
        deadline = time.monotonic() + 30
        while "starting it again" not in (tmp_path / "run.log").read_text():
            assert process.poll() is None, (tmp_path / "run.log").read_text()
            assert time.monotonic() < deadline
            time.sleep(0.2)
        assert requests.get(f"{base}/api/health", timeout=5).status_code == 200
        assert process.poll() is None
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
        log.close()
