"""Recurring posts (social.md section 11): a post's series, its next occurrence, its end.

A series is an RFC 5545 RRULE read in a zone from its DTSTART, which is the first occurrence
(the scheduled time, or the queue's slot: RFC 5545 counts DTSTART as the first occurrence
whether or not the rule matches it). Each account of the post has one waiting occurrence at a
time (a database constraint): when it ends (published, failed, unconfirmed, or cancelled on
its own: skipped), the next is created at the rule's next time after it, until `until`,
`count` occurrences on that account, or the end of the series (`series_end`).
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from itertools import islice
from uuid import UUID
from zoneinfo import ZoneInfo

from django.db import transaction
from django.utils import timezone

from core.errors import ValidationFailed
from core.times import iso
from notifications import events
from social.content import post_status_refresh
from social.models import (
    OPEN_STATUSES,
    AccountStatus,
    Post,
    RecordStatus,
    ScheduledRecord,
    Series,
)
from social.planning.services.approvals import approval_gate
from social.planning.wallclock import (
    HORIZON_YEARS,
    RuleError,
    local_end_of,
    rule_normalized,
    rule_times,
)

NEXT_OCCURRENCES = 5  # what a post record shows
MAX_COUNT = 1000
# An attempt's platform lookups (is the post already there? social.md section 5) look from the
# record's creation, less a minute for the clocks (Attempt.since). The next occurrence is made
# the moment the previous one's post went out, with the same text: it counts as made just past
# that minute, so that its lookups never take the previous post for its own (LinkedIn's
# DUPLICATE_POST is then the permanent failure the contract asks for, not a false success).
LOOKUP_MARGIN = timedelta(seconds=61)


@dataclass(frozen=True, slots=True, kw_only=True)
class RecurrenceInput:
    """A post's recurrence as its writer gives it: an RFC 5545 rule, `until` an ISO date or
    date and time as written, `count` the occurrences on each account."""

    rule: str
    until: str | None = None
    count: int | None = None


@dataclass(frozen=True, slots=True)
class Recurrence:
    rule: str
    until: datetime | None = None
    count: int | None = None


def recurrence_read(value: RecurrenceInput, *, zone: ZoneInfo, starts_at: datetime) -> Recurrence:
    """The recurrence checked: the rule (wallclock) occurring again within the horizon after
    `starts_at` (a walk never goes further), `until` an ISO date (through the end of that
    local day) or date and time (without an offset, read in `zone`), not before the first
    occurrence; `count` 1 to MAX_COUNT occurrences."""
    try:
        rule = rule_normalized(value.rule)
    except RuleError as error:
        raise ValidationFailed(details={"recurrence.rule": [str(error)]}) from None
    if next(rule_times(rule, zone, starts_at, starts_at), None) is None:
        message = (
            f"The rule has no occurrence within {HORIZON_YEARS} years after the first "
            f"({iso(starts_at)})."
        )
        raise ValidationFailed(details={"recurrence.rule": [message]})
    until = _until(value.until, zone)
    if until is not None and until < starts_at:
        raise ValidationFailed(details={"recurrence.until": ["Before the first occurrence."]})
    count = value.count
    if count is not None and not 1 <= count <= MAX_COUNT:
        raise ValidationFailed(details={"recurrence.count": [f"1 to {MAX_COUNT}."]})
    return Recurrence(rule=rule, until=until, count=count)


def _until(value: str | None, zone: ZoneInfo) -> datetime | None:
    if not value:
        return None
    text = value.strip()
    try:
        if len(text) == 10:
            return local_end_of(date.fromisoformat(text), zone)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=zone)
        return moment.astimezone(UTC)
    except ValueError:
        raise ValidationFailed(details={"recurrence.until": ["Not an ISO 8601 date."]}) from None
    except OverflowError:
        # The last day of year 9999 (or the first of year 1) in a zone that moves it past UTC's.
        raise ValidationFailed(
            details={"recurrence.until": ["Out of range: it is no time in UTC's years 1-9999."]}
        ) from None


def series_save(
    *, post: Post, recurrence: Recurrence, zone: ZoneInfo, starts_at: datetime
) -> Series:
    """The post's series (made, or its rule replaced and resumed), in the caller's
    transaction."""
    series, _ = Series.objects.update_or_create(
        post=post,
        defaults={
            "rule": recurrence.rule,
            "time_zone": str(zone),
            "starts_at": starts_at,
            "until": recurrence.until,
            "count": recurrence.count,
            "ended_at": None,
        },
    )
    return series


def _next_time(series: Series, record: ScheduledRecord, now: datetime) -> datetime | None:
    """When the account's next occurrence after `record` is due, or None: the series is done
    there (its count reached, or no occurrence before `until`)."""
    if series.count is not None:
        made = ScheduledRecord.objects.filter(series=series, account_id=record.account_id).count()
        if made >= series.count:
            return None
    after = max(record.scheduled_time, now)
    found = next(rule_times(series.rule, ZoneInfo(series.time_zone), series.starts_at, after), None)
    if found is None or (series.until is not None and found > series.until):
        return None
    return found


def series_continue(
    records: Iterable[ScheduledRecord],
    *,
    now: datetime | None = None,
    actor: events.Actor | None = None,
) -> int:
    """The next occurrence of each ended record of a series, in the caller's transaction (the
    one that ended them); how many were created. An ended series, an account no longer
    connected, or one that already has its next occurrence gets none."""
    now = now or timezone.now()
    created: list[ScheduledRecord] = []
    for record in records:
        if record.series_id is None:
            continue
        series = Series.objects.select_for_update().filter(pk=record.series_id).first()
        if series is None or series.ended_at is not None:
            continue
        waiting = ScheduledRecord.objects.filter(series=series, status__in=OPEN_STATUSES)
        when = _next_time(series, record, now)
        if when is None or record.account.status != AccountStatus.CONNECTED:
            if not waiting.exists():  # no account goes on: the series is over
                Series.objects.filter(pk=series.pk).update(ended_at=now)
            continue
        if waiting.filter(account_id=record.account_id).exists():
            continue
        created.append(
            ScheduledRecord.objects.create(
                post_id=record.post_id,
                workspace_id=record.workspace_id,
                user_id=record.user_id,
                account=record.account,
                provider=record.provider,
                scheduled_time=when,
                due_at=when,
                series=series,
                created_at=now + LOOKUP_MARGIN,
            )
        )
    for post_id in dict.fromkeys(record.post_id for record in created):
        post_status_refresh(post_id)
        approval_gate(post_id)  # an approved series goes on; another waits for its approval
    events.emit_many(
        items=[
            (
                record.user_id,
                events.post_scheduled(
                    post_id=str(record.post_id),
                    platforms=[record.provider],
                    account_ids=[str(record.account_id)],
                    scheduled_at=record.scheduled_time,
                ),
                record.workspace_id,
            )
            for record in created
        ],
        actor=actor,
    )
    return len(created)


def series_after_outcomes(emitted: list[events.Event]) -> None:
    """The event channel's subscriber for `post.published` and `post.failed`: the ended
    records that belong to a series get their next occurrence (one query for a batch of
    results without any; none when each emitter said whether its record has a series, in the
    event's context, and none has)."""
    ids = [
        event.payload.data["recordId"]
        for event in emitted
        if event.payload.context.get("series", True)
    ]
    if not ids:
        return
    ended = ScheduledRecord.objects.filter(pk__in=ids, series__isnull=False).select_related(
        "account"
    )
    series_continue(list(ended), actor=events.SYSTEM)  # after the platform's answer


def series_end(*, series_id: UUID, now: datetime | None = None) -> int:
    """End a series: no occurrence after this, its waiting ones cancelled (one being published
    finishes); how many were cancelled. In a transaction of its own or the caller's."""
    now = now or timezone.now()
    with transaction.atomic():
        series = Series.objects.select_for_update().filter(pk=series_id).first()
        if series is None:
            return 0
        series.ended_at = series.ended_at or now
        series.save(update_fields=["ended_at", "updated_at"])
        waiting = ScheduledRecord.objects.filter(series=series, status=RecordStatus.SCHEDULED)
        cancelled = waiting.update(status=RecordStatus.CANCELLED, updated_at=now)
        if cancelled:
            post_status_refresh(series.post_id)
    return cancelled


# --- What a post record shows -----------------------------------------------------------------


def occurrences_next(post: Post, *, limit: int = NEXT_OCCURRENCES) -> list[datetime]:
    """The post's next occurrences (UTC, at most `limit`): each account's waiting one, then the
    rule's after it within `until` and `count`. Reads the post's records as loaded (the lists
    prefetch them) and its series: no query of its own."""
    series: Series | None = getattr(post, "series", None)
    if series is None or series.ended_at is not None:
        return []
    records = [record for record in post.records.all() if record.series_id == series.pk]
    made: dict[UUID, int] = defaultdict(int)
    for record in records:
        made[record.account_id] += 1
    zone = ZoneInfo(series.time_zone)
    found: set[datetime] = set()
    for record in records:
        if record.status not in OPEN_STATUSES:
            continue
        found.add(record.scheduled_time)
        left = limit - 1
        if series.count is not None:
            left = min(left, series.count - made[record.account_id])
        later = rule_times(series.rule, zone, series.starts_at, record.scheduled_time)
        for when in islice(later, max(left, 0)):
            if series.until is not None and when > series.until:
                break
            found.add(when)
    return sorted(found)[:limit]
