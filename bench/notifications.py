"""Notification center bench: list pages and the unread count at 100,000 rows per user.

Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB python bench/notifications.py
           [--requests N] [--concurrency C] [--workers W] [--target-rows N] [--other-rows N]

DATABASE_URL names a PostgreSQL server (and a database there to connect to for CREATE/DROP
DATABASE); the bench creates its own throwaway database on it, migrates it, fills one target
user with --target-rows notifications and --other-users users with --other-rows more, in time
order and interleaved, then VACUUM ANALYZE. It serves the API with config.serve (bench.settings)
and measures GETs as the target user, counts the SQL queries of each request in-process, and
shows the plans PostgreSQL runs them with. The database is dropped at the end. REDIS_URL is
used when set. Exits non-zero on errors, never on a missed latency target.
"""

import argparse
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

REPO_ROOT = Path(__file__).resolve().parent.parent
# Run as a script, Python puts bench/ first on the path, where this file would shadow the
# `notifications` app: the project root takes its place.
if sys.path and Path(sys.path[0] or ".").resolve() == REPO_ROOT / "bench":
    sys.path[0] = str(REPO_ROOT)

from bench.health import (  # noqa: E402 (needs the path fixed above)
    BenchError,
    RunResult,
    free_port,
    run,
    start_server,
    stop_server,
    wait_until_ready,
)

SETTINGS_MODULE = "bench.settings"
DATABASE_PREFIX = "fgp_bench_notifications_"
TARGET_EMAIL = "bench-target@example.com"
UNREAD_SHARE = 0.10  # of every user's notifications, at random
SECONDS_BETWEEN_ROWS = 30  # 1.1 million rows span about a year
WARMUP_REQUESTS = 50
TARGET_FIRST_PAGE_P99_MS = 20.0
QUERY_BUDGETS = {"list": 3, "unread": 2}  # per request, the token's user lookup included

TYPES = [
    ("system_alert", "System"),
    ("payment_success", "Billing"),
    ("plan_upgrade", "Billing"),
    ("payment_failed", "Billing"),
    ("ai_complete", "AI Generation"),
    ("ai_failed", "AI Generation"),
    ("post_published", "Social Hub"),
    ("post_failed", "Social Hub"),
]

# One statement, no Python loop: 1.1 million rows in time order. Row g belongs to the target
# user when g crosses a multiple of total/target (so the target's rows are spread evenly among
# everyone else's, as they would be in a table filled over time), else to one of the others.
FILL_SQL = """
INSERT INTO notifications_notification
    (id, user_id, title, message, category, type, read, metadata, created_at)
SELECT
    gen_random_uuid(),
    CASE WHEN g * %(target_rows)s / %(total)s <> (g - 1) * %(target_rows)s / %(total)s
         THEN %(target)s::uuid
         ELSE others.ids[1 + g %% others.n] END,
    'Notification ' || g,
    'Benchmark notification number ' || g || ': something happened you may want to know.',
    (%(categories)s::text[])[1 + g %% 8],
    (%(types)s::text[])[1 + g %% 8],
    random() >= %(unread_share)s,
    jsonb_build_object('seq', g),
    now() - (%(total)s - g) * make_interval(secs => %(spacing)s)
FROM generate_series(1::bigint, %(total)s::bigint) AS g,
     (SELECT array_agg(id ORDER BY email) AS ids, count(*) AS n
        FROM accounts_user WHERE id <> %(target)s::uuid) AS others
"""


@dataclass(frozen=True)
class Probe:
    name: str
    url: str
    budget: int


@dataclass
class Captured:
    """The SQL of one request, run in-process against the bench database."""

    labels: list[str]
    plans: list[tuple[str, list[str]]]  # (label, EXPLAIN ANALYZE lines) of our own queries


def probes(deep_page: int) -> list[Probe]:
    return [
        Probe("first page", "/api/notifications?page=1&limit=20", QUERY_BUDGETS["list"]),
        Probe("deep page", f"/api/notifications?page={deep_page}&limit=20", QUERY_BUDGETS["list"]),
        Probe("unread page", "/api/notifications?read=false&page=1", QUERY_BUDGETS["list"]),
        Probe("read page", "/api/notifications?read=true&page=1", QUERY_BUDGETS["list"]),
        Probe("unread count", "/api/notifications/unread", QUERY_BUDGETS["unread"]),
    ]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=500, help="per URL (default 500)")
    parser.add_argument("--concurrency", type=int, default=2, help="client threads (default 2)")
    parser.add_argument("--workers", type=int, default=2, help="server processes (default 2)")
    parser.add_argument("--target-rows", type=int, default=100_000)
    parser.add_argument("--other-rows", type=int, default=1_000_000)
    parser.add_argument("--other-users", type=int, default=1_000)
    parser.add_argument(
        "--deep-page", type=int, default=4000, help="page of 20 for the deep probe (default 4000)"
    )
    parser.add_argument(
        "--full-plans", action="store_true", help="whole EXPLAIN output, not only the scans"
    )
    args = parser.parse_args(argv)
    if args.requests < 2:
        parser.error("--requests must be at least 2 (percentiles need two samples)")
    if min(args.concurrency, args.workers, args.target_rows, args.other_users) < 1:
        parser.error("--concurrency, --workers, --target-rows and --other-users must be >= 1")
    if args.other_rows < 0 or args.concurrency > args.requests:
        parser.error("--other-rows must be >= 0 and --concurrency <= --requests")
    return args


def server_url() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if not url:
        raise SystemExit(
            "bench/notifications.py needs DATABASE_URL pointing at a PostgreSQL server, e.g. "
            "postgres://postgres@127.0.0.1:5432/postgres (it creates and drops its own database)."
        )
    if urlsplit(url).scheme not in ("postgres", "postgresql", "pgsql"):
        raise SystemExit(f"DATABASE_URL must be a PostgreSQL URL, not {urlsplit(url).scheme}://")
    return url


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def admin_execute(url: str, statement: str) -> None:
    """CREATE/DROP DATABASE on the server's own database (they cannot run in a transaction)."""
    import psycopg

    parts = urlsplit(url)
    with psycopg.connect(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 5432,
        user=parts.username,
        password=parts.password,
        dbname=parts.path.lstrip("/") or "postgres",
        autocommit=True,
        connect_timeout=5,
    ) as connection:
        connection.execute(statement)


@contextmanager
def throwaway_database(prefix: str) -> Iterator[str]:
    """A new database on DATABASE_URL's server, for one bench run; its URL. Dropped after,
    whatever happened (Django's connections closed first)."""
    server = server_url()
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


@contextmanager
def timed(label: str) -> Iterator[None]:
    began = time.perf_counter()
    yield
    print(f"  {label}: {time.perf_counter() - began:.1f} s", flush=True)


def fill(args: argparse.Namespace) -> Any:
    """Users through the ORM, notifications in one INSERT ... SELECT, then the per-user
    counters; returns the target."""
    from django.db import connection

    from accounts.models import User

    target = User.objects.create_user(email=TARGET_EMAIL, full_name="Bench Target")
    User.objects.bulk_create(
        [User(email=f"bench-{i:05d}@example.com") for i in range(args.other_users)],
        batch_size=1000,
    )
    total = args.target_rows + args.other_rows
    with connection.cursor() as cursor:
        cursor.execute("SELECT setseed(0.42)")  # the same read flags on every run
        cursor.execute(
            FILL_SQL,
            {
                "target": str(target.pk),
                "target_rows": args.target_rows,
                "total": total,
                "types": [kind for kind, _ in TYPES],
                "categories": [category for _, category in TYPES],
                "unread_share": UNREAD_SHARE,
                "spacing": SECONDS_BETWEEN_ROWS,
            },
        )
    # The rows went in behind notify()'s back: count them once, as an import would.
    from notifications.services.center import notification_counters_rebuild

    notification_counters_rebuild()
    return target


def vacuum_analyze() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        # ANALYZE for the planner's statistics; VACUUM sets the visibility map, without which
        # the index-only scans of the pages would visit the heap (autovacuum does it in service).
        cursor.execute("VACUUM (ANALYZE) notifications_notification")
        cursor.execute("VACUUM (ANALYZE) accounts_user")


def table_facts(target: Any) -> list[str]:
    from django.db import connection

    from notifications.models import Notification

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, pg_size_pretty(pg_relation_size(oid)) FROM pg_class "
            "WHERE oid = 'notifications_notification'::regclass OR oid IN (SELECT indexrelid "
            "FROM pg_index WHERE indrelid = 'notifications_notification'::regclass) "
            "ORDER BY relname"
        )
        sizes = ", ".join(f"{name} {size}" for name, size in cursor.fetchall())
    rows = Notification.objects.count()
    mine = Notification.objects.filter(user=target).count()
    unread = Notification.objects.filter(user=target, read=False).count()
    return [
        f"rows: {rows:,} in all; target user {mine:,} ({unread:,} unread)",
        f"sizes: {sizes}",
    ]


def label(sql: str) -> str:
    upper = sql.upper()
    if 'FROM "ACCOUNTS_USER"' in upper:
        return "token user"
    if "COUNT(" in upper or "NOTIFICATIONCOUNTER" in upper:
        return "count"
    return "page"


def capture(url: str, token: str) -> Captured:
    """Runs the request in-process and EXPLAINs our own queries (not the token's user)."""
    from django.db import connection
    from django.test import Client as DjangoClient
    from django.test.utils import CaptureQueriesContext

    client = DjangoClient(SERVER_NAME="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {token}")
    client.get(url)  # warm: the first request of a process also loads caches
    with CaptureQueriesContext(connection) as context:
        response = client.get(url)
    if response.status_code != 200:
        raise BenchError(f"in-process GET {url} answered {response.status_code}")
    labels, plans = [], []
    for query in context.captured_queries:
        kind = label(query["sql"])
        labels.append(kind)
        if kind == "token user":
            continue
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + query["sql"])
            plans.append((kind, [row[0] for row in cursor.fetchall()]))
    return Captured(labels=labels, plans=plans)


@dataclass
class ReadAll:
    """POST /api/notifications/read-all once, in-process, in a transaction rolled back after."""

    elapsed_ms: float
    updated: int
    queries: int
    plan: list[str]


def read_all_once(token: str) -> ReadAll:
    from django.db import connection, transaction
    from django.test import Client as DjangoClient
    from django.test.utils import CaptureQueriesContext

    client = DjangoClient(SERVER_NAME="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {token}")
    with transaction.atomic():
        with CaptureQueriesContext(connection) as context:
            began = time.perf_counter()
            response = client.post("/api/notifications/read-all", content_type="application/json")
            elapsed_ms = (time.perf_counter() - began) * 1000
        transaction.set_rollback(True)  # the measured pages keep their unread rows
    if response.status_code != 200:
        raise BenchError(f"in-process read-all answered {response.status_code}")
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (COSTS OFF) " + context.captured_queries[-1]["sql"])
        plan = [row[0] for row in cursor.fetchall()]
    return ReadAll(
        elapsed_ms=elapsed_ms,
        updated=response.json()["data"]["updatedCount"],
        queries=len(context.captured_queries),
        plan=plan,
    )


def report(
    args: argparse.Namespace,
    facts: list[str],
    measured: list[tuple[Probe, RunResult, Captured]],
    read_all: ReadAll,
    redis: bool,
) -> None:
    print()
    print("PostgreSQL, redis " + ("on" if redis else "off (local-memory cache)"))
    print(f"server: config.serve, {args.workers} processes; client: {args.concurrency} threads")
    for fact in facts:
        print(fact)
    print()
    print(
        f"{'probe':<13}{'URL':<44}{'reqs':>6}{'rps':>6}{'p50 ms':>8}{'p90 ms':>8}{'p99 ms':>8}"
        f"{'queries':>9}"
    )
    for probe, result, captured in measured:
        queries = f"{len(captured.labels)}/{probe.budget}"
        print(
            f"{probe.name:<13}{probe.url:<44}{result.requests:>6}{result.rps:>6.0f}"
            f"{result.percentile_ms(50):>8.2f}{result.percentile_ms(90):>8.2f}"
            f"{result.percentile_ms(99):>8.2f}{queries:>9}"
        )
    print("queries: measured/budget per request, the token's user lookup included")
    first = measured[0][1].percentile_ms(99)
    verdict = "met" if first < TARGET_FIRST_PAGE_P99_MS else "MISSED"
    print(f"target first page p99 < {TARGET_FIRST_PAGE_P99_MS:g} ms: {verdict} ({first:.2f} ms)")
    over = [p.name for p, _, c in measured if len(c.labels) > p.budget]
    print("query budgets: " + ("met" if not over else f"EXCEEDED by {', '.join(over)}"))
    print(
        f"read-all, once in-process (rolled back): {read_all.updated:,} rows in one UPDATE, "
        f"{read_all.elapsed_ms:.0f} ms, {read_all.queries} queries with the token's user"
    )
    print()
    print("Plans (EXPLAIN ANALYZE of each request's own queries, run in-process):")
    for probe, _, captured in measured:
        print(f"{probe.name}: {' + '.join(captured.labels)}")
        for kind, lines in captured.plans:
            print(f"  [{kind}]")
            for line in plan_lines(lines, full=args.full_plans):
                print(f"    {line}")
    print("read-all:")
    for line in read_all.plan:
        print(f"    {line}")


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


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with (
        throwaway_database(DATABASE_PREFIX) as database_url,
        tempfile.TemporaryDirectory(prefix="bench-notifications-") as tmp,
    ):
        return measure(args, database_url, Path(tmp) / "server.log")


def measure(args: argparse.Namespace, database_url: str, log_path: Path) -> int:
    os.environ["DATABASE_URL"] = database_url
    os.environ["DJANGO_SETTINGS_MODULE"] = SETTINGS_MODULE
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from accounts.services.sessions import session_issue

    try:
        with timed("migrate"):
            call_command("migrate", interactive=False, verbosity=0)
        with timed(f"fill {args.target_rows + args.other_rows:,} notifications"):
            target = fill(args)
        with timed("VACUUM ANALYZE"):
            vacuum_analyze()
        facts = table_facts(target)
        token = session_issue(user=target).token
        bearer = {"Authorization": f"Bearer {token}"}
        chosen = probes(args.deep_page)
        with timed("in-process query capture and EXPLAIN ANALYZE"):
            captured = [capture(probe.url, token) for probe in chosen]

        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        port = free_port()
        with log_path.open("wb") as log:
            server_process = start_server(env, port, args.workers, log)
            try:
                wait_until_ready(server_process, port)
                for probe in chosen:
                    warmup = max(WARMUP_REQUESTS, args.concurrency)
                    run(port, probe.url, warmup, args.concurrency, bearer)
                results = [
                    run(port, probe.url, args.requests, args.concurrency, bearer)
                    for probe in chosen
                ]
            finally:
                stop_server(server_process)
        # Last: even rolled back, the UPDATE clears the visibility map of the pages it touched,
        # and the index-only scans measured above would then have to visit the table.
        read_all = read_all_once(token)
    except BenchError as exc:
        print(f"bench failed: {exc}", file=sys.stderr)
        if log_path.exists():
            print(log_path.read_text(errors="replace")[-4000:], file=sys.stderr)
        return 1
    measured = list(zip(chosen, results, captured, strict=True))
    report(args, facts, measured, read_all, redis=bool(settings.REDIS_URL))
    return 0


if __name__ == "__main__":
    sys.exit(main())
