"""Scheduled records placed: a post on its targets, for later or (publish_now) at once
(social.md section 4). Targets are checked first, then records written. What happens to a
record afterwards (moved, cancelled, retried) is record_changes.py.

A scheduled record is one (post, account) target. At most one record holds a target
(waiting, publishing, published or unconfirmed; a database constraint): scheduling a post
again to an account moves its waiting record, and a target already published is 409.
"""

import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from core.errors import ValidationFailed
from core.inputs import UNSET
from notifications import events
from social.content import (
    PostInput,
    account_target,
    post_apply,
    post_counted,
    post_new,
    post_scheduled_fresh,
    post_status_refresh,
    workspace_post,
)
from social.errors import (
    AccountExpiresBefore,
    AlreadyPublished,
    NonexistentLocalTime,
    PlatformAmbiguous,
    PlatformNotConnected,
)
from social.lifecycle import post_saved_emit
from social.models import (
    HOLDING_STATUSES,
    WAITING_STATUSES,
    AccountStatus,
    Post,
    ScheduledRecord,
    SocialAccount,
)
from social.planning.services.approvals import approval_gate
from social.planning.services.recurrence import (
    RecurrenceInput,
    recurrence_read,
    series_save,
)
from social.selectors import settings_for, workspace_accounts

MAX_DAYS_AHEAD = 365


# --- Time -------------------------------------------------------------------------------------


def zone_of(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValidationFailed(details={"timezone": [f'"{name}" is not a time zone.']}) from None


def resolve_time(value: str, *, zone_name: str | None, workspace_id: UUID, field: str) -> datetime:
    """An ISO 8601 time as UTC. With an offset it is absolute; without one it is read in
    `zone_name`, else the workspace's default zone, else UTC. A local time the clocks skip (a DST
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
        zone = zone_of(zone_name or settings_for(workspace_id).default_timezone or "UTC")
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


def platform_accounts(*, workspace_id: UUID, platforms: list[str]) -> list[SocialAccount]:
    """Shape B: each platform's one connected account of the workspace."""
    by_provider: dict[str, list[SocialAccount]] = {}
    for account in SocialAccount.objects.filter(
        workspace_id=workspace_id, provider__in=platforms, status=AccountStatus.CONNECTED
    ).select_related("app", "user"):
        by_provider.setdefault(account.provider, []).append(account)
    missing = [p for p in platforms if not by_provider.get(p)]
    if missing:
        raise PlatformNotConnected(details={"platforms": missing})
    ambiguous = [p for p in platforms if len(by_provider[p]) > 1]
    if ambiguous:
        raise PlatformAmbiguous(details={"platforms": ambiguous})
    return [by_provider[p][0] for p in dict.fromkeys(platforms)]


def _holding(post: Post, accounts: list[SocialAccount]) -> dict[UUID, ScheduledRecord]:
    """The records that hold these targets now, by account; 409 when one already published
    (or is publishing, or ended unconfirmed: publishing again could duplicate it). A waiting
    one (held for its approval too) is moved, never duplicated."""
    if post._state.adding:
        return {}
    holding = {
        record.account_id: record
        for record in ScheduledRecord.objects.select_for_update().filter(
            post=post, account__in=accounts, status__in=HOLDING_STATUSES
        )
    }
    done = [r for r in holding.values() if r.status not in WAITING_STATUSES]
    if done:
        raise AlreadyPublished(details={"accountIds": [str(r.account_id) for r in done]})
    return holding


def post_with_targets(
    *,
    workspace_id: UUID,
    user: User,
    post_id: UUID | None,
    fields: PostInput,
    accounts: list[SocialAccount],
) -> tuple[Post, dict[UUID, ScheduledRecord]]:
    """In the caller's transaction: the post, created in the workspace from `fields` (`user`
    its author) or the workspace's `post_id` updated with them, validated against its targets
    and these accounts, saved (and counted when new); and the records that already hold
    these targets, by account."""
    if post_id is None:
        post = post_new(workspace_id=workspace_id, user=user)
    else:
        post = workspace_post(workspace_id=workspace_id, post_id=post_id, lock=True)
        if fields.content is UNSET and not post.content:
            raise ValidationFailed(details={"content": ["This field is required."]})
    post_apply(post=post, fields=fields, extra_targets=[account_target(a) for a in accounts])
    created = post._state.adding
    post.save()
    post_saved_emit(post, created=created)
    if created:
        post_counted(post, delta=1)
        return post, {}  # a new post holds no target yet (no query for it)
    return post, _holding(post, accounts)


def record_of(
    post: Post, account: SocialAccount, holding: dict[UUID, ScheduledRecord]
) -> ScheduledRecord:
    """The account's record of the post: the one holding the target, or a new one."""
    return holding.get(account.pk) or ScheduledRecord(
        post=post,
        workspace_id=post.workspace_id,
        user_id=post.user_id,
        account=account,
        provider=account.provider,
    )


def record_time_set(record: ScheduledRecord, when: datetime) -> None:
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
    workspace_id: UUID,
    user: User,
    account_ids: list[UUID],
    scheduled_time: str,
    zone_name: str | None,
    fields: PostInput,
    post_id: UUID | None = None,
    recurrence: RecurrenceInput | None = None,
) -> Scheduled:
    """Shape A: the post to these accounts of the workspace, at `scheduled_time` (read in
    `zone_name` when it has no offset), recurring by `recurrence` (read in the same zone).
    `user` acts: the author of a new post."""
    when = resolve_time(
        scheduled_time, zone_name=zone_name, workspace_id=workspace_id, field="scheduledTime"
    )
    accounts = workspace_accounts(workspace_id=workspace_id, account_ids=account_ids)
    zone = None
    if recurrence is not None:
        zone = zone_of(zone_name or settings_for(workspace_id).default_timezone or "UTC")
    return schedule(
        workspace_id=workspace_id,
        user=user,
        accounts=accounts,
        when=when,
        fields=fields,
        post_id=post_id,
        recurrence=recurrence,
        zone=zone,
    )


def schedule_to_platforms(
    *, workspace_id: UUID, user: User, platforms: list[str], scheduled_at: str, fields: PostInput
) -> Scheduled:
    """Shape B: a new post to the workspace's one connected account on each platform."""
    when = resolve_time(
        scheduled_at, zone_name=None, workspace_id=workspace_id, field="scheduledAt"
    )
    accounts = platform_accounts(workspace_id=workspace_id, platforms=platforms)
    return schedule(
        workspace_id=workspace_id, user=user, accounts=accounts, when=when, fields=fields
    )


def schedule(
    *,
    workspace_id: UUID,
    user: User,
    accounts: list[SocialAccount],
    when: datetime,
    fields: PostInput,
    post_id: UUID | None = None,
    times: Mapping[UUID, datetime] | None = None,
    queued: bool = False,
    recurrence: RecurrenceInput | None = None,
    zone: zoneinfo.ZoneInfo | None = None,
) -> Scheduled:
    """Schedule the post to the accounts at `when` (UTC), or at an account's own time in
    `times` (the queue's slots, `queued` marking the records): a waiting record of the same
    target is moved, never duplicated. With `recurrence` (its rule, until, count) the post
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
            workspace_id=workspace_id,
            user=user,
            post_id=post_id,
            fields=fields,
            accounts=accounts,
        )
        series = None
        if repeat is not None:
            series = series_save(
                post=post, recurrence=repeat, zone=zone or zoneinfo.ZoneInfo("UTC"), starts_at=when
            )
        records = []
        for account in accounts:
            record = record_of(post, account, holding)
            record_time_set(record, times.get(account.pk, when))
            record.queued = queued  # a time of its own takes a record out of the queue
            if series is not None:
                record.series = series
            record.save()
            records.append(record)
        if post_id is None:  # made here: its records are these
            post_scheduled_fresh(post, records)
        else:
            post_status_refresh(post.pk)
        if approval_gate(post.pk):  # held until its version is approved, if it needs one
            held = dict(ScheduledRecord.objects.filter(post=post).values_list("pk", "status"))
            for record in records:
                record.status = held.get(record.pk, record.status)
        events.emit(
            user=user,
            workspace=post.workspace_id,
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
