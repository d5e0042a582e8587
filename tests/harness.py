"""One harness for the test suite, the benches and the end-to-end checks: free ports, the real
server (config.serve), Celery workers (with beat when asked), any command such as `make run`,
each in a process group of its own and stopped with everything it started, and a webhook
receiver on loopback. The stand-ins for the outside services are tests/social/standins.py
(social networks) and tests/aitools/standin.py (the AI provider).

Stdlib only: the checks run it from a fresh clone before anything else is installed, and the
benches import it as they import nothing of the suite's own.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any, NamedTuple
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
STOP_SECONDS = 15.0


class ServerDidNotStart(RuntimeError):
    """A server that exited, or did not answer, before it was ready; the message says which."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def spawn(
    command: list[str], env: Mapping[str, str], *, log: IO[bytes] | None = None,
    cwd: Path = ROOT,
) -> "subprocess.Popen[bytes]":  # fmt: skip
    """A server, worker or command run from `cwd` (the repository root) in a process group of
    its own, so that `stop()` stops its children with it; its output goes to `log` if given (a
    file, not a pipe: a chatty server never blocks on a full pipe)."""
    return subprocess.Popen(
        command, cwd=cwd, env=dict(env), start_new_session=True, stdout=log,
        stderr=subprocess.STDOUT if log is not None else None,
    )  # fmt: skip


def stop(
    process: "subprocess.Popen[Any]", timeout: float = STOP_SECONDS, *, whole_group: bool = False
) -> None:
    """Stop what `spawn()` started: SIGTERM to the process (to its whole group with
    `whole_group`, for a command like `make run` whose children serve), SIGKILL if it lingers
    past `timeout`, then SIGKILL to what is left of its group (e.g. a Celery pool process)."""
    if process.poll() is None:
        if whole_group:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        else:
            process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    with suppress(ProcessLookupError):  # the group is gone: nothing outlived it
        os.killpg(process.pid, signal.SIGKILL)  # its group: the id of the leader spawn() made


def status_of(url: str, timeout: float = 2.0) -> int | None:
    """A GET's status (an error status too), or None while nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (loopback)
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)
    except (OSError, ValueError):
        return None


def wait_until_answering(
    process: "subprocess.Popen[Any]", url: str, timeout: float, *,
    ready: Callable[[int], bool] = lambda status: True, interval: float = 0.1,
) -> int:  # fmt: skip
    """The status `url` answers once `ready(status)` accepts it (any answer by default);
    ServerDidNotStart when `process` exits first or `timeout` s pass."""
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise ServerDidNotStart(f"the server exited early with status {process.returncode}")
        status = status_of(url)
        if status is not None and ready(status):
            return status
        if time.monotonic() >= deadline:
            raise ServerDidNotStart(f"{url} did not answer within {timeout:.0f} s")
        time.sleep(interval)


def serve_command() -> list[str]:
    """The API as `make run` and the image serve it (config.serve: uvicorn, ASGI)."""
    return [sys.executable, "-m", "config.serve"]


def serve_env(
    env: Mapping[str, str], port: int, *, workers: int = 1, threads: int | None = None
) -> dict[str, str]:
    """`env` for config.serve on `port` of loopback, `workers` processes, no access log."""
    extra = {"WEB_THREADS": str(threads)} if threads is not None else {}
    return {**env, "HOST": HOST, "PORT": str(port), "WEB_CONCURRENCY": str(workers),
            "ACCESS_LOG": "0", **extra}  # fmt: skip


@contextmanager
def api_server(
    env: Mapping[str, str], *, ready_path: str, workers: int = 1, threads: int | None = None,
    log: IO[bytes], timeout: float = 30.0,
) -> Iterator[tuple["subprocess.Popen[bytes]", int]]:  # fmt: skip
    """The real server (config.serve) on a free port, answering `ready_path`: (its process, its
    port); stopped afterwards whatever happened."""
    port = free_port()
    process = spawn(serve_command(), serve_env(env, port, workers=workers, threads=threads),
                    log=log)  # fmt: skip
    try:
        wait_until_answering(process, f"http://{HOST}:{port}{ready_path}", timeout)
        yield process, port
    finally:
        stop(process)


def celery_worker_command(
    concurrency: int, *, queues: str | None = None, beat_schedule: Path | None = None,
    heartbeat: bool = True,
) -> list[str]:  # fmt: skip
    """A real Celery worker of `concurrency` pool processes, reading `queues` (the default
    queue when None), with beat inside (-B) when given a `beat_schedule` file."""
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=WARNING"]
    if queues:
        command += ["-Q", queues]
    command += [f"--concurrency={concurrency}", "--without-mingle", "--without-gossip"]
    if not heartbeat:
        command.append("--without-heartbeat")
    if beat_schedule is not None:
        command += ["-B", f"--schedule={beat_schedule}"]
    return command


def with_database(url: str, name: str) -> str:
    """`url` naming database `name` on the same server."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def admin_execute(url: str, statement: str) -> None:
    """CREATE/DROP DATABASE on the PostgreSQL server of `url`, connected to its own database
    (they cannot run in a transaction). psycopg is imported here, not above: the checks and
    the benches that need no PostgreSQL run without it."""
    import psycopg

    parts = urlsplit(url)
    with psycopg.connect(
        host=parts.hostname or HOST,
        port=parts.port or 5432,
        user=parts.username,
        password=parts.password,
        dbname=parts.path.lstrip("/") or "postgres",
        autocommit=True,
        connect_timeout=5,
    ) as connection:
        connection.execute(statement)


class Delivery(NamedTuple):
    headers: dict[str, str]  # names in lower case
    body: bytes

    @property
    def payload(self) -> Any:
        return json.loads(self.body)


class Receiver:
    """A webhook consumer on loopback, answering after `latency` seconds: every delivery it
    accepted, as it came; `offline` makes it answer 503 and keep nothing (it was down)."""

    def __init__(self, latency: float = 0.0) -> None:
        self.deliveries: list[Delivery] = []
        self.offline = False
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                time.sleep(latency)
                if not outer.offline:
                    headers = {name.lower(): value for name, value in self.headers.items()}
                    outer.deliveries.append(Delivery(headers, body))
                self.send_response(503 if outer.offline else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        class Server(ThreadingHTTPServer):
            request_queue_size = 128  # the listen backlog of a real server, not the default 5
            daemon_threads = True

        self.server = Server((HOST, 0), Handler)
        self.url = f"http://{HOST}:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def events(self) -> list[str]:
        return [delivery.payload["event"] for delivery in list(self.deliveries)]

    def wait(self, predicate: Callable[[dict[str, Any]], bool], timeout: float) -> Any:
        """The first delivered payload `predicate` accepts, within `timeout` s (None)."""
        deadline = time.monotonic() + timeout
        while True:
            payloads = (delivery.payload for delivery in list(self.deliveries))
            found = next((payload for payload in payloads if predicate(payload)), None)
            if found is not None or time.monotonic() >= deadline:
                return found
            time.sleep(0.2)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
