"""Scheduled records: a post placed on its targets, for later or (publish_now) at once, moved,
cancelled and retried (social.md section 4). Targets are checked first, then records written.

A scheduled record is one (post, account) target. At most one record holds a target
(waiting, publishing, published or unconfirmed; a database constraint): scheduling a post
again to an account moves its waiting record, and a target already published is 409.
"""

import uuid
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from core.errors import ValidationFailed
from notifications import events
from social.content import (
    account_target,
    draft_of,
    parts_missing,
    post_apply,
    post_counted,
    post_scheduled_fresh,
    post_status_refresh,
    user_post,
)
from social.errors import (
    AccountExpiresBefore,
    AlreadyPublished,
    NonexistentLocalTime,
    PlatformAmbiguous,
    PlatformNotConnected,
    RecordNotFound,
    RecordNotScheduled,
)
from social.lifecycle import (
    post_saved_emit,
    record_moved_emit,
    records_cancelled_emit,
)
from social.models import (
    HOLDING_STATUSES,
    AccountStatus,
    Post,
    RecordStatus,
    ScheduledRecord,
    SocialAccount,
)
from social.planning.services.recurrence import (
    recurrence_read,
    series_continue,
    series_end,
    series_save,
)
from social.selectors import settings_for, user_accounts

MAX_DAYS_AHEAD = 365


# --- Time -------------------------------------------------------------------------------------


def zone_of(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValidationFailed(details={"timezone": [f'"{name}" is not a time zone.']}) from None


def resolve_time(value: str, *, zone_name: str | None, user: User, field: str) -> datetime:
    """An ISO 8601 time as UTC. With an offset it is absolute; without one it is read in
    `zone_name`, else the user's default zone, else UTC. A local time the clocks skip (a DST
    gap) is refused; one they pass twice (an overlap) is its first occurrence."""
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValidationFailed(details={field: ["Not an ISO 8601 date and time."]}) from None
    # No zone or offset moves a time by a day or more: a time further out than that is refused
    # as it reads, before any conversion (year 9999's last day, or year 1's first, converted
    # to UTC would overflow).
    wall, clock = moment.replace(tzinfo=None), timezone.now().replace(tzinfo=None)
    if wall < clock - timedelta(days=1):
        raise ValidationFailed(details={field: ["The time is in the past."]})
    if wall > clock + timedelta(days=MAX_DAYS_AHEAD + 1):
        raise ValidationFailed(details={field: [f"At most {MAX_DAYS_AHEAD} days ahead."]})
    if moment.tzinfo is None:
        zone = zone_of(zone_name or settings_for(user).default_timezone or "UTC")
        local = moment.replace(tzinfo=zone, fold=0)
        if local.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != moment:
            raise NonexistentLocalTime(details={field: value, "timezone": str(zone)})
        moment = local
    elif zone_name:
        zone_of(zone_name)  # still a zone the client must spell right
    moment = moment.astimezone(UTC)
    now = timezone.now()
    if moment <= now:
        raise ValidationFailed(details={field: ["The time is in the past."]})
    if moment > now + timedelta(days=MAX_DAYS_AHEAD):
        raise ValidationFailed(details={field: [f"At most {MAX_DAYS_AHEAD} days ahead."]})
    return moment


# --- Targets ----------------------------------------------------------------------------------


def platform_accounts(*, user: User, platforms: list[str]) -> list[SocialAccount]:
    """Shape B: each platform's one connected account of the user."""
    by_provider: dict[str, list[SocialAccount]] = {}
    for account in SocialAccount.objects.filter(
        user=user, provider__in=platforms, status=AccountStatus.CONNECTED
    ).select_related("app", "user"):
        by_provider.setdefault(account.provider, []).append(account)
    missing = [p for p in platforms if not by_provider.get(p)]
    if missing:
        raise PlatformNotConnected(details={"platforms": missing})
    ambiguous = [p for p in platforms if len(by_provider[p]) > 1]
    if ambiguous:
        raise PlatformAmbiguous(details={"platforms": ambiguous})
    return [by_provider[p][0] for p in dict.fromkeys(platforms)]


def _holding(post: Post, accounts: list[SocialAccount]) -> dict[Any, ScheduledRecord]:
    """The records that hold these targets now, by account; 409 when one already published
    (or is publishing, or ended unconfirmed: publishing again could duplicate it)."""
    if post._state.adding:
        return {}
    holding = {
        record.account_id: record
        for record in ScheduledRecord.objects.select_for_update().filter(
            post=post, account__in=accounts, status__in=HOLDING_STATUSES
        )
    }
    done = [r for r in holding.values() if r.status != RecordStatus.SCHEDULED]
    if done:
        raise AlreadyPublished(details={"accountIds": [str(r.account_id) for r in done]})
    return holding


def post_with_targets(
    *, user: User, post_id: Any, fields: dict[str, Any], accounts: list[SocialAccount]
) -> tuple[Post, dict[Any, ScheduledRecord]]:
    """In the caller's transaction: the post, created from `fields` or the user's `post_id`
    updated with them, validated against its targets and these accounts, saved (and counted
    when new); and the records that already hold these targets, by account."""
    if post_id is None:
        post = Post(user=user)
    else:
        post = user_post(user=user, post_id=post_id, lock=True)
        if "content" not in fields and not post.content:
            raise ValidationFailed(details={"content": ["This field is required."]})
    post_apply(
        user=user, post=post, fields=fields, extra_targets=[account_target(a) for a in accounts]
    )
    created = post._state.adding
    post.save()
    post_saved_emit(post, created=created)
    if created:
        post_counted(post, delta=1)
        return post, {}  # a new post holds no target yet (no query for it)
    return post, _holding(post, accounts)


def record_of(
    post: Post, account: SocialAccount, holding: dict[Any, ScheduledRecord]
) -> ScheduledRecord:
    """The account's record of the post: the one holding the target, or a new one."""
    return holding.get(account.pk) or ScheduledRecord(
        post=post, user=post.user, account=account, provider=account.provider
    )


def _record_time(record: ScheduledRecord, when: datetime) -> None:
    """Set a waiting record's time; a retry the platform made wait (Retry-After, backoff) is
    never brought forward by it."""
    record.scheduled_time = when
    record.due_at = max(when, record.next_attempt_at) if record.next_attempt_at else when
    if record.next_attempt_at:
        record.next_attempt_at = record.due_at


# --- Scheduling -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scheduled:
    post: Post
    records: list[ScheduledRecord]
    scheduled_at: datetime


def schedule_to_accounts(
    *,
    user: User,
    account_ids: list[Any],
    scheduled_time: str,
    zone_name: str | None,
    fields: dict[str, Any],
    post_id: Any = None,
    recurrence: dict[str, Any] | None = None,
) -> Scheduled:
    """Shape A: the post to these accounts of the user, at `scheduled_time` (read in
    `zone_name` when it has no offset), recurring by `recurrence` (read in the same zone)."""
    when = resolve_time(scheduled_time, zone_name=zone_name, user=user, field="scheduledTime")
    accounts = user_accounts(user=user, account_ids=account_ids)
    zone = None
    if recurrence is not None:
        zone = zone_of(zone_name or settings_for(user).default_timezone or "UTC")
    return schedule(
        user=user,
        accounts=accounts,
        when=when,
        fields=fields,
        post_id=post_id,
        recurrence=recurrence,
        zone=zone,
    )


def schedule_to_platforms(
    *, user: User, platforms: list[str], scheduled_at: str, fields: dict[str, Any]
) -> Scheduled:
    """Shape B: a new post to the user's one connected account on each platform."""
    when = resolve_time(scheduled_at, zone_name=None, user=user, field="scheduledAt")
    accounts = platform_accounts(user=user, platforms=platforms)
    return schedule(user=user, accounts=accounts, when=when, fields=fields)


def schedule(
    *,
    user: User,
    accounts: list[SocialAccount],
    when: datetime,
    fields: dict[str, Any],
    post_id: Any = None,
    times: Mapping[Any, datetime] | None = None,
    queued: bool = False,
    recurrence: dict[str, Any] | None = None,
    zone: zoneinfo.ZoneInfo | None = None,
) -> Scheduled:
    """Schedule the post to the accounts at `when` (UTC), or at an account's own time in
    `times` (the queue's slots, `queued` marking the records): a waiting record of the same
    target is moved, never duplicated. With `recurrence` (`{rule, until?, count?}`) the post
    recurs, `when` being its first occurrence and the rule read in `zone`. Emits
    `post.scheduled`."""
    times = times or {}
    expiring = [
        str(a.pk)
        for a in accounts
        if a.expires_at is not None and a.expires_at < times.get(a.pk, when)
    ]
    if expiring:
        raise AccountExpiresBefore(details={"accountIds": expiring})
    repeat = None
    if recurrence is not None:
        repeat = recurrence_read(recurrence, zone=zone or zoneinfo.ZoneInfo("UTC"), starts_at=when)
    with transaction.atomic():
        post, holding = post_with_targets(
            user=user, post_id=post_id, fields=fields, accounts=accounts
        )
        series = None
        if repeat is not None:
            series = series_save(
                post=post, recurrence=repeat, zone=zone or zoneinfo.ZoneInfo("UTC"), starts_at=when
            )
        records = []
        for account in accounts:
            record = record_of(post, account, holding)
            _record_time(record, times.get(account.pk, when))
            record.queued = queued  # a time of its own takes a record out of the queue
            if series is not None:
                record.series = series
            record.save()
            records.append(record)
        if post_id is None:  # made here: its records are these
            post_scheduled_fresh(post, records)
        else:
            post_status_refresh(post.pk)
        events.emit(
            user=user,
            payload=events.post_scheduled(
                post_id=str(post.pk),
                platforms=list(dict.fromkeys(a.provider for a in accounts)),
                account_ids=[str(a.pk) for a in accounts],
                scheduled_at=when,
            ),
        )
    if post_id is not None:
        post.refresh_from_db()
    return Scheduled(post=post, records=records, scheduled_at=when)


def _user_record(user: User, record_id: uuid.UUID) -> ScheduledRecord:
    record = (
        ScheduledRecord.objects.select_for_update()
        .filter(pk=record_id, user=user)
        .select_related("account")
        .first()
    )
    if record is None:
        raise RecordNotFound()
    if record.status != RecordStatus.SCHEDULED:
        raise RecordNotScheduled(details={"status": record.status})
    return record


def record_move(
    *, user: User, record_id: uuid.UUID, scheduled_time: str, zone_name: str | None
) -> ScheduledRecord:
    """Move the user's waiting record to `scheduled_time` (read in `zone_name` when it has no
    offset)."""
    when = resolve_time(scheduled_time, zone_name=zone_name, user=user, field="scheduledTime")
    with transaction.atomic():
        record = _user_record(user, record_id)
        expires = record.account.expires_at
        if expires is not None and expires < when:
            raise AccountExpiresBefore(details={"accountIds": [str(record.account_id)]})
        previous = record.scheduled_time
        _record_time(record, when)
        record.queued = False  # a time of its own: its queue slot is free again
        record.save(
            update_fields=["scheduled_time", "due_at", "next_attempt_at", "queued", "updated_at"]
        )
        record_moved_emit(record, previous=previous)
    return record


def record_cancel(*, user: User, record_id: uuid.UUID, series: bool = False) -> ScheduledRecord:
    """Cancel the user's waiting record (a queued one frees its slot; an occurrence of a
    series is skipped: the next one is created). With `series`, a record of a recurring post
    ends its series: its waiting occurrences are cancelled and no other comes."""
    with transaction.atomic():
        if series:
            found = ScheduledRecord.objects.filter(pk=record_id, user=user).first()
            if found is None:
                raise RecordNotFound()
            if found.series_id is not None:
                series_end(series_id=found.series_id)
                waiting = found.status == RecordStatus.SCHEDULED
                found.refresh_from_db()
                if waiting and found.status == RecordStatus.CANCELLED:
                    records_cancelled_emit([found], reason="series_ended")
                return found
        record = _user_record(user, record_id)
        record.status = RecordStatus.CANCELLED
        record.save(update_fields=["status", "updated_at"])
        records_cancelled_emit([record], reason="cancelled")
        post_status_refresh(record.post_id)
        if record.series_id is not None:
            series_continue([record])
    return record


def records_parts_end(account: Any, *, reason: str) -> int:
    """The account's published records whose later parts wait (and are not being attempted
    now): no further attempt, their warnings naming what is missing, with `reason`; how many
    (in the caller's transaction: a disconnect)."""
    waiting = ScheduledRecord.objects.filter(
        account=account,
        status=RecordStatus.PUBLISHED,
        next_attempt_at__isnull=False,
        claim__isnull=True,
    ).select_related("post")
    ended = 0
    for record in waiting:
        warnings = parts_missing(
            draft_of(record.post, record.provider),
            record.provider,
            list(record.parts),
            reason=reason,
        )
        ended += ScheduledRecord.objects.filter(pk=record.pk, claim__isnull=True).update(
            next_attempt_at=None,
            outcome_unknown=False,
            error_code="",
            error=reason,
            warnings=warnings,
            updated_at=timezone.now(),
        )
    return ended


def account_records_cancel(account: SocialAccount) -> int:
    """A disconnected account's waiting records (inside the disconnect's transaction); the
    later parts its published records still wait to send end too (social.md section 9)."""
    records_parts_end(account, reason="the account was disconnected.")
    waiting = ScheduledRecord.objects.filter(account=account, status=RecordStatus.SCHEDULED)
    records = list(waiting)
    post_ids = {record.post_id for record in records}
    records_cancelled_emit(records, reason="account_disconnected")
    cancelled = waiting.update(status=RecordStatus.CANCELLED, updated_at=timezone.now())
    for post_id in post_ids:
        post_status_refresh(post_id)
    return cancelled


def record_retry(*, record: ScheduledRecord) -> bool:
    """An operator's retry of a failed record: waiting again, due now, with fresh attempts
    (its history is kept). Whether it changed."""
    now = timezone.now()
    entry: dict[str, Any] = {"at": now.isoformat(), "outcome": "retry_requested"}
    with transaction.atomic():
        changed = ScheduledRecord.objects.filter(pk=record.pk, status=RecordStatus.FAILED).update(
            status=RecordStatus.SCHEDULED,
            due_at=now,
            next_attempt_at=now,
            attempts=0,
            error="",
            error_code="",
            # A series went on without it (its next occurrence waits): retried on its own.
            series=None,
            history=[*record.history, entry],
            updated_at=now,
        )
        if changed:
            post_status_refresh(record.post_id)
    return bool(changed)
