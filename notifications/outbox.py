"""The outbox's consumers and the one dispatcher that hands every event to each of them.

Flow: `event_record` writes an event in the writer's transaction and queues
`outbox_dispatch(sequence)` for when it commits. The dispatcher creates one
`OutboxConsumption` row per registered consumer (unique per (event, consumer): a repeated or
concurrent dispatch creates nothing twice), marks the event dispatched, and queues each row's
processing. Processing claims the row (`pending` -> `running`, one conditional UPDATE: one
worker wins), calls the consumer's handler outside any transaction, then records `done`, or a
retry with backoff, or `failed` after the last attempt. Handlers must be idempotent: a row
whose worker died is reclaimed after its lease and handled again.

Nothing is lost when a queueing is lost (a worker restart, a broker hiccup): the sweeper
(beat, every minute) dispatches events still undispatched after a grace period and processes
rows that are due or whose lease ran out. Retention: events older than
`OUTBOX_RETENTION_DAYS` are deleted with their rows.

Ordering: `sequence` grows with every insert, but two transactions can commit out of order,
so a consumer never scans "everything after sequence N"; it gets each event through its own
row. Clients that resume by sequence (the live feed) must allow for that (see its docs).

Consumers register from their app's AppConfig.ready() with `outbox_consumer(name, handler)`;
lower apps never import them.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from config.tasks import enqueue, enqueue_on_commit
from notifications.models import ConsumptionStatus, OutboxConsumption, OutboxEvent

logger = logging.getLogger(__name__)

BATCH_SIZE = 500  # rows per sweep query: one round trip each
MAX_ATTEMPTS = 5
LEASE_SECONDS = 300  # a claimed row not finished by then belonged to a worker that died
DISPATCH_GRACE_SECONDS = 30  # an event this old and undispatched lost its queueing

Handler = Callable[[OutboxEvent], object]  # what it returns is not used


@dataclass(frozen=True, slots=True)
class Consumer:
    name: str
    handle: Handler


_consumers: dict[str, Consumer] = {}


def outbox_consumer(name: str, handle: Handler) -> None:
    """Register a consumer: from now on every dispatched event is handed to `handle` once."""
    _consumers[name] = Consumer(name=name, handle=handle)


def outbox_consumers() -> dict[str, Consumer]:
    return dict(_consumers)


def _retry_delay(attempts: int) -> timedelta:
    return timedelta(seconds=min(30 * 2 ** (attempts - 1), 3600))


def outbox_dispatch(*, sequence: int) -> int:
    """Fan event `sequence` out to one row per consumer; the number of rows created."""
    now = timezone.now()
    with transaction.atomic():
        event = OutboxEvent.objects.filter(sequence=sequence).first()
        if event is None:
            return 0  # purged, or its user deleted
        existing = set(
            OutboxConsumption.objects.filter(event=event).values_list("consumer", flat=True)
        )
        rows = [
            OutboxConsumption(event=event, consumer=name, next_attempt_at=now, created_at=now)
            for name in _consumers
            if name not in existing
        ]
        # ignore_conflicts: a concurrent dispatcher may have created the same rows meanwhile.
        OutboxConsumption.objects.bulk_create(rows, ignore_conflicts=True)
        OutboxEvent.objects.filter(sequence=sequence, dispatched_at__isnull=True).update(
            dispatched_at=now
        )
        created = list(
            OutboxConsumption.objects.filter(
                event=event, consumer__in=[row.consumer for row in rows]
            ).values_list("pk", flat=True)
        )
        from notifications.tasks import outbox_process_task

        for consumption_id in created:
            enqueue_on_commit(outbox_process_task, consumption_id=consumption_id)
    return len(rows)


def outbox_claim(*, consumption_id: int) -> OutboxConsumption | None:
    """`pending` (and due) -> `running`; only one caller gets the row."""
    now = timezone.now()
    claimed = OutboxConsumption.objects.filter(
        pk=consumption_id, status=ConsumptionStatus.PENDING, next_attempt_at__lte=now
    ).update(status=ConsumptionStatus.RUNNING, claimed_at=now)
    if not claimed:
        return None
    return OutboxConsumption.objects.select_related("event").get(pk=consumption_id)


def outbox_process(*, consumption_id: int) -> str:
    """Claim a row and run its consumer; the row's status afterwards ("skipped" if unclaimed)."""
    row = outbox_claim(consumption_id=consumption_id)
    if row is None:
        return "skipped"
    consumer = _consumers.get(row.consumer)
    attempts = row.attempts + 1
    try:
        if consumer is None:
            raise LookupError(f"No consumer named {row.consumer!r} is registered.")
        consumer.handle(row.event)
    except Exception as exc:
        logger.exception("Outbox consumer %s failed on event #%s", row.consumer, row.event_id)
        failed = attempts >= MAX_ATTEMPTS
        OutboxConsumption.objects.filter(pk=row.pk, status=ConsumptionStatus.RUNNING).update(
            status=ConsumptionStatus.FAILED if failed else ConsumptionStatus.PENDING,
            attempts=attempts,
            next_attempt_at=timezone.now() + _retry_delay(attempts),
            last_error=f"{type(exc).__name__}: {exc}"[:500],
            claimed_at=None,
        )
        return ConsumptionStatus.FAILED if failed else ConsumptionStatus.PENDING
    OutboxConsumption.objects.filter(pk=row.pk, status=ConsumptionStatus.RUNNING).update(
        status=ConsumptionStatus.DONE, attempts=attempts, done_at=timezone.now(), last_error=""
    )
    return ConsumptionStatus.DONE


def outbox_sweep() -> dict[str, int]:
    """Catch up on what a lost queueing or a dead worker left behind."""
    now = timezone.now()
    # Rows whose worker died: back to pending (handled again; handlers are idempotent).
    reclaimed = OutboxConsumption.objects.filter(
        status=ConsumptionStatus.RUNNING, claimed_at__lt=now - timedelta(seconds=LEASE_SECONDS)
    ).update(status=ConsumptionStatus.PENDING, claimed_at=None)
    undispatched = list(
        OutboxEvent.objects.filter(
            dispatched_at__isnull=True,
            created_at__lt=now - timedelta(seconds=DISPATCH_GRACE_SECONDS),
        )
        .order_by("sequence")
        .values_list("sequence", flat=True)[:BATCH_SIZE]
    )
    for sequence in undispatched:
        outbox_dispatch(sequence=sequence)
    due = list(
        OutboxConsumption.objects.filter(
            Q(status=ConsumptionStatus.PENDING), next_attempt_at__lte=now
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:BATCH_SIZE]
    )
    from notifications.tasks import outbox_process_task

    for consumption_id in due:
        enqueue(outbox_process_task, consumption_id=consumption_id)
    return {"reclaimed": reclaimed, "dispatched": len(undispatched), "queued": len(due)}


def outbox_purge() -> int:
    """Delete events (and their rows) older than the retention; the number of events."""
    cutoff = timezone.now() - timedelta(days=settings.OUTBOX_RETENTION_DAYS)
    deleted = 0
    while True:
        batch = list(
            OutboxEvent.objects.filter(created_at__lt=cutoff).values_list("sequence", flat=True)[
                :BATCH_SIZE
            ]
        )
        if not batch:
            return deleted
        OutboxConsumption.objects.filter(event_id__in=batch).delete()
        OutboxEvent.objects.filter(sequence__in=batch).delete()
        deleted += len(batch)
