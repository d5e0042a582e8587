"""Webhooks bench: 1,000 events delivered to one receiver through the real pipeline, and a
receiver that is down next to a healthy one.

Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB REDIS_URL=redis://HOST:PORT/N
           python -m bench.webhooks [--events N] [--latency-ms MS] [--concurrency C]

On a throwaway database of the PostgreSQL server of DATABASE_URL (dropped at the end) and the
Redis of REDIS_URL (the broker), it starts a Celery worker as `make run` does (prefork,
--concurrency, default 2), reading both the default queue and the deliveries' own, and a local
receiver answering after --latency-ms. Events are recorded in the outbox in one transaction;
the worker dispatches them in passes of up to 100 to the webhooks consumer, which makes their
deliveries and queues a task for each 32, each task sending the next 32 due (owners taking
turns) at once. Reported: the time until every delivery succeeded, and, with a
second endpoint whose receiver refuses connections, how long the healthy endpoint's
deliveries take beside it.
Exits non-zero when deliveries are missing.
"""

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any

from bench import harness
from bench.harness import HOST, verdict
from tests.harness import Receiver, celery_worker_command

NAME = "webhooks"
DATABASE_PREFIX = "fgp_bench_webhooks_"
TARGET_SECONDS = 10.0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = harness.parser(NAME, __doc__, events=1000, latency_ms=20.0,
                            concurrency=(2, "worker processes"),
                            timeout=(120.0, "give up after (s)"))  # fmt: skip
    return parser.parse_args(argv)


def emit(user: Any, count: int) -> None:
    from django.db import transaction

    from notifications import events

    with transaction.atomic():
        for _ in range(count):
            events.emit(
                user=user,
                payload=events.credits_depleted(user_id=str(user.pk), remaining_credits=0),
            )


def wait_delivered(endpoint: Any, count: int, timeout: float) -> float | None:
    """Seconds until `count` deliveries to `endpoint` succeeded (None: not within `timeout`);
    prints when the events were all dispatched and their deliveries all made on the way."""
    from notifications.models import OutboxEvent, WebhookDelivery

    began = time.perf_counter()
    milestones: dict[str, float] = {}
    while time.perf_counter() - began < timeout:
        elapsed = time.perf_counter() - began
        if (
            "dispatched" not in milestones
            and not OutboxEvent.objects.filter(dispatched_at__isnull=True).exists()
        ):
            milestones["dispatched"] = elapsed
        deliveries = WebhookDelivery.objects.filter(endpoint=endpoint)
        if "made" not in milestones and deliveries.count() >= count:
            milestones["made"] = elapsed
        if deliveries.filter(status="succeeded").count() >= count:
            steps = ", ".join(f"{name} at {at:.1f} s" for name, at in milestones.items())
            print(f"  (events all {steps})")
            return time.perf_counter() - began
        time.sleep(0.1)
    return None


def undelivered(endpoint: Any) -> None:
    from django.db.models import Count

    from notifications.models import WebhookDelivery

    rows = (
        WebhookDelivery.objects.filter(endpoint=endpoint)
        .exclude(status="succeeded")
        .values("status", "attempts", "last_error")
        .annotate(n=Count("id"))
    )
    for row in rows:
        print(f"  not delivered: {row}")


def measure(bench: harness.Bench) -> int:
    args = bench.args
    bench.django_setup(OUTBOUND_ALLOW_PRIVATE="1")  # the receivers listen on 127.0.0.1
    from accounts.models import User
    from accounts.services.workspaces import workspace_personal
    from notifications.services.webhooks import endpoint_create

    schedule = bench.tmp / "celerybeat-schedule"
    receiver = Receiver(latency=args.latency_ms / 1000)
    url, received = receiver.url, receiver.deliveries
    # A worker as `make run` starts them (2 processes), reading both the default queue and the
    # deliveries' own, with beat inside (-B): its sweeper retries what fails.
    worker = harness.spawn(
        celery_worker_command(args.concurrency, queues="celery,webhooks", beat_schedule=schedule),
        harness.server_env(),
    )
    failures = 0
    try:
        time.sleep(5)  # the worker's start
        user = User.objects.create_user(email="bench-webhooks@example.com")
        actor = workspace_personal(user=user)  # the user's events go to their personal workspace
        healthy, _ = endpoint_create(actor=actor, url=url, events=["credits.depleted"])
        began = time.perf_counter()
        emit(user, args.events)
        recorded = time.perf_counter() - began
        print(f"  ({args.events} events recorded and queued in {recorded:.1f} s)")
        seconds = wait_delivered(healthy, args.events, args.timeout)
        if seconds is None:
            print(f"{len(received)}/{args.events} delivered before the timeout")
            undelivered(healthy)
            failures += 1
        else:
            total = time.perf_counter() - began
            print(f"{args.events} events -> {len(received)} deliveries at {args.latency_ms:g} ms "
                  f"per answer, worker concurrency {args.concurrency}: all delivered in "
                  f"{total:.2f} s ({args.events / total:.0f}/s; target <= "
                  f"{TARGET_SECONDS:g} s: {verdict(total <= TARGET_SECONDS)})")  # fmt: skip
        # A receiver that is down, next to the healthy one.
        down_url = f"http://{HOST}:{harness.free_port()}/hook"
        endpoint_create(actor=actor, url=down_url, events=["credits.depleted"])
        share = max(1, args.events // 5)
        received.clear()
        began = time.perf_counter()
        emit(user, share)
        seconds = wait_delivered(healthy, args.events + share, args.timeout)
        if seconds is None:
            failures += 1
            print("deliveries beside a down receiver did not finish")
            undelivered(healthy)
        else:
            took = time.perf_counter() - began
            print(f"{share} events with a second endpoint refusing connections: the healthy "
                  f"endpoint's {share} deliveries took {took:.2f} s")  # fmt: skip
    finally:
        harness.stop(worker, timeout=30)
        receiver.close()
    return 1 if failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    return harness.main(
        NAME, parse_args, measure, argv, needs=["REDIS_URL"], database_prefix=DATABASE_PREFIX
    )


if __name__ == "__main__":
    sys.exit(main())
