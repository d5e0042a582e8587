"""Latency bench: GET /api/health against a bare Django view, both on the real server.

Usage: python bench/health.py [--requests N] [--concurrency C] [--workers W]

Uses a throwaway SQLite file unless DATABASE_URL is set, and Redis only if REDIS_URL is set.
Exits non-zero on errors (a non-200 answer, a server that does not start), never on a missed
latency target.
"""

import argparse
import collections
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

REPO_ROOT = Path(__file__).resolve().parent.parent
SETTINGS_MODULE = "bench.settings"
HOST = "127.0.0.1"
HEALTH_URL = "/api/health"
BARE_URL = "/bench/bare"
READY_URL = "/api/v1/health"
WARMUP_REQUESTS = 200
STARTUP_TIMEOUT_SECONDS = 30.0
REQUEST_TIMEOUT_SECONDS = 10.0
SUBPROCESS_TIMEOUT_SECONDS = 300.0
LOG_TAIL_LINES = 40

TARGET_HEALTH_P50_MS = 5.0
TARGET_HEALTH_TO_BARE_P50 = 1.5
TARGET_HEALTH_TO_BARE_RPS = 0.67

# What a client sees when the server closed a kept-alive connection between two requests.
STALE_CONNECTION_ERRORS = (ConnectionResetError, BrokenPipeError, http.client.BadStatusLine)

# Prints the settings the server will really run with (a .env file may add to the environment).
SETTINGS_PROBE = """
import json
import django
from django.conf import settings

django.setup()
print(json.dumps({
    "engine": settings.DATABASES["default"]["ENGINE"],
    "cache": settings.CACHES["default"]["BACKEND"],
    "redis": bool(settings.REDIS_URL),
}))
"""


class BenchError(Exception):
    """A failure that makes the numbers meaningless."""


@dataclass(frozen=True)
class RunResult:
    url: str
    latencies: list[float]  # seconds, one per request
    statuses: collections.Counter[int]
    elapsed: float  # wall-clock seconds from the first request to the last answer
    connections: int

    @property
    def requests(self) -> int:
        return len(self.latencies)

    @property
    def rps(self) -> float:
        return self.requests / self.elapsed

    def percentile_ms(self, percent: int) -> float:
        cuts = statistics.quantiles(self.latencies, n=100, method="inclusive")
        return cuts[percent - 1] * 1000


class Client:
    """One connection kept alive across requests and reopened whenever the server closes it.

    The server keeps connections alive; one it dropped while idle must not count as a failed
    request.
    """

    def __init__(self, port: int, headers: dict[str, str] | None = None) -> None:
        self.port = port
        self.headers = headers or {}
        self.connection: http.client.HTTPConnection | None = None
        self.opened = 0

    def get(self, url: str) -> tuple[int, bytes]:
        while True:
            reused = self.connection is not None
            connection = self.connection or self._open()
            try:
                connection.request("GET", url, headers=self.headers)
                response = connection.getresponse()
                body = response.read()  # all of it, or the connection cannot carry the next one
            except STALE_CONNECTION_ERRORS:
                self.close()
                if not reused:
                    raise
                # Only a reused connection can have been closed under us; GET is safe to retry.
                continue
            if response.will_close:
                self.close()
            return response.status, body

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def _open(self) -> http.client.HTTPConnection:
        # Opened here, not lazily by http.client, so that reuse and reconnects are counted.
        connection = http.client.HTTPConnection(HOST, self.port, timeout=REQUEST_TIMEOUT_SECONDS)
        connection.connect()
        self.connection = connection
        self.opened += 1
        return connection


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=2000, help="per URL (default 2000)")
    parser.add_argument("--concurrency", type=int, default=4, help="client threads (default 4)")
    parser.add_argument("--workers", type=int, default=2, help="server processes (default 2)")
    args = parser.parse_args(argv)
    if args.requests < 2:
        parser.error("--requests must be at least 2 (percentiles need two samples)")
    if args.concurrency < 1 or args.workers < 1:
        parser.error("--concurrency and --workers must be at least 1")
    if args.concurrency > args.requests:
        parser.error("--concurrency must not exceed --requests")
    return args


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def server_env(tmp_dir: Path) -> tuple[dict[str, str], bool]:
    """The server's environment, and whether the bench brings its own SQLite database."""
    env = dict(os.environ)
    env["DJANGO_SETTINGS_MODULE"] = SETTINGS_MODULE
    env["PYTHONUNBUFFERED"] = "1"
    own_database = not os.environ.get("DATABASE_URL")
    if own_database:
        env["DATABASE_URL"] = f"sqlite:///{tmp_dir / 'bench.sqlite3'}"
    return env, own_database


def run_manage(env: dict[str, str], *args: str) -> None:
    completed = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_SECONDS,
        check=False,
    )
    if completed.returncode != 0:
        raise BenchError(f"manage.py {' '.join(args)} failed:\n{completed.stderr}")


def describe_settings(env: dict[str, str]) -> dict[str, Any]:
    completed = subprocess.run(
        [sys.executable, "-c", SETTINGS_PROBE],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_SECONDS,
        check=False,
    )
    if completed.returncode != 0:
        raise BenchError(f"could not load {SETTINGS_MODULE}:\n{completed.stderr}")
    result: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


def start_server(
    env: dict[str, str], port: int, workers: int, log: BinaryIO
) -> "subprocess.Popen[bytes]":
    """The API as `make run` and the image serve it (config.serve: uvicorn, ASGI)."""
    server_env = {
        **env,
        "HOST": HOST,
        "PORT": str(port),
        "WEB_CONCURRENCY": str(workers),
        "ACCESS_LOG": "0",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "config.serve"],
        cwd=REPO_ROOT,
        env=server_env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def stop_server(server: "subprocess.Popen[bytes]") -> None:
    if server.poll() is not None:
        return
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def wait_until_ready(server: "subprocess.Popen[bytes]", port: int) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise BenchError(f"the server exited early with status {server.returncode}")
        client = Client(port)
        try:
            status, _ = client.get(READY_URL)
        except OSError:
            time.sleep(0.1)
            continue
        finally:
            client.close()
        if status == 200:
            return
        raise BenchError(f"{READY_URL} answered {status}")
    raise BenchError(f"{READY_URL} did not answer within {STARTUP_TIMEOUT_SECONDS:.0f} s")


def run(
    port: int, url: str, total: int, concurrency: int, headers: dict[str, str] | None = None
) -> RunResult:
    """`total` GETs of `url` from `concurrency` threads, each on its own connection."""
    shares = [
        total // concurrency + (1 if i < total % concurrency else 0) for i in range(concurrency)
    ]
    start_together = threading.Barrier(concurrency)
    latencies: list[list[float]] = [[] for _ in range(concurrency)]
    statuses: list[collections.Counter[int]] = [collections.Counter() for _ in range(concurrency)]
    spans: list[tuple[float, float]] = [(0.0, 0.0)] * concurrency
    opened = [0] * concurrency
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        client = Client(port, headers)
        mine, counts = latencies[index], statuses[index]
        try:
            start_together.wait()
            first = time.perf_counter()
            for _ in range(shares[index]):
                began = time.perf_counter()
                status, _ = client.get(url)
                mine.append(time.perf_counter() - began)
                counts[status] += 1
            spans[index] = (first, time.perf_counter())
        except BaseException as exc:
            errors.append(exc)
            start_together.abort()  # the others must not wait for a thread that is gone
        finally:
            opened[index] = client.opened
            client.close()

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise BenchError(f"GET {url} failed: {errors[0]!r}") from errors[0]

    merged: collections.Counter[int] = collections.Counter()
    for counts in statuses:
        merged.update(counts)
    if set(merged) != {200}:
        raise BenchError(f"GET {url}: not every answer was 200: {dict(sorted(merged.items()))}")
    return RunResult(
        url=url,
        latencies=[latency for mine in latencies for latency in mine],
        statuses=merged,
        elapsed=max(end for _, end in spans) - min(start for start, _ in spans),
        connections=sum(opened),
    )


def report(results: list[RunResult], settings: dict[str, Any], args: argparse.Namespace) -> None:
    redis = "yes (cache and rate limit)" if settings["redis"] else "no (local-memory cache)"
    print(f"database engine: {settings['engine']}")
    print(f"redis used:      {redis}")
    print(f"server:          config.serve, {args.workers} processes")
    print(f"client:          {args.concurrency} threads, each on one kept-alive connection")
    print()
    print(
        f"{'URL':<14}{'requests':>9}{'rps':>9}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'conns':>7}"
    )
    for result in results:
        print(
            f"{result.url:<14}{result.requests:>9}{result.rps:>9.0f}"
            f"{result.percentile_ms(50):>9.2f}{result.percentile_ms(90):>9.2f}"
            f"{result.percentile_ms(99):>9.2f}{result.connections:>7}"
        )
    health, bare = results
    p50_ratio = health.percentile_ms(50) / bare.percentile_ms(50)
    p99_ratio = health.percentile_ms(99) / bare.percentile_ms(99)
    print()
    print(
        f"health/bare: p50 {p50_ratio:.2f}x, p99 {p99_ratio:.2f}x, rps {health.rps / bare.rps:.2f}x"
    )
    health_p50 = health.percentile_ms(50)
    absolute = "met" if health_p50 < TARGET_HEALTH_P50_MS else "MISSED"
    relative = "met" if p50_ratio <= TARGET_HEALTH_TO_BARE_P50 else "MISSED"
    print(f"target health p50 < {TARGET_HEALTH_P50_MS:g} ms: {absolute} ({health_p50:.2f} ms)")
    print(
        f"target health p50 within {TARGET_HEALTH_TO_BARE_P50:g}x of bare p50: "
        f"{relative} ({p50_ratio:.2f}x)"
    )
    rps_ratio = health.rps / bare.rps
    throughput = "met" if rps_ratio >= TARGET_HEALTH_TO_BARE_RPS else "MISSED"
    print(
        f"target health throughput >= {TARGET_HEALTH_TO_BARE_RPS:g}x of bare: "
        f"{throughput} ({rps_ratio:.2f}x)"
    )


def print_log_tail(path: Path) -> None:
    if path.exists():
        lines = path.read_text(errors="replace").splitlines()[-LOG_TAIL_LINES:]
        print("--- server log, last lines ---", *lines, sep="\n", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-health-") as tmp:
        tmp_dir = Path(tmp)
        env, own_database = server_env(tmp_dir)
        log_path = tmp_dir / "server.log"
        try:
            if own_database:
                run_manage(env, "migrate", "--noinput", "-v", "0")
            settings = describe_settings(env)
            port = free_port()
            with log_path.open("wb") as log:
                server = start_server(env, port, args.workers, log)
                try:
                    wait_until_ready(server, port)
                    for url in (HEALTH_URL, BARE_URL):
                        run(port, url, max(WARMUP_REQUESTS, args.concurrency), args.concurrency)
                    results = [
                        run(port, url, args.requests, args.concurrency)
                        for url in (HEALTH_URL, BARE_URL)
                    ]
                finally:
                    stop_server(server)
        except BenchError as exc:
            print(f"bench failed: {exc}", file=sys.stderr)
            print_log_tail(log_path)
            return 1
        except BaseException:
            print_log_tail(log_path)  # the temporary directory, and the log with it, goes next
            raise
    report(results, settings, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
