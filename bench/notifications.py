"""Notification center bench: list pages and the unread count at 100,000 rows per user.

Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB python -m bench.notifications
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
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench import harness
from bench.harness import BenchError, RunResult, plan_lines, run, timed, verdict

NAME = "notifications"
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

# One statement: 1.1 million rows in time order, the target's spread among the others'.
FILL_SQL = f"""
INSERT INTO notifications_notification
    (id, user_id, title, message, category, type, read, metadata, created_at)
SELECT
    gen_random_uuid(),
    {harness.SPREAD_OWNER_SQL},
    'Notification ' || g,
    'Benchmark notification number ' || g || ': something happened you may want to know.',
    (%(categories)s::text[])[1 + g %% 8],
    (%(types)s::text[])[1 + g %% 8],
    random() >= %(unread_share)s,
    jsonb_build_object('seq', g),
    {harness.SPREAD_CREATED_SQL}
FROM {harness.SPREAD_ROWS_SQL}
"""  # noqa: S608 (the harness's constants, not input)


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
    parser = harness.parser(NAME, __doc__, requests=(500, "per URL"),
                            concurrency=(2, "client threads"), workers=(2, "server processes"),
                            target_rows=100_000, other_rows=1_000_000, other_users=1_000,
                            deep_page=(4000, "page of 20 for the deep probe"))  # fmt: skip
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


def fill(args: argparse.Namespace) -> Any:
    """Users through the ORM, notifications in one INSERT ... SELECT, then the per-user
    counters; returns the target."""
    from django.db import connection

    from accounts.models import User

    target = User.objects.create_user(email=TARGET_EMAIL, full_name="Bench Target")
    harness.users_create("bench", args.other_users)
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
    _, sqls = harness.captured_get(url, token)
    labels, plans = [], []
    for sql in sqls:
        kind = label(sql)
        labels.append(kind)
        if kind != "token user":
            plans.append((kind, harness.explain(sql)))
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

    client = DjangoClient(SERVER_NAME=harness.HOST, HTTP_AUTHORIZATION=f"Bearer {token}")
    with transaction.atomic():
        with CaptureQueriesContext(connection) as context:
            began = time.perf_counter()
            response = client.post("/api/notifications/read-all", content_type="application/json")
            elapsed_ms = (time.perf_counter() - began) * 1000
        transaction.set_rollback(True)  # the measured pages keep their unread rows
    if response.status_code != 200:
        raise BenchError(f"in-process read-all answered {response.status_code}")
    plan = harness.explain(context.captured_queries[-1]["sql"], analyze=False)
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
    met = verdict(first < TARGET_FIRST_PAGE_P99_MS)
    print(f"target first page p99 < {TARGET_FIRST_PAGE_P99_MS:g} ms: {met} ({first:.2f} ms)")
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


def measure(bench: harness.Bench) -> int:
    args = bench.args
    bench.django_setup()
    from django.conf import settings

    from accounts.services.sessions import session_issue

    with timed(f"fill {args.target_rows + args.other_rows:,} notifications"):
        target = fill(args)
    with timed("VACUUM ANALYZE"):
        harness.vacuum_analyze("notifications_notification", "accounts_user")
    facts = table_facts(target)
    token = session_issue(user=target).token
    bearer = {"Authorization": f"Bearer {token}"}
    chosen = probes(args.deep_page)
    with timed("in-process query capture and EXPLAIN ANALYZE"):
        captured = [capture(probe.url, token) for probe in chosen]

    with bench.serving(args.workers) as server:
        for probe in chosen:
            warmup = max(WARMUP_REQUESTS, args.concurrency)
            run(server.port, probe.url, warmup, args.concurrency, bearer)
        results = [
            run(server.port, probe.url, args.requests, args.concurrency, bearer) for probe in chosen
        ]
    # Last: even rolled back, the UPDATE clears the visibility map of the pages it touched,
    # and the index-only scans measured above would then have to visit the table.
    read_all = read_all_once(token)
    measured = list(zip(chosen, results, captured, strict=True))
    report(args, facts, measured, read_all, redis=bool(settings.REDIS_URL))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return harness.main(NAME, parse_args, measure, argv, database_prefix=DATABASE_PREFIX)


if __name__ == "__main__":
    sys.exit(main())
