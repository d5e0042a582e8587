"""Scheduler bench: throughput of one run, exactly-once under concurrent runs, and lateness.

Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB python -m bench.scheduler
           [--records N] [--accounts N] [--latency-ms MS] [--runs N] [--window S]

On a throwaway database of the PostgreSQL server of DATABASE_URL (dropped at the end), with
the test suite's Dev.to stand-in, in a process of its own, answering every call after
--latency-ms:

1. one run: --records due records across --accounts accounts, published by one
   `scheduler_run()` (SCHEDULER_CONCURRENCY provider calls in flight): seconds and records/s;
2. --runs concurrent runs (threads, each with its own database connection) over a fresh set of
   --records due records: duplicates (a post created twice at a stand-in) and lost records;
3. lateness: records due at random moments over --window seconds while a loop runs the
   scheduler every SCHEDULER_INTERVAL_SECONDS, as beat does: p50/p99 of published - due.

REDIS_URL is used when set. Exits non-zero on errors, duplicates or lost records.
"""

import argparse
import multiprocessing
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from bench import harness
from bench.harness import verdict

NAME = "scheduler"
DATABASE_PREFIX = "fgp_bench_scheduler_"
TARGET_SECONDS = 5.0
TARGET_LATENESS_P99 = 15.0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = harness.parser(NAME, __doc__, records=1000, accounts=100, latency_ms=50.0, runs=4,
                            window=(40.0, "lateness window, seconds"),
                            lateness_records=200)  # fmt: skip
    return parser.parse_args(argv)


def accounts_create(count: int) -> list[Any]:
    """`count` users with a Dev.to account each, keyed for the stand-in (made directly:
    connecting is not what is measured)."""
    from social.models import SocialAccount
    from tests.social.standins import DEVTO_KEY

    users = harness.users_create("bench-scheduler", count)
    accounts = [
        SocialAccount(user=user, provider="devto", provider_user_id=str(number),
                      username=f"u{number}", access_token=DEVTO_KEY)
        for number, user in enumerate(users)
    ]  # fmt: skip
    for account in accounts:
        account.save()  # one by one: the credentials are encrypted on save
    return accounts


def standin_process(latency: float, ready: Any) -> None:
    """The Dev.to stand-in in a process of its own, as a real provider is: its request
    handling does not share this process's interpreter lock."""
    from tests.social.standins import DevtoStandIn, serve

    with serve(DevtoStandIn(latency=latency)) as standin:
        ready.send(standin.url)
        threading.Event().wait()


def records_create(accounts: list[Any], count: int, due: Any, tag: str) -> list[Any]:
    """`count` records spread over the accounts, one post each, due at `due(i)`."""
    from social.models import Post, ScheduledRecord

    posts, records = [], []
    for i in range(count):
        account = accounts[i % len(accounts)]
        post = Post(user_id=account.user_id, title=f"{tag} {i}", content=f"{tag} post {i}",
                    status="Scheduled")  # fmt: skip
        posts.append(post)
        moment = due(i)
        records.append(ScheduledRecord(post=post, user_id=account.user_id, account=account,
                                       provider=account.provider, scheduled_time=moment,
                                       due_at=moment))  # fmt: skip
    Post.objects.bulk_create(posts, batch_size=500)
    ScheduledRecord.objects.bulk_create(records, batch_size=500)
    return records


def created_posts(url: str) -> Counter[str]:
    """How many times each text was created at the stand-in."""
    import requests

    from tests.social.standins import DEVTO_KEY

    articles = requests.get(
        f"{url}/api/articles/me/all", headers={"api-key": DEVTO_KEY}, timeout=30
    ).json()
    return Counter(article["body_markdown"] for article in articles)


def measure(bench: harness.Bench) -> int:
    args = bench.args
    bench.django_setup()
    from django.conf import settings
    from django.db import connections
    from django.utils import timezone

    from social.models import ScheduledRecord
    from social.services.scheduler import scheduler_run

    failures = 0
    receiving, sending = multiprocessing.Pipe(duplex=False)
    standin = multiprocessing.Process(
        target=standin_process, args=(args.latency_ms / 1000, sending), daemon=True
    )
    standin.start()
    try:
        url = receiving.recv()
        settings.DEVTO_API_URL = f"{url}/api"
        settings.SOCIAL_HTTP_TIMEOUT_SECONDS = 10.0
        batch = settings.SCHEDULER_BATCH_SIZE
        settings.SCHEDULER_BATCH_SIZE = max(batch, args.records)
        accounts = accounts_create(args.accounts)
        past = timezone.now() - timedelta(seconds=1)

        # 1. One run.
        records_create(accounts, args.records, lambda i: past, "single")
        began = time.perf_counter()
        report = scheduler_run()
        seconds = time.perf_counter() - began
        published = report.successful
        print(f"one run: {published}/{args.records} published in {seconds:.2f} s "
              f"({published / seconds:.0f} records/s; concurrency "
              f"{settings.SCHEDULER_CONCURRENCY}, {args.latency_ms:g} ms per call; target "
              f"<= {TARGET_SECONDS:g} s: {verdict(seconds <= TARGET_SECONDS)})")  # fmt: skip
        failures += published != args.records

        # 2. Concurrent runs, each claiming at most the default batch at a time.
        settings.SCHEDULER_BATCH_SIZE = min(batch, max(1, args.records // (2 * args.runs)))
        records_create(accounts, args.records, lambda i: past, "race")
        barrier = threading.Barrier(args.runs)

        def one_run(_: int) -> int:
            try:
                barrier.wait()
                total = 0
                while True:
                    outcomes = scheduler_run().outcomes
                    total += len(outcomes)
                    if not outcomes:
                        return total
            finally:
                connections.close_all()

        began = time.perf_counter()
        with ThreadPoolExecutor(max_workers=args.runs) as pool:
            processed = list(pool.map(one_run, range(args.runs)))
        seconds = time.perf_counter() - began
        texts = created_posts(url)
        race = {text: n for text, n in texts.items() if text.startswith("race post")}
        duplicates = sum(n - 1 for n in race.values())
        lost = (
            ScheduledRecord.objects.filter(post__title__startswith="race")
            .exclude(status="Published")
            .count()
        )
        print(f"{args.runs} concurrent runs: {sum(processed)} records processed "
              f"({', '.join(map(str, processed))} per run) in {seconds:.2f} s; "
              f"{duplicates} duplicates, {lost} lost")  # fmt: skip
        failures += bool(duplicates or lost)

        # 3. Lateness with the scheduler every SCHEDULER_INTERVAL_SECONDS.
        interval = float(settings.SCHEDULER_INTERVAL_SECONDS)
        start = timezone.now() + timedelta(seconds=2)
        rng = random.Random(42)
        offsets = sorted(rng.uniform(0, args.window) for _ in range(args.lateness_records))
        records_create(accounts, args.lateness_records,
                       lambda i: start + timedelta(seconds=offsets[i]), "late")  # fmt: skip
        deadline = time.monotonic() + 2 + args.window + interval + 10
        while time.monotonic() < deadline:
            scheduler_run()
            if not ScheduledRecord.objects.filter(
                post__title__startswith="late", status="Scheduled"
            ).exists():
                break
            time.sleep(interval)
        late = [
            (record.published_at - record.scheduled_time).total_seconds()
            for record in ScheduledRecord.objects.filter(post__title__startswith="late")
            if record.published_at is not None
        ]
        p50, p99 = harness.percentile(late, 50), harness.percentile(late, 99)
        print(f"lateness (due -> published), scheduler every {interval:g} s, "
              f"{len(late)}/{args.lateness_records} published over {args.window:g} s: "
              f"p50 {p50:.1f} s, p99 {p99:.1f} s (goal p99 <= {TARGET_LATENESS_P99:g} s: "
              f"{verdict(p99 <= TARGET_LATENESS_P99)})")  # fmt: skip
        failures += len(late) != args.lateness_records
    finally:
        standin.terminate()
    return 1 if failures else 0


def timed_measure(bench: harness.Bench) -> int:
    with harness.timed("bench"):
        return measure(bench)


def main(argv: Sequence[str] | None = None) -> int:
    return harness.main(
        NAME,
        parse_args,
        timed_measure,
        argv,
        needs=["DATABASE_URL"],
        database_prefix=DATABASE_PREFIX,
    )


if __name__ == "__main__":
    sys.exit(main())
