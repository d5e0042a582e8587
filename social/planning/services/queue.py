"""The posting queue (social.md section 11): an account's weekly slots, posts added to the
queue, reordered, paused and resumed, and the slots filled from the best times.

A queued record is a scheduled record like any other (`records.schedule` creates it, marked
`queued`): the queue only chooses its time, a slot. The queue's order is its waiting queued
records' times. Every write to one account's queue holds that queue's row lock (`_locked`),
so two requests queueing to one account at once take turns and never choose the same slot;
a unique constraint on (account, time) of waiting queued records backs that up.

Re-slotting (slots or zone changed, queue resumed) keeps the order: each waiting queued
record, in order, keeps its time when that is still a slot and after the previous record's,
else takes the first slot after the previous record's time (and after now).
"""

from datetime import datetime, timedelta
from uuid import UUID
from zoneinfo import ZoneInfo

from django.db import connection, transaction
from django.db.models import Case, DateTimeField, Value, When
from django.utils import timezone

from accounts.models import User
from core.errors import ValidationFailed
from social.content import PostInput
from social.errors import QueueEmpty, QueueFull, QueueNotEmpty
from social.lifecycle import records_moving
from social.models import (
    WAITING_STATUSES,
    AccountQueue,
    ScheduledRecord,
    SocialAccount,
)
from social.planning.selectors import best_times, queue_account, queue_records
from social.planning.services.records import MAX_DAYS_AHEAD, Scheduled, schedule, zone_of
from social.planning.services.recurrence import RecurrenceInput
from social.planning.wallclock import Week, slots_sorted
from social.selectors import settings_for, workspace_accounts

POSITIONS = ("last", "next")
FREE_SLOT_WINDOW = timedelta(days=28)  # the taken slots read at a time while looking for a gap
WRITE_BATCH = 250  # records re-timed in one UPDATE (SQLite's bound parameters stay few)


def _locked(accounts: list[SocialAccount]) -> dict[UUID, AccountQueue]:
    """The accounts' queues, row-locked until the transaction ends, in one order for every
    request (no two requests wait on each other's locks in opposite orders)."""
    rows = AccountQueue.objects.select_for_update().filter(account__in=accounts)
    return {queue.account_id: queue for queue in rows.order_by("account_id")}


def _queue_locked(account: SocialAccount) -> AccountQueue:
    """The account's queue, made on first use (its workspace's default zone), row-locked."""
    AccountQueue.objects.get_or_create(
        account=account,
        defaults={"time_zone": settings_for(account.workspace_id).default_timezone or "UTC"},
    )
    return AccountQueue.objects.select_for_update().get(pk=account.pk)


def _week(queue: AccountQueue) -> Week:
    return Week.of(queue.slots, ZoneInfo(queue.time_zone))


def _slot_for(queue: AccountQueue, position: str, now: datetime) -> datetime:
    """The slot a record added to the queue takes: after the last queued record (`last`), or
    the earliest free one (`next`). Past MAX_DAYS_AHEAD: 400 queue_full."""
    week = _week(queue)
    horizon = now + timedelta(days=MAX_DAYS_AHEAD)
    held = ScheduledRecord.objects.filter(
        account_id=queue.account_id, queued=True, status__in=WAITING_STATUSES
    ).values_list("scheduled_time", flat=True)
    found: datetime | None = None
    if position == "last":
        last = held.order_by("-scheduled_time").first()
        found = week.first_after(max(last, now) if last else now)
    else:
        start = now
        while found is None and start < horizon:
            end = start + FREE_SLOT_WINDOW
            taken = set(held.filter(scheduled_time__gt=start, scheduled_time__lte=end))
            found = next((at for at in week.between(start, end) if at not in taken), None)
            start = end
    if found is None or found > horizon:
        raise QueueFull(details={"accountId": str(queue.account_id)})
    return found


def queue_add(
    *,
    workspace_id: UUID,
    user: User,
    account_ids: list[UUID],
    fields: PostInput,
    post_id: UUID | None = None,
    position: str = "last",
    recurrence: RecurrenceInput | None = None,
) -> Scheduled:
    """Add the post (`post_id`, or a new one from `fields`) to each account's queue: a waiting
    record marked `queued` at the account's next slot (`position`). An account without slots:
    400 queue_empty. A recurring post's first occurrence is its slot; the rule goes on from
    there, in the first account's queue zone. `user` acts: the author of a new post."""
    accounts = workspace_accounts(workspace_id=workspace_id, account_ids=account_ids)
    now = timezone.now()
    with transaction.atomic():
        queues = _locked(accounts)
        empty = [str(a.pk) for a in accounts if a.pk not in queues or not queues[a.pk].slots]
        if empty:
            raise QueueEmpty(details={"accountIds": empty})
        times = {account.pk: _slot_for(queues[account.pk], position, now) for account in accounts}
        first = accounts[0].pk
        return schedule(
            workspace_id=workspace_id,
            user=user,
            accounts=accounts,
            when=times[first],
            fields=fields,
            post_id=post_id,
            times=times,
            queued=True,
            recurrence=recurrence,
            zone=ZoneInfo(queues[first].time_zone),
        )


def queue_update(
    *,
    workspace_id: UUID,
    account_id: UUID,
    zone_name: str | None = None,
    paused: bool | None = None,
    slots: list[dict[str, str]] | None = None,
) -> AccountQueue:
    """Change what is given of the account's queue. New slots or a new zone re-slot its
    waiting queued records; resuming moves those whose slot passed meanwhile to the next
    free slots; both keep the queue's order."""
    account = queue_account(workspace_id=workspace_id, account_id=account_id)
    zone = zone_of(zone_name) if zone_name is not None else None
    now = timezone.now()
    with transaction.atomic():
        queue = _queue_locked(account)
        reslot = False
        if zone is not None and str(zone) != queue.time_zone:
            queue.time_zone, reslot = str(zone), True
        if slots is not None and slots_sorted(slots) != queue.slots:
            queue.slots, reslot = slots_sorted(slots), True
        if paused is not None and paused != queue.paused:
            queue.paused, queue.paused_at = paused, (now if paused else None)
            reslot = reslot or not paused
        queue.save()
        if reslot:
            _reslot(queue, now)
    return queue


def _reslot(queue: AccountQueue, now: datetime) -> int:
    """Re-slot the queue's waiting queued records keeping their order (the module's
    docstring); how many moved. Without slots they keep their times."""
    if not queue.slots:
        return 0
    week = _week(queue)
    moves: dict[UUID | str, datetime] = {}
    previous = now
    for pk, at in queue_records(account_id=queue.account_id).values_list("pk", "scheduled_time"):
        if at > previous and week.holds(at):
            previous = at
            continue
        previous = moves[pk] = week.first_after(previous) or previous
    _times_write(moves, now)
    return len(moves)


def _times_write(moves: dict[UUID | str, datetime], now: datetime) -> None:
    """Give waiting queued records new times in a few statements. They leave the slot index
    first (`queued` off), so that a record may take a time another of them still holds."""
    ids = list(moves)
    records_moving(moves)  # schedule.moved for each (social.md section 12)
    for start in range(0, len(ids), WRITE_BATCH):
        ScheduledRecord.objects.filter(pk__in=ids[start : start + WRITE_BATCH]).update(queued=False)
    if not ids:
        return
    if connection.vendor == "postgresql":
        # One UPDATE ... FROM VALUES for them all: a CASE of hundreds of branches costs Django
        # more to build than the database to run (docs/performance.md).
        rows = ", ".join(["(%s::uuid, %s::timestamptz)"] * len(ids))
        table = ScheduledRecord._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} AS r SET scheduled_time = v.at, due_at = v.at, "  # noqa: S608
                "next_attempt_at = NULL, queued = true, updated_at = %s "
                f"FROM (VALUES {rows}) AS v(id, at) WHERE r.id = v.id",
                [now, *(value for pk in ids for value in (str(pk), moves[pk]))],
            )
        return
    for start in range(0, len(ids), WRITE_BATCH):
        batch = ids[start : start + WRITE_BATCH]
        when = Case(
            *(When(pk=pk, then=Value(moves[pk])) for pk in batch), output_field=DateTimeField()
        )
        ScheduledRecord.objects.filter(pk__in=batch).update(
            scheduled_time=when, due_at=when, next_attempt_at=None, queued=True, updated_at=now
        )


def queue_reorder(*, workspace_id: UUID, account_id: UUID, record_ids: list[UUID]) -> AccountQueue:
    """Put the account's waiting queued records in the order of `record_ids` (every one of
    them, once): the slots they hold are handed out again in that order."""
    account = queue_account(workspace_id=workspace_id, account_id=account_id)
    wanted = [str(record_id) for record_id in record_ids]
    now = timezone.now()
    with transaction.atomic():
        queue = _queue_locked(account)
        held = {
            str(pk): at
            for pk, at in queue_records(account_id=account.pk).values_list("pk", "scheduled_time")
        }
        problems = []
        if len(set(wanted)) != len(wanted):
            problems.append("A record is listed more than once.")
        unknown = [pk for pk in dict.fromkeys(wanted) if pk not in held]
        if unknown:
            problems.append(f"Not waiting in this queue: {', '.join(unknown)}.")
        missing = [pk for pk in held if pk not in set(wanted)]
        if missing:
            problems.append(f"Missing (send every waiting queued record): {', '.join(missing)}.")
        if problems:
            raise ValidationFailed(details={"recordIds": problems})
        slots = sorted(held.values())
        _times_write({pk: at for pk, at in zip(wanted, slots, strict=True) if held[pk] != at}, now)
    return queue


def queue_slots_suggest(*, workspace_id: UUID, account_id: UUID) -> AccountQueue:
    """Fill an empty queue (no slots) with the account's best times (best_times); a queue that
    has slots: 409 queue_not_empty."""
    account = queue_account(workspace_id=workspace_id, account_id=account_id)
    now = timezone.now()
    with transaction.atomic():
        queue = _queue_locked(account)
        if queue.slots:
            raise QueueNotEmpty(details={"slots": len(queue.slots)})
        found = best_times(account=account, zone=ZoneInfo(queue.time_zone))
        queue.slots = slots_sorted({"day": t.day, "time": t.time} for t in found.times)
        queue.save()
        _reslot(queue, now)
    return queue
