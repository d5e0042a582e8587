"""The outbox's consumers and the one dispatcher that hands every event to each of them.

Flow: `outbox_record`, the event channel's subscriber to every public event, writes the events
in the emitter's transaction and queues `outbox_dispatch(sequence)` for when it commits. The
dispatcher creates one `OutboxConsumption` row per registered consumer (unique per (event,
consumer): a repeated or concurrent dispatch creates nothing twice) for that event and the
others waiting with it, marks them dispatched, and processes the new rows in the same task.
Processing claims a row (`pending` -> `running`, one conditional UPDATE: one worker wins),
calls the consumer's handler outside any transaction, then records `done`, or a retry with
backoff, or `failed` after the last attempt. Handlers must be idempotent: a row
whose worker died is reclaimed after its lease and handled again.

Nothing is lost when a queueing is lost (a worker restart, a broker hiccup): the sweeper
(beat, every minute) dispatches events still undispatched after a grace period and processes
rows that are due or whose lease ran out. Retention: events older than
`OUTBOX_RETENTION_DAYS` are deleted with their rows.

Ordering: `sequence` grows with every insert, but two transactions can commit out of order,
so a consumer never scans "everything after sequence N"; it gets each event through its own
row. Clients that resume by sequence (the live feed) must allow for that (see its docs).

Consumers register from their app's AppConfig.ready() with `outbox_consumer(name, handler)`;
lower apps never import them. A consumer may also say which events it has work for
(`wants`): an event no consumer wants (a user without webhook endpoints, say, which is most
of them) is recorded already dispatched, with no rows and no dispatch task: it stays in the
outbox for its retention, and costs nothing more. Interest is read when the event is
recorded: an endpoint created after that gets the events recorded after it.
"""

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone

from core.bulk import insert_values
from core.leases import Backoff, Lease
from core.tasks import enqueue, enqueue_on_commit, task_named
from notifications.events import Event
from notifications.models import ConsumptionStatus, OutboxConsumption, OutboxEvent

logger = logging.getLogger(__name__)

# This module's tasks (notifications/tasks.py imports this module, so they are named here).
DISPATCH_TASK = "notifications.tasks.outbox_dispatch_task"
PROCESS_TASK = "notifications.tasks.outbox_process_task"

BATCH_SIZE = 500  # rows per sweep query: one round trip each
DISPATCH_BATCH = 100  # events per dispatch pass; a pass runs their consumers before it ends
MAX_ATTEMPTS = 5
DISPATCH_GRACE_SECONDS = 30  # an event this old and undispatched lost its queueing

# A claimed row not finished within its lease belonged to a worker that died.
CONSUMPTIONS = Lease(
    OutboxConsumption,
    seconds=lambda: 300,
    waiting=ConsumptionStatus.PENDING,
    leased=ConsumptionStatus.RUNNING,
    backoff=Backoff(base=30, cap=3600),
)

Handler = Callable[[OutboxEvent], object]  # what it returns is not used
BatchHandler = Callable[[list[OutboxEvent]], object]
Interest = tuple[str, Any]  # (event name, workspace id) of an event about to be recorded
Wants = Callable[[Sequence[Interest]], list[bool]]


@dataclass(frozen=True, slots=True)
class Consumer:
    name: str
    handle: Handler
    # Optional: the same work for several events at once (a dispatch pass hands over its
    # whole batch); when it fails, each event is retried alone through `handle`.
    handle_many: BatchHandler | None = None
    # Optional: for each (event, workspace id), whether it has any work for it (in one query for
    # them all); without it, every event is handed over.
    wants: Wants | None = None


_consumers: dict[str, Consumer] = {}


def outbox_consumer(
    name: str,
    handle: Handler,
    *,
    handle_many: BatchHandler | None = None,
    wants: Wants | None = None,
) -> None:
    """Register a consumer: from now on every dispatched event it wants is handed to it once."""
    _consumers[name] = Consumer(name=name, handle=handle, handle_many=handle_many, wants=wants)


def outbox_wanted(interests: Sequence[Interest]) -> list[bool]:
    """For each (event, workspace id) about to be recorded, whether any consumer wants it: those
    that none wants are recorded dispatched already (the module's docstring)."""
    wanted = [False] * len(interests)
    for consumer in _consumers.values():
        if consumer.wants is None:
            return [True] * len(interests)
        for index, wants in enumerate(consumer.wants(interests)):
            wanted[index] = wanted[index] or wants
    return wanted


def outbox_record(emitted: list[Event]) -> None:
    """The event channel's recording subscriber for every public event: their outbox rows in
    one INSERT (values, no model instance made: a burst's settle records one for every
    published record), each keeping its live feed row's id (the replay's id; the live feed
    records first). One dispatch is queued per DISPATCH_BATCH of those a consumer wants: a
    dispatch pass takes its own event and the oldest others waiting, so these passes take
    them all (and the sweeper would catch one that a concurrent pass left behind); those no
    consumer wants are recorded dispatched already, with nothing queued."""
    wanted = outbox_wanted([(event.name, event.workspace_id) for event in emitted])
    now = timezone.now()
    rows: list[dict[str, Any]] = [
        {
            "id": event.id,
            "event": event.name,
            "user_id": event.user_id,
            "workspace_id": event.workspace_id,
            "data": event.payload.data,
            "created_at": event.created_at,
            "dispatched_at": None if wants else now,
            "live_id": event.live_id,
            "actor": event.actor,
        }
        for event, wants in zip(emitted, wanted, strict=True)
    ]
    for event, row, sequence in zip(emitted, rows, insert_values(OutboxEvent, rows), strict=True):
        row["sequence"] = sequence
        event.outbox = row
    sequences = sorted(row["sequence"] for row in rows if row["dispatched_at"] is None)
    for sequence in sequences[::DISPATCH_BATCH]:
        enqueue_on_commit(task_named(DISPATCH_TASK), sequence=sequence)


def outbox_dispatch(*, sequence: int) -> int:
    """Fan event `sequence` out to one row per consumer, together with up to DISPATCH_BATCH - 1
    other committed events still waiting (their own dispatches then find nothing to do), and
    run the new rows' consumers here, in sequence order; the number of rows created.

    One pass costs a handful of queries for the whole batch instead of a task and five queries
    per event: a burst of events is dispatched at the speed of the consumers. Concurrent
    dispatchers take disjoint batches (SKIP LOCKED on PostgreSQL; SQLite runs one writer at a
    time), and rows stay unique per (event, consumer) whatever runs twice.
    """
    now = timezone.now()
    with transaction.atomic():
        sequences = list(
            OutboxEvent.objects.select_for_update(skip_locked=True)
            .filter(dispatched_at__isnull=True)
            # The event this dispatch was queued for first, then the oldest waiting.
            .order_by(Case(When(sequence=sequence, then=Value(0)), default=Value(1)), "sequence")
            .values_list("sequence", flat=True)[:DISPATCH_BATCH]
        )
        if not sequences:
            return 0  # dispatched already, purged, or its user deleted
        existing = set(
            OutboxConsumption.objects.filter(event_id__in=sequences).values_list(
                "event_id", "consumer"
            )
        )
        rows = [
            OutboxConsumption(event_id=event, consumer=name, next_attempt_at=now, created_at=now)
            for event in sequences
            for name in _consumers
            if (event, name) not in existing
        ]
        # ignore_conflicts: a concurrent dispatcher may have created the same rows meanwhile.
        OutboxConsumption.objects.bulk_create(rows, ignore_conflicts=True)
        OutboxEvent.objects.filter(sequence__in=sequences).update(dispatched_at=now)
    # A worker that dies from here on leaves its rows pending or running: the sweeper queues
    # the pending ones and reclaims the running ones after their lease.
    created = OutboxConsumption.objects.filter(
        event_id__in=sequences, status=ConsumptionStatus.PENDING, attempts=0
    ).order_by("event_id", "pk")
    _process(list(created.values_list("pk", flat=True)))
    return len(rows)


def outbox_process(*, consumption_id: int) -> str:
    """Claim a row and run its consumer; the row's status afterwards ("skipped" if unclaimed)."""
    return _process([consumption_id]).get(consumption_id, "skipped")


def _process(consumption_ids: list[int]) -> dict[int, str]:
    """Claim each row (`pending` and due -> `running`, one conditional UPDATE: one caller wins),
    run its consumer outside any transaction, then record `done`, a retry with backoff, or
    `failed` after the last attempt. The status of each row claimed here."""
    now = timezone.now()
    token = CONSUMPTIONS.claim(
        OutboxConsumption.objects.filter(pk__in=consumption_ids, next_attempt_at__lte=now), now=now
    )
    if token is None:
        return {}
    rows = CONSUMPTIONS.held(token).select_related("event")
    by_consumer: dict[str, list[OutboxConsumption]] = {}
    for row in sorted(rows, key=lambda row: (row.event_id, row.pk)):
        by_consumer.setdefault(row.consumer, []).append(row)
    outcomes: dict[int, str] = {}
    for name, mine in by_consumer.items():
        consumer = _consumers.get(name)
        if consumer is not None and consumer.handle_many is not None and len(mine) > 1:
            outcomes.update(_run_many(consumer.handle_many, mine))
        else:
            outcomes.update((row.pk, _run(row)) for row in mine)
    done = [pk for pk, status in outcomes.items() if status == ConsumptionStatus.DONE]
    CONSUMPTIONS.held(token).filter(pk__in=done).update(
        lease_expires_at=None,
        claim=None,
        status=ConsumptionStatus.DONE,
        attempts=F("attempts") + 1,
        done_at=timezone.now(),
        last_error="",
    )
    return outcomes


def _run(row: OutboxConsumption) -> str:
    """Hand a claimed row's event to its consumer; a failure is recorded here, a success by
    the caller (in one UPDATE for the batch)."""
    consumer = _consumers.get(row.consumer)
    try:
        if consumer is None:
            raise LookupError(f"No consumer named {row.consumer!r} is registered.")
        consumer.handle(row.event)
    except Exception as exc:
        logger.exception("Outbox consumer %s failed on event #%s", row.consumer, row.event_id)
        return _failed(row, exc)
    return ConsumptionStatus.DONE


def _run_many(handle_many: BatchHandler, rows: list[OutboxConsumption]) -> dict[int, str]:
    try:
        handle_many([row.event for row in rows])
    except Exception as exc:
        logger.exception("Outbox consumer %s failed on a batch of %d", rows[0].consumer, len(rows))
        return {row.pk: _failed(row, exc) for row in rows}
    return {row.pk: ConsumptionStatus.DONE for row in rows}


def _failed(row: OutboxConsumption, exc: Exception) -> str:
    """Record a failed attempt: retried with backoff, or failed after the last attempt."""
    attempts = row.attempts + 1
    failed = attempts >= MAX_ATTEMPTS
    CONSUMPTIONS.settle(
        row,
        status=ConsumptionStatus.FAILED if failed else ConsumptionStatus.PENDING,
        attempts=attempts,
        next_attempt_at=timezone.now() + CONSUMPTIONS.backoff.delay(attempts),
        last_error=f"{type(exc).__name__}: {exc}"[:500],
    )
    return ConsumptionStatus.FAILED if failed else ConsumptionStatus.PENDING


def outbox_sweep() -> dict[str, int]:
    """Catch up on what a lost queueing or a dead worker left behind."""
    now = timezone.now()
    # Rows whose worker died: back to pending (handled again; handlers are idempotent).
    reclaimed = CONSUMPTIONS.reap(now)
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
    for consumption_id in due:
        enqueue(task_named(PROCESS_TASK), consumption_id=consumption_id)
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
