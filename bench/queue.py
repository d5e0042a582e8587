"""Posting queue bench: a queue of 2,000 waiting records on one account, adding to it and
reading it, and a reorder of 500 records in one request (social.md section 11).

Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB python -m bench.queue
           [--pending N] [--requests N] [--workers W] [--reorder N] [--reorders N]

On a throwaway database of the PostgreSQL server of DATABASE_URL (dropped at the end): one user
with a Mastodon account whose queue has 50 weekly slots (the most a queue takes) and --pending
waiting queued records (their posts and records written in bulk, on the queue's first slots),
and a second account with --reorder queued records. Served by config.serve (--workers
processes), one client at a time (latency, each request meeting an idle server):

1. `GET /api/social/queue/{accountId}` --requests times: p50, p99;
2. `POST /api/social/queue` --requests times (a new post each, added last: the queue grows by
   as many): p50, p99;
3. `POST /api/social/queue/{accountId}/reorder` of the second account's --reorder records,
   reversed, then back, --reorders times: p50 and the slowest.

The SQL queries of one GET and one POST are counted in-process on a queue of 10 records and on
the full one: the counts must be the same (a constant number of queries). No provider is
called (nothing is due). Exits non-zero on errors, never on a missed target.
"""

import argparse
import http.client
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from bench import harness
from bench.harness import HOST, BenchError, Summary, timed, verdict

NAME = "queue"
DATABASE_PREFIX = "fgp_bench_queue_"
TARGET_P99_MS = 30.0
TARGET_REORDER_MS = 200.0
BULK = 1000  # rows per INSERT when filling
# 50 slots a week, the most a queue takes: 2,000 records fill 40 weeks of it.
SLOTS = [
    {"day": day, "time": f"{hour:02d}:{minute:02d}"}
    for day in ("mon", "tue", "wed", "thu", "fri")
    for hour in (8, 10, 12, 14, 16)
    for minute in (0, 30)
]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = harness.parser(
        NAME, __doc__, pending=2000, requests=300, workers=2, reorder=500, reorders=20
    )
    args = parser.parse_args(argv)
    if args.requests < 2 or args.reorders < 2:
        parser.error("--requests and --reorders must be at least 2")
    return args


def account_with_queue(user: Any, name: str) -> Any:
    from social.models import AccountQueue, SocialAccount

    account = SocialAccount.objects.create(
        user=user, workspace=user.personal_workspace, provider="mastodon", provider_user_id=name,
        instance="https://bench.example", username=name,
        access_token="bench-token",  # noqa: S106 (no platform is called)
    )  # fmt: skip
    AccountQueue.objects.create(account=account, time_zone="Europe/Paris", slots=SLOTS)
    return account


def fill(account: Any, count: int) -> list[str]:
    """`count` posts queued on the account's first free slots, in bulk; their record ids in
    queue order."""
    from zoneinfo import ZoneInfo

    from django.utils import timezone

    from social.models import Post, ScheduledRecord
    from social.planning.wallclock import Week

    week = Week.of(SLOTS, ZoneInfo("Europe/Paris"))
    last = (
        ScheduledRecord.objects.filter(account=account, queued=True)
        .order_by("-scheduled_time")
        .values_list("scheduled_time", flat=True)
        .first()
    )
    times = week.times(max(last, timezone.now()) if last else timezone.now())
    ids = []
    for start in range(0, count, BULK):
        size = min(BULK, count - start)
        posts = Post.objects.bulk_create(
            [Post(user_id=account.user_id, workspace_id=account.workspace_id,
                  content=f"Queued post {start + n}", status="Scheduled",
                  provider_set="|mastodon|") for n in range(size)]
        )  # fmt: skip
        records = []
        for post in posts:
            at = next(times)
            records.append(ScheduledRecord(
                post=post, user_id=account.user_id, workspace_id=account.workspace_id,
                account=account, provider="mastodon",
                scheduled_time=at, due_at=at, queued=True,
            ))  # fmt: skip
        ids += [str(r.pk) for r in ScheduledRecord.objects.bulk_create(records)]
    return ids


def queries_of(token: str, account_id: str) -> tuple[int, int]:
    """The SQL queries of one GET of the queue and one POST to it, in-process (each request
    made once before, so that caches are warm)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(SERVER_NAME=HOST, HTTP_AUTHORIZATION=f"Bearer {token}")
    body = json.dumps({"content": "Counted", "accountIds": [account_id]})
    counts = []
    for method, url, data in (
        ("get", f"/api/social/queue/{account_id}", None),
        ("post", "/api/social/queue", body),
    ):
        call = getattr(client, method)
        call(url, data, content_type="application/json") if data else call(url)
        with CaptureQueriesContext(connection) as context:
            response = call(url, data, content_type="application/json") if data else call(url)
        if response.status_code != 200:
            raise BenchError(f"in-process {method.upper()} {url}: {response.content[:300]!r}")
        counts.append(len(context.captured_queries))
    return counts[0], counts[1]


def timed_calls(
    port: int, token: str, method: str, url: str, bodies: list[dict[str, Any]]
) -> list[float]:
    """One request per body on one kept-alive connection; milliseconds each, all 200."""
    connection = http.client.HTTPConnection(HOST, port, timeout=harness.REQUEST_TIMEOUT_SECONDS)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    taken = []
    try:
        for body in bodies:
            payload = json.dumps(body) if body else None
            began = time.perf_counter()
            connection.request(method, url, body=payload, headers=headers)
            response = connection.getresponse()
            answer = response.read()
            taken.append((time.perf_counter() - began) * 1000)
            if response.status != 200:
                raise BenchError(f"{method} {url} answered {response.status}: {answer[:300]!r}")
    finally:
        connection.close()
    return taken


def measure(bench: harness.Bench) -> int:
    args = bench.args
    bench.django_setup()
    from accounts.services.sessions import session_issue
    from accounts.services.users import user_create
    from social.models import ScheduledRecord

    user = user_create(email="bench-queue@example.com", full_name="Bench Queue")
    token = session_issue(user=user).token
    account = account_with_queue(user, "queue")
    other = account_with_queue(user, "reorder")
    account_id = str(account.pk)
    fill(account, 10)
    small = queries_of(token, account_id)
    with timed(f"fill {args.pending:,} + {args.reorder:,} queued records"):
        fill(account, args.pending - ScheduledRecord.objects.filter(account=account).count())
        order = fill(other, args.reorder)
    harness.vacuum_analyze("social_post", "social_scheduledrecord")
    full = queries_of(token, account_id)
    pending = ScheduledRecord.objects.filter(account=account, status="Scheduled").count()
    queue_url = f"/api/social/queue/{account_id}"
    reorder_url = f"/api/social/queue/{other.pk}/reorder"
    with bench.serving(args.workers) as server:
        # Warm every server process's caches and connections first.
        timed_calls(server.port, token, "GET", queue_url, [{}] * 20)
        reads = timed_calls(server.port, token, "GET", queue_url, [{}] * args.requests)
        adds = timed_calls(
            server.port, token, "POST", "/api/social/queue",
            [{"content": f"Bench post {n}", "accountIds": [account_id]}
             for n in range(args.requests)],
        )  # fmt: skip
        reorders = []
        for _ in range(args.reorders):
            order.reverse()
            reorders += timed_calls(server.port, token, "POST", reorder_url, [{"recordIds": order}])
    got = Summary.of(reads)
    added = Summary.of(adds)
    reordered = Summary.of(reorders)
    print()
    print(f"queue of {pending:,} waiting records on one account (50 slots a week), "
          f"{args.workers} server processes, one client:")  # fmt: skip
    print(f"  GET {queue_url.replace(account_id, '{accountId}')}: {got.count} requests, "
          f"p50 {got.p50:.2f} ms, p99 {got.p99:.2f} ms "
          f"(target p99 < {TARGET_P99_MS:g} ms: {verdict(got.p99 < TARGET_P99_MS)})")  # fmt: skip
    print(f"  POST /api/social/queue (added last; the queue grew to "
          f"{pending + args.requests:,}): p50 {added.p50:.2f} ms, p99 {added.p99:.2f} ms "
          f"(target p99 < {TARGET_P99_MS:g} ms: {verdict(added.p99 < TARGET_P99_MS)})")  # fmt: skip
    constant = "constant" if small == full else "NOT CONSTANT"
    print(f"  queries per request, 10 records -> {args.pending:,}: GET {small[0]} -> {full[0]}, "
          f"POST {small[1]} -> {full[1]} ({constant}; the token's user included)")  # fmt: skip
    slowest = max(reorders)
    print(
        f"  POST .../reorder of {args.reorder} records (all of them move), {reordered.count} "
        f"times: p50 {reordered.p50:.1f} ms, slowest {slowest:.1f} ms "
        f"(target < {TARGET_REORDER_MS:g} ms: {verdict(slowest < TARGET_REORDER_MS)})"
    )
    moved = ScheduledRecord.objects.filter(pk__in=order).order_by("scheduled_time")
    if [str(pk) for pk in moved.values_list("pk", flat=True)] != order:
        raise BenchError("the last reorder did not leave the records in the order sent")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return harness.main(NAME, parse_args, measure, argv, database_prefix=DATABASE_PREFIX)


if __name__ == "__main__":
    sys.exit(main())
