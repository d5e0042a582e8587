"""Scheduler bench: lateness of the periodic run and of the timer side by side, a burst of
records due at the same second over 2 and 4 worker processes, a worker killed mid-burst, and
the CPU each published record costs.

Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB [REDIS_URL=redis://HOST:PORT/N]
           python -m bench.scheduler [--burst N] [--accounts N] [--latency-ms MS]
           [--window S] [--lateness-records N] [--lease S]
           [--cpu-records N] [--parts lateness,burst2,burst4,killed,cpu]

On a throwaway database of the PostgreSQL server of DATABASE_URL (dropped at the end), with the
tests' Dev.to stand-in (bench/platform.py: on one asyncio loop, a key per account) in a process
of its own answering every call after --latency-ms, which notes when each create reached it:

1. lateness, side by side: --lateness-records records due at random moments over --window
   seconds, (a) with the periodic run alone every SCHEDULER_INTERVAL_SECONDS (the design before
   the timer: a loop in this process, as beat ran it), then (b) with the timer of a real Celery
   worker of 2 processes (`celery -A config worker -c 2`, the default worker; no beat): p50 and
   p99 of (the create reaching the platform - the record's time);
2. a burst: --burst records across --accounts accounts, all due at the same second, published
   by a worker of 2 processes, then of 4: seconds from their time to the last create, records/s,
   the CPU the worker processes spent per published record, duplicates (a post created twice
   at the platform) and lost records (not Published);
3. the burst again on 2 processes with one pool process killed (SIGKILL) in the middle: its
   claimed records come back when their lease (--lease seconds here) runs out, are looked up
   and published once; duplicates and lost;
4. cpu: --cpu-records records due now, published by one timer pass in this process against a
   platform answering at once: the CPU a record costs the timer's thread (claiming and
   settling) and the call threads, apart (steadier than the burst's seconds on a noisy
   machine: what a change to either costs shows here first).

The workers use Redis as their broker when REDIS_URL is set (the embedded file broker
otherwise; the timer does not depend on it). Exits non-zero on errors, duplicates or lost
records, never on a missed target.
"""

import argparse
import multiprocessing
import os
import random
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bench import harness
from bench.harness import verdict
from bench.platform import KEY_PREFIX, devto_process
from tests.harness import celery_worker_command

NAME = "scheduler"
DATABASE_PREFIX = "fgp_bench_scheduler_"
TARGET_LATENESS_P99 = 1.0  # seconds, with the timer
TARGET_BURST_SECONDS = 10.0  # 10,000 records at one second, 2 worker processes
WORKER_START_SECONDS = 60.0
CLK_TCK = os.sysconf("SC_CLK_TCK")
PARTS = ("lateness", "burst2", "burst4", "killed", "cpu")
ANALYZED = ("social_scheduledrecord", "social_post", "social_socialaccount", "accounts_user")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = harness.parser(
        NAME, __doc__, burst=10_000, accounts=500, latency_ms=50.0,
        window=(60.0, "lateness window, seconds"), lateness_records=300, cpu_records=3000,
        lease=(15, "SCHEDULER_LEASE_SECONDS of the workers (the killed one's records)"),
    )  # fmt: skip
    parser.add_argument(
        "--parts", default=",".join(PARTS),
        help=f"which parts to run, comma-separated (default all: {','.join(PARTS)})",
    )  # fmt: skip
    args = parser.parse_args(argv)
    args.parts = set(args.parts.split(","))
    if args.parts - set(PARTS):
        parser.error(f"--parts: unknown {', '.join(sorted(args.parts - set(PARTS)))}")
    return args


# --- The platform ---------------------------------------------------------------------------


class Platform:
    def __init__(self, latency: float) -> None:
        self.pipe, theirs = multiprocessing.Pipe()
        self.process = multiprocessing.Process(
            target=devto_process, args=(latency, theirs), daemon=True
        )
        self.process.start()
        self.url: str = self.pipe.recv()

    def creates(self, prefix: str) -> list[tuple[str, float]]:
        self.pipe.send("creates")
        return [(text, at) for text, at in self.pipe.recv() if text.startswith(prefix)]

    def stop(self) -> None:
        self.process.terminate()


# --- Records --------------------------------------------------------------------------------


def accounts_create(count: int) -> list[Any]:
    """`count` users with a Dev.to account each, each account its own key at the platform
    (made directly: connecting is not what is measured)."""
    from social.models import SocialAccount

    users = harness.users_create("bench-scheduler", count)
    accounts = [
        SocialAccount(user=user, workspace=user.personal_workspace, provider="devto",
                      provider_user_id=str(number), username=f"u{number}",
                      access_token=f"{KEY_PREFIX}{number}")
        for number, user in enumerate(users)
    ]  # fmt: skip
    for account in accounts:
        account.save()  # one by one: the credentials are encrypted on save
    return accounts


def records_create(accounts: list[Any], count: int, due: Callable[[int], datetime],
                   tag: str) -> dict[str, datetime]:  # fmt: skip
    """`count` records spread over the accounts, one post each, due at `due(i)`; their texts'
    due times."""
    from social.models import Post, ScheduledRecord

    posts, records, times = [], [], {}
    for i in range(count):
        account = accounts[i % len(accounts)]
        text = f"{tag} post {i}"
        post = Post(user_id=account.user_id, workspace_id=account.workspace_id,
                    title=f"{tag} {i}", content=text, status="Scheduled")  # fmt: skip
        posts.append(post)
        moment = due(i)
        times[text] = moment
        records.append(ScheduledRecord(post=post, user_id=account.user_id,
                                       workspace_id=account.workspace_id, account=account,
                                       provider=account.provider, scheduled_time=moment,
                                       due_at=moment))  # fmt: skip
    Post.objects.bulk_create(posts, batch_size=1000)
    ScheduledRecord.objects.bulk_create(records, batch_size=1000)
    return times


def waiting() -> int:
    """Records not ended yet. The parts run one after another, each until its records have
    ended, so these are the running part's: counted from the scheduler's own partial indexes
    (polled five times a second, a join on the posts' titles took a sixth of the database's
    CPU during a burst)."""
    from social.models import ScheduledRecord

    return ScheduledRecord.objects.filter(status__in=("Scheduled", "Publishing")).count()


def outcome(platform: Platform, tag: str, count: int) -> tuple[int, int]:
    """(duplicates, lost) of a set of records."""
    from social.models import ScheduledRecord

    texts = Counter(text for text, _ in platform.creates(f"{tag} post "))
    duplicates = sum(n - 1 for n in texts.values())
    published = ScheduledRecord.objects.filter(
        post__title__startswith=f"{tag} ", status="Published"
    ).count()
    return duplicates, count - published


def history_counts(tag: str) -> Counter[str]:
    """How often each outcome appears in the records' histories (deferred, lease_expired...)."""
    from social.models import ScheduledRecord

    histories = ScheduledRecord.objects.filter(post__title__startswith=f"{tag} ").values_list(
        "history", flat=True
    )
    return Counter(entry.get("outcome", "") for history in histories for entry in history)


def lateness(platform: Platform, times: dict[str, datetime], tag: str) -> list[float]:
    """Seconds from each record's time to its (first) create reaching the platform."""
    first: dict[str, float] = {}
    for text, at in platform.creates(f"{tag} post "):
        first.setdefault(text, at)
    return [first[text] - times[text].timestamp() for text in times if text in first]


# --- Workers --------------------------------------------------------------------------------


@contextmanager
def celery_worker(bench: harness.Bench, processes: int, **env: str) -> Iterator[Any]:
    """A real Celery worker (`processes` pool processes, each with its timer), no beat."""
    log = bench.log_path.open("ab")
    worker = harness.spawn(celery_worker_command(processes, heartbeat=False),
                           harness.server_env(**env), log=log)  # fmt: skip
    try:
        deadline = time.monotonic() + WORKER_START_SECONDS
        while len(pool_of(worker.pid)) < processes:
            if worker.poll() is not None or time.monotonic() > deadline:
                raise harness.BenchError("the Celery worker did not start")
            time.sleep(0.2)
        time.sleep(2.0)  # the pool processes import the apps and start their timers
        yield worker
    finally:
        harness.stop(worker, timeout=30)
        log.close()


def pool_of(pid: int) -> list[int]:
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(child) for child in children]


def cpu_seconds(pids: Sequence[int]) -> float:
    """User + system CPU of these processes so far."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLK_TCK


def wait_until_done(timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while waiting() and time.monotonic() < deadline:
        time.sleep(0.2)


def queue_drained(timeout: float) -> float:
    """Wait until the worker has taken every queued task (the outbox work of the events the
    records emitted), so that the next part starts on an idle worker; the seconds it took."""
    from django.conf import settings

    if not settings.REDIS_URL:
        return 0.0
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL)
    began = time.monotonic()
    while client.llen("celery") and time.monotonic() - began < timeout:
        time.sleep(0.2)
    return time.monotonic() - began


# --- Parts ----------------------------------------------------------------------------------


def lateness_periodic(
    args: argparse.Namespace, platform: Platform, accounts: list[Any]
) -> list[float]:
    from django.conf import settings
    from django.utils import timezone

    from social.publishing.services.scheduler import scheduler_run

    interval = float(settings.SCHEDULER_INTERVAL_SECONDS)
    start = timezone.now() + timedelta(seconds=2)
    rng = random.Random(42)
    times = records_create(accounts, args.lateness_records,
                           lambda i: start + timedelta(seconds=rng.uniform(0, args.window)),
                           "periodic")  # fmt: skip
    deadline = time.monotonic() + 2 + args.window + interval + 30
    while waiting() and time.monotonic() < deadline:
        scheduler_run()
        time.sleep(interval)
    return lateness(platform, times, "periodic")


def lateness_timer(args: argparse.Namespace, bench: harness.Bench, platform: Platform,
                   accounts: list[Any], env: dict[str, str]) -> list[float]:  # fmt: skip
    from django.utils import timezone

    with celery_worker(bench, 2, **env):
        start = timezone.now() + timedelta(seconds=2)
        rng = random.Random(43)
        times = records_create(accounts, args.lateness_records,
                               lambda i: start + timedelta(seconds=rng.uniform(0, args.window)),
                               "timer")  # fmt: skip
        wait_until_done(2 + args.window + 60)
        queue_drained(300)
    return lateness(platform, times, "timer")


def lateness_both(args: argparse.Namespace, bench: harness.Bench, platform: Platform,
                  accounts: list[Any], env: dict[str, str]) -> int:  # fmt: skip
    """Part 1: the periodic run's lateness and the timer's, printed side by side."""
    from django.conf import settings

    failures = 0
    for label, late in (
        (f"periodic run every {settings.SCHEDULER_INTERVAL_SECONDS:g} s (before)",
         lateness_periodic(args, platform, accounts)),
        ("timer, worker of 2 processes (now)",
         lateness_timer(args, bench, platform, accounts, env)),
    ):  # fmt: skip
        p50, p99 = harness.percentile(late, 50), harness.percentile(late, 99)
        goal = f"; goal p99 <= {TARGET_LATENESS_P99:g} s: {verdict(p99 <= TARGET_LATENESS_P99)}"
        print(f"lateness (time -> the platform has the create), {label}: {len(late)}/"
              f"{args.lateness_records} over {args.window:g} s: p50 {p50:.3f} s, "
              f"p99 {p99:.3f} s" + (goal if "timer" in label else ""), flush=True)  # fmt: skip
        failures += len(late) != args.lateness_records
    return failures


def burst(args: argparse.Namespace, bench: harness.Bench, platform: Platform,
          accounts: list[Any], env: dict[str, str], processes: int, tag: str,
          kill: bool = False) -> int:  # fmt: skip
    from django.utils import timezone

    from social.models import ScheduledRecord

    with celery_worker(bench, processes, **env) as worker:
        pool = pool_of(worker.pid)
        cpu_before = cpu_seconds([worker.pid, *pool])
        # Made an hour ahead, then all brought to the same second in one UPDATE: making
        # 10,000 posts takes the bench seconds of CPU, which must not overlap the burst.
        parked = timezone.now() + timedelta(hours=1)
        records_create(accounts, args.burst, lambda i: parked, tag)
        # The planner's statistics, as autovacuum would have them an hour on: on a table it
        # believes empty, PostgreSQL scans all 10,000 rows for each batch's claim.
        harness.vacuum_analyze(*ANALYZED)
        due = timezone.now().replace(microsecond=0) + timedelta(seconds=2)
        ScheduledRecord.objects.filter(due_at=parked).update(scheduled_time=due, due_at=due)
        killed = ""
        if kill:
            time.sleep(max(0.0, due.timestamp() - time.time()) + 1.5)
            victim = pool[0]
            os.kill(victim, signal.SIGKILL)
            killed = f", pool process {victim} killed 1.5 s in"
        wait_until_done(120 + args.lease * 2)
        cpu = cpu_seconds([worker.pid, *pool]) - cpu_before
        after = queue_drained(300)
    creates = platform.creates(f"{tag} post ")
    last = max((at for _, at in creates), default=due.timestamp())
    seconds = last - due.timestamp()
    duplicates, lost = outcome(platform, tag, args.burst)
    counts = history_counts(tag)
    published = args.burst - lost
    target = (
        ""
        if processes != 2 or kill
        else (f"; target <= {TARGET_BURST_SECONDS:g} s: {verdict(seconds <= TARGET_BURST_SECONDS)}")
    )
    print(f"burst, {processes} worker processes{killed}: {published}/{args.burst} published "
          f"{seconds:.2f} s after their time ({published / max(seconds, 1e-9):.0f} records/s), "
          f"CPU {cpu * 1000 / max(published, 1):.2f} ms per record in the workers"
          + ("" if kill else f" ({cpu:.1f} s)")
          + f"; the events' queued work done {after:.0f} s later"
          + f"; {counts['error']} failed attempts retried"
          + f"; {counts['lease_expired']} reclaimed after their lease, {counts['deferred']} "
          f"deferrals for a platform slot; {duplicates} duplicates, {lost} lost{target}",
          flush=True)  # fmt: skip
    return 1 if duplicates or lost else 0


def cpu_split(args: argparse.Namespace, accounts: list[Any]) -> int:
    """Part 4: one timer pass in this process over records due now, the platform answering at
    once; CPU per record of the timer's thread and of the rest of the process."""
    from django.conf import settings
    from django.utils import timezone

    from social.publishing.services.timer import timer_pass

    platform = Platform(0.0)
    try:
        settings.DEVTO_API_URL = f"{platform.url}/api"
        due = timezone.now() - timedelta(seconds=1)
        records_create(accounts, args.cpu_records, lambda i: due, "cpu")
        harness.vacuum_analyze(*ANALYZED)
        began, process, thread = time.perf_counter(), time.process_time(), time.thread_time()
        timer_pass(reap=False)
        seconds = time.perf_counter() - began
        process, thread = time.process_time() - process, time.thread_time() - thread
        duplicates, lost = outcome(platform, "cpu", args.cpu_records)
    finally:
        platform.stop()
    per = 1000 / args.cpu_records
    print(f"cpu, one timer pass in one process, {args.cpu_records} records, the platform "
          f"answering at once: {seconds:.2f} s; CPU per record {process * per:.2f} ms "
          f"(the timer's thread {thread * per:.2f} ms, the call threads and the rest "
          f"{(process - thread) * per:.2f} ms); {duplicates} duplicates, {lost} lost",
          flush=True)  # fmt: skip
    return 1 if duplicates or lost else 0


def measure(bench: harness.Bench) -> int:
    args = bench.args
    bench.django_setup()
    from django.conf import settings
    from django.test import override_settings

    platform = Platform(args.latency_ms / 1000)
    failures = 0
    try:
        settings.DEVTO_API_URL = f"{platform.url}/api"
        settings.SOCIAL_HTTP_TIMEOUT_SECONDS = 10.0
        # Through override_settings, whose setting_changed rebuilds the scheduler's configuration
        # (social/conf.py); an assignment to `settings` would leave it as it was.
        batch = max(settings.SCHEDULER_BATCH_SIZE, args.lateness_records)
        override_settings(SCHEDULER_BATCH_SIZE=batch).enable()
        env = {"DATABASE_URL": bench.database_url or "", "DEVTO_API_URL": settings.DEVTO_API_URL,
               "SOCIAL_HTTP_TIMEOUT_SECONDS": "10", "SCHEDULER_LEASE_SECONDS": str(args.lease),
               "SCHEDULER_INTERVAL_SECONDS": str(settings.SCHEDULER_INTERVAL_SECONDS),
               "CELERY_DATA_DIR": str(bench.tmp / "celery")}  # fmt: skip
        accounts = accounts_create(args.accounts)
        print(f"machine: a reference loop of pure Python took {harness.machine_speed():.2f} s "
              "of CPU (the figures in seconds scale with it)", flush=True)  # fmt: skip
        print(f"{args.accounts} Dev.to accounts; the platform answers after "
              f"{args.latency_ms:g} ms; SCHEDULER_CONCURRENCY {settings.SCHEDULER_CONCURRENCY} per "
              f"process, SCHEDULER_PROVIDER_CONCURRENCY {settings.SCHEDULER_PROVIDER_CONCURRENCY} "
              "in all", flush=True)  # fmt: skip

        if "lateness" in args.parts:
            failures += lateness_both(args, bench, platform, accounts, env)
        for tag, processes in (("burst2", 2), ("burst4", 4), ("killed", 2)):
            if tag in args.parts:
                failures += burst(args, bench, platform, accounts, env, processes, tag,
                                  kill=tag == "killed")  # fmt: skip
        if "cpu" in args.parts:
            failures += cpu_split(args, accounts)
    finally:
        platform.stop()
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
