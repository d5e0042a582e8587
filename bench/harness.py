"""What every bench shares: the real server, throwaway databases, figures, and one `main()`.

A bench is a module `bench/<name>.py` run from the repository root as `python -m bench.<name>`.
It gives `main()` its argument parser (made by `parser()`) and a `measure(bench)` function;
`main()` then:

- says `bench.<name> needs DATABASE_URL (PostgreSQL): skipped` (likewise REDIS_URL) and exits 0
  when a service the bench needs is not configured, so that `make bench` runs every bench
  whatever the machine has;
- creates a throwaway database on DATABASE_URL's PostgreSQL server for a bench that asks for
  one, points Django at it (`django_setup()`), and drops it at the end, whatever happened;
- gives the bench a temporary directory, where the server's log goes;
- exits 1 on an error (a `BenchError`, a failed request, a server that does not start: the
  server log's last lines are printed) or when `measure()` returns 1 (lost or missing work),
  2 on a wrong argument or a DATABASE_URL that is not PostgreSQL, and 0 otherwise: never on a
  missed latency target, which the bench prints as `MISSED`.
"""

import argparse
import collections
import http.client
import math
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

# The servers and workers are started and stopped by the one harness the tests and the
# end-to-end checks use too.
from tests.harness import (
    HOST,
    ROOT,
    ServerDidNotStart,
    admin_execute,
    api_server,
    free_port,
    spawn,
    status_of,
    stop,
    with_database,
)

__all__ = ["HOST", "ROOT", "free_port", "spawn", "stop"]

SETTINGS_MODULE = "bench.settings"
READY_URL = "/api/v1/health"
STARTUP_TIMEOUT_SECONDS = 30.0
REQUEST_TIMEOUT_SECONDS = 10.0
LOG_TAIL_LINES = 40
POSTGRES_SCHEMES = ("postgres", "postgresql", "pgsql")

# What each service a bench may need is, for the "skipped" line.
SERVICES = {"DATABASE_URL": "PostgreSQL", "REDIS_URL": "Redis"}

# What a client sees when the server closed a kept-alive connection between two requests.
STALE_CONNECTION_ERRORS = (ConnectionResetError, BrokenPipeError, http.client.BadStatusLine)


class BenchError(Exception):
    """A failure that makes the numbers meaningless."""


# Figures.


def percentile(values: Sequence[float], percent: float) -> float:
    """The `percent`th percentile, interpolated between the two nearest values (the
    "inclusive" method of `statistics.quantiles`; the median at 50); NaN when empty."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    position = (len(ordered) - 1) * percent / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True)
class Summary:
    """p50, p90, p99 and mean of some values, in their own unit."""

    count: int
    p50: float
    p90: float
    p99: float
    mean: float

    @classmethod
    def of(cls, values: Sequence[float], scale: float = 1.0) -> "Summary":
        scaled = [value * scale for value in values]
        return cls(
            count=len(scaled),
            p50=percentile(scaled, 50),
            p90=percentile(scaled, 90),
            p99=percentile(scaled, 99),
            mean=statistics.fmean(scaled) if scaled else math.nan,
        )


def verdict(met: bool) -> str:
    """How a target is reported: never a failure, only a word."""
    return "met" if met else "MISSED"


@contextmanager
def timed(label: str) -> Iterator[None]:
    """Prints how long the block took: `  label: 1.2 s`."""
    began = time.perf_counter()
    yield
    print(f"  {label}: {time.perf_counter() - began:.1f} s", flush=True)


def machine_speed() -> float:
    """CPU seconds of a fixed pure-Python loop on this machine: the same code has run twice
    as slowly on one session's machine as on another's, so figures in seconds from different
    days compare only through this (ratios within one run need no help)."""
    began = time.process_time()
    sum(number * number for number in range(5_000_000))
    return time.process_time() - began


# HTTP against the real server.


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
        return percentile(self.latencies, percent) * 1000


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


def run(
    port: int, url: str, total: int, concurrency: int, headers: dict[str, str] | None = None
) -> RunResult:
    """`total` GETs of `url` from `concurrency` threads, each on its own connection; every
    answer must be 200."""
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


# The server, as `make run` and the image serve it.


def server_env(**extra: str) -> dict[str, str]:
    """This process's environment for a server or worker, on the bench's settings."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": SETTINGS_MODULE,
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


@dataclass(frozen=True)
class Server:
    process: "subprocess.Popen[bytes]"
    port: int


# PostgreSQL and Django.


def postgres_url() -> str:
    """DATABASE_URL, which `main()` has checked names a PostgreSQL server."""
    return os.environ["DATABASE_URL"]


@contextmanager
def throwaway_database(prefix: str) -> Iterator[str]:
    """A new database on DATABASE_URL's server, for one bench run; its URL. Dropped after,
    whatever happened (Django's connections closed first)."""
    server = postgres_url()
    name = f"{prefix}{uuid.uuid4().hex[:10]}"
    print(f"bench database {name} on {urlsplit(server).hostname}", flush=True)
    admin_execute(server, f'CREATE DATABASE "{name}"')
    try:
        yield with_database(server, name)
    finally:
        if "django.db" in sys.modules:
            from django.db import connections

            connections.close_all()
        admin_execute(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        print(f"dropped {name}", flush=True)


def django_setup(**extra_env: str) -> None:
    """Django in this process on the bench's settings and database (migrated), with
    `extra_env` set first so that the servers and workers started after inherit it."""
    os.environ.update({"DJANGO_SETTINGS_MODULE": SETTINGS_MODULE, **extra_env})
    import django

    django.setup()
    from django.core.management import call_command

    with timed("migrate"):
        call_command("migrate", interactive=False, verbosity=0)


# Filling a table of one target user's rows among everyone else's, in one INSERT ... SELECT (no
# Python loop; a million rows in seconds), in time order, one row every %(spacing)s seconds up
# to now. Row g of %(total)s belongs to the target user when g crosses a multiple of
# total/target_rows (so the target's rows are spread evenly among the others', as they would
# be in a table filled over time), else to one of the other users in turn.
SPREAD_OWNER_SQL = """CASE
         WHEN g * %(target_rows)s / %(total)s <> (g - 1) * %(target_rows)s / %(total)s
         THEN %(target)s::uuid
         ELSE others.ids[1 + g %% others.n] END"""
SPREAD_CREATED_SQL = "now() - (%(total)s - g) * make_interval(secs => %(spacing)s)"
SPREAD_ROWS_SQL = """generate_series(1::bigint, %(total)s::bigint) AS g,
     (SELECT array_agg(id ORDER BY email) AS ids, count(*) AS n
        FROM accounts_user WHERE id <> %(target)s::uuid) AS others"""


def users_create(prefix: str, count: int) -> list[Any]:
    """`count` plain users, `<prefix>-00000@example.com` on, each with the personal workspace
    sign-up makes (its owner), in one statement a thousand each."""
    from accounts.models import PERSONAL_WORKSPACE_NAME, Membership, User, Workspace, WorkspaceRole

    users = User.objects.bulk_create(
        [User(email=f"{prefix}-{i:05d}@example.com") for i in range(count)], batch_size=1000
    )
    workspaces = Workspace.objects.bulk_create(
        [Workspace(name=PERSONAL_WORKSPACE_NAME, personal=True, personal_user=u) for u in users],
        batch_size=1000,
    )
    Membership.objects.bulk_create(
        [
            Membership(workspace=w, user=u, role=WorkspaceRole.OWNER, joined_at=w.created_at)
            for u, w in zip(users, workspaces, strict=True)
        ],
        batch_size=1000,
    )
    return users


def vacuum_analyze(*tables: str) -> None:
    """VACUUM (ANALYZE): the planner's statistics, and the visibility map without which the
    index-only scans would visit the heap (autovacuum does it in service)."""
    from django.db import connection

    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"VACUUM (ANALYZE) {table}")


def explain(sql: str, *, analyze: bool = True) -> list[str]:
    """PostgreSQL's plan of one captured query, one line a row."""
    from django.db import connection

    options = "ANALYZE, BUFFERS, COSTS OFF" if analyze else "COSTS OFF"
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN ({options}) {sql}")
        return [row[0] for row in cursor.fetchall()]


def captured_get(url: str, token: str) -> tuple[Any, list[str]]:
    """GET `url` in-process as the token's user, once to warm the caches, then again with its
    SQL captured: (the response, its queries)."""
    from django.db import connection
    from django.test import Client as DjangoClient
    from django.test.utils import CaptureQueriesContext

    client = DjangoClient(SERVER_NAME=HOST, HTTP_AUTHORIZATION=f"Bearer {token}")
    client.get(url)  # warm: the first request of a process also loads caches
    with CaptureQueriesContext(connection) as context:
        response = client.get(url)
    if response.status_code != 200:
        raise BenchError(f"in-process GET {url} answered {response.status_code}")
    return response, [query["sql"] for query in context.captured_queries]


def plan_lines(lines: list[str], *, full: bool) -> list[str]:
    """Plan nodes, heap fetches and execution time; `full` keeps all but the planner's buffers."""
    kept, planning = [], False
    for number, line in enumerate(lines):
        if line == "Planning:":
            planning = True  # its indented Buffers line follows
            continue
        if planning and line.startswith(" "):
            continue
        planning = False
        text = line.strip()
        if full or number == 0 or text.startswith(("->", "Heap Fetches", "Execution Time")):
            kept.append(line)
    return kept


# One run of one bench.


@dataclass
class Bench:
    """What `measure()` is given: its arguments, a temporary directory, and the database."""

    name: str
    args: argparse.Namespace
    tmp: Path
    database_url: str | None = None

    @property
    def log_path(self) -> Path:
        """Where the server's (or worker's) output goes, printed in part on a failure."""
        return self.tmp / "server.log"

    @contextmanager
    def serving(self, workers: int, env: dict[str, str] | None = None) -> Iterator[Server]:
        """The real server (config.serve, `workers` processes) on a free port, answering;
        stopped after."""
        with self.log_path.open("ab") as log:
            try:
                server = api_server(env or server_env(), ready_path=READY_URL, workers=workers,
                                    log=log, timeout=STARTUP_TIMEOUT_SECONDS)  # fmt: skip
                with server as (process, port):
                    status = status_of(f"http://{HOST}:{port}{READY_URL}")
                    if status != 200:
                        raise BenchError(f"{READY_URL} answered {status}")
                    yield Server(process, port)
            except ServerDidNotStart as exc:
                raise BenchError(str(exc)) from exc

    def django_setup(self, **extra_env: str) -> None:
        """Django in this process on the throwaway database, migrated."""
        assert self.database_url, "the bench asked main() for no database"
        django_setup(DATABASE_URL=self.database_url, **extra_env)


def parser(
    name: str, doc: str | None, **numbers: float | tuple[float, str]
) -> argparse.ArgumentParser:
    """A bench's argument parser: `python -m bench.<name>`, its docstring's first line, and an
    option for each of `numbers`, typed as its default (`health_requests=1000`: an int option
    `--health-requests`, default 1000; `window=(40.0, "seconds")`: a float, with its help)."""
    parser = argparse.ArgumentParser(
        prog=f"python -m bench.{name}", description=doc.splitlines()[0] if doc else None
    )
    for option, value in numbers.items():
        default, text = value if isinstance(value, tuple) else (value, "")
        parser.add_argument(
            "--" + option.replace("_", "-"),
            type=type(default),
            default=default,
            help=f"{text} (default {default})".strip(),
        )
    return parser


def print_log_tail(path: Path) -> None:
    if path.exists() and path.stat().st_size:
        lines = path.read_text(errors="replace").splitlines()[-LOG_TAIL_LINES:]
        print("--- server log, last lines ---", *lines, sep="\n", file=sys.stderr)


def missing_services(needs: Sequence[str]) -> list[str]:
    return [
        f"{variable} ({SERVICES[variable]})" for variable in needs if not os.environ.get(variable)
    ]


def main(
    name: str,
    parse_args: Callable[[Sequence[str] | None], argparse.Namespace],
    measure: Callable[[Bench], int],
    argv: Sequence[str] | None = None,
    *,
    needs: Sequence[str] = (),
    database_prefix: str | None = None,
) -> int:
    """Runs one bench: its exit status (see the module's docstring). A bench given a
    `database_prefix` (its throwaway database's) needs DATABASE_URL."""
    args = parse_args(argv)
    if database_prefix is not None and "DATABASE_URL" not in needs:
        needs = ["DATABASE_URL", *needs]
    missing = missing_services(needs)
    if missing:
        print(f"bench.{name} needs {' and '.join(missing)}: skipped", flush=True)
        return 0
    if "DATABASE_URL" in needs:
        scheme = urlsplit(os.environ["DATABASE_URL"]).scheme
        if scheme not in POSTGRES_SCHEMES:
            print(f"bench.{name}: DATABASE_URL must be a PostgreSQL URL, not {scheme}://",
                  file=sys.stderr)  # fmt: skip
            return 2
    with tempfile.TemporaryDirectory(prefix=f"bench-{name}-") as tmp:
        bench = Bench(name=name, args=args, tmp=Path(tmp))
        try:
            if database_prefix is None:
                return measure(bench)
            with throwaway_database(database_prefix) as database_url:
                bench.database_url = database_url
                return measure(bench)
        except BenchError as exc:
            print(f"bench failed: {exc}", file=sys.stderr)
            print_log_tail(bench.log_path)
            return 1
        except BaseException:
            print_log_tail(
                bench.log_path
            )  # the temporary directory, and the log with it, goes next
            raise
