"""Reads of the social hub."""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from uuid import UUID

from django.db import IntegrityError, transaction
from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone

from accounts.models import User
from core.errors import ValidationFailed
from social.error_objects import record_error
from social.errors import RecordNotFound
from social.models import (
    AccountQueue,
    AccountStatus,
    AnalyticsRecord,
    MediaItem,
    Post,
    PostCounter,
    RecordStatus,
    ScheduledRecord,
    SocialAccount,
    SocialSettings,
)


def account_list(*, user: User) -> QuerySet[SocialAccount]:
    """The user's accounts that are not disconnected (expired ones included: reconnect)."""
    return SocialAccount.objects.filter(user=user).exclude(status=AccountStatus.DISCONNECTED)


def settings_for(user: User) -> SocialSettings:
    """The user's social settings; the defaults (unsaved) for a user who never set any."""
    return settings_for_users([user.pk])[user.pk]


def settings_for_users(user_ids: Iterable[UUID | str]) -> dict[UUID | str, SocialSettings]:
    """settings_for of each of these users (by id: the users need not be loaded), by user
    id, in one query."""
    ids = set(user_ids)
    found = {row.user_id: row for row in SocialSettings.objects.filter(user_id__any=list(ids))}
    # Keyed as asked; a user's row found whether their id came as a UUID or as its text.
    return {pk: found.get(_uuid(pk)) or SocialSettings(user_id=pk) for pk in ids}


def _uuid(value: UUID | str) -> UUID:
    return value if isinstance(value, UUID) else UUID(value)


def user_accounts(*, user: User, account_ids: list[UUID]) -> list[SocialAccount]:
    """The user's connected accounts, in the order asked; 400 naming the others."""
    wanted = list(dict.fromkeys(str(account_id) for account_id in account_ids))
    found = {
        str(account.pk): account
        for account in SocialAccount.objects.filter(pk__in=wanted, user=user).select_related(
            "app", "user"
        )
    }
    problems = []
    for account_id in wanted:
        account = found.get(account_id)
        if account is None or account.status == AccountStatus.DISCONNECTED:
            problems.append(f"{account_id}: no such connected account.")
        elif account.status == AccountStatus.EXPIRED:
            problems.append(f"{account_id}: the connection expired; reconnect the account.")
    if problems:
        raise ValidationFailed(details={"accountIds": problems})
    return [found[account_id] for account_id in wanted]


def post_total(*, user: User) -> int:
    """How many posts the user has, from the counter (made on the first read)."""
    found = PostCounter.objects.filter(user=user).values_list("total", flat=True).first()
    if found is not None:
        return int(found)
    try:
        with transaction.atomic():
            # The row lock of a new counter serializes this COUNT with concurrent creates.
            counter = PostCounter.objects.create(user=user, total=0)
            counter.total = Post.objects.filter(user=user).count()
            counter.save(update_fields=["total"])
            return counter.total
    except IntegrityError:  # made by a concurrent first read
        return int(PostCounter.objects.get(user=user).total)


def with_records(posts: QuerySet[Post]) -> QuerySet[Post]:
    """Posts with their scheduled records, in time order (one query for all of them), and
    their series (recurring posts)."""
    return posts.select_related("series").prefetch_related(
        Prefetch("records", queryset=ScheduledRecord.objects.order_by("scheduled_time", "id"))
    )


def media_urls_of(posts: Iterable[Post]) -> dict[str, str]:
    """The URLs of these posts' media items (`mediaIds`), by id: one query for them all."""
    posts = list(posts)
    wanted = {str(media_id) for post in posts for media_id in post.media_ids}
    if not wanted:
        return {}
    users = {post.user_id for post in posts}
    items = MediaItem.objects.filter(pk__in=wanted, user_id__in=users).values_list("pk", "url")
    return {str(pk): url for pk, url in items}


def post_list(
    *,
    user: User,
    platform: str | None = None,
    status: str | None = None,
    campaign_id: UUID | None = None,
) -> QuerySet[Post]:
    """The user's posts, newest first, with their records; `platform` matches the intended
    platforms and the records' providers."""
    posts = Post.objects.filter(user=user)
    if platform:
        posts = posts.filter(provider_set__contains=f"|{platform}|")
    if status:
        posts = posts.filter(status=status)
    if campaign_id:
        posts = posts.filter(campaign_id=campaign_id)
    return with_records(posts.order_by("-created_at", "-id"))


def record_calendar(
    *,
    user: User,
    status: str | None = None,
    account_id: UUID | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
) -> QuerySet[ScheduledRecord]:
    """The user's scheduled records by time, `start` and `end` inclusive."""
    records = ScheduledRecord.objects.filter(user=user)
    if status:
        records = records.filter(status=status)
    if account_id:
        records = records.filter(account_id=account_id)
    if start:
        records = records.filter(scheduled_time__gte=start)
    if end:
        records = records.filter(scheduled_time__lte=end)
    return records.order_by("scheduled_time", "id")


def user_record(*, user: User, record_id: UUID) -> ScheduledRecord:
    """One of the user's scheduled records; another user's or none: 404."""
    record = ScheduledRecord.objects.filter(pk=record_id, user=user).first()
    if record is None:
        raise RecordNotFound()
    return record


def record_errors(*, record_ids: Iterable[UUID | str]) -> dict[str, dict[str, Any] | None]:
    """The error objects of these records as they now stand (social.md section 12), by id."""
    ids = list(record_ids)
    if not ids:
        return {}
    return {
        str(record.pk): record_error(record)
        for record in ScheduledRecord.objects.filter(pk__in=ids).only(
            "status", "provider", "error", "error_code", "history", "warnings", "next_attempt_at"
        )
    }


def analytics_list(
    *,
    user: User,
    provider: str | None = None,
    account_id: UUID | None = None,
    post_id: UUID | None = None,
    start: date | None = None,
    end: date | None = None,
) -> QuerySet[AnalyticsRecord]:
    """The user's analytics rows, newest day first, `start` and `end` inclusive."""
    rows = AnalyticsRecord.objects.filter(user=user)
    if provider:
        rows = rows.filter(provider=provider)
    if account_id:
        rows = rows.filter(account_id=account_id)
    if post_id:
        rows = rows.filter(post_id=post_id)
    if start:
        rows = rows.filter(date__gte=start)
    if end:
        rows = rows.filter(date__lte=end)
    return rows.order_by("-date", "provider", "id")


def paused_queued() -> Q:
    """Queued records of a paused queue: the scheduler skips them (exclude them from its
    reads; one subquery over the few paused queues)."""
    paused = AccountQueue.objects.filter(paused=True).values("account_id")
    return Q(queued=True, account_id__in=paused)


def records_due(*, limit: int, now: datetime | None = None) -> list[ScheduledRecord]:
    """What a run would claim now (for `run_scheduler --dry-run`); nothing is changed."""
    now = now or timezone.now()
    return list(
        ScheduledRecord.objects.filter(status=RecordStatus.SCHEDULED, due_at__lte=now)
        .exclude(paused_queued())
        .select_related("account")
        .order_by("due_at")[:limit]
    )


def records_next_due() -> datetime | None:
    """When the next claimable record is due (one row of the partial due index), or None: the
    timer sleeps until then."""
    due: datetime | None = (
        ScheduledRecord.objects.filter(status=RecordStatus.SCHEDULED, user__is_active=True)
        .exclude(paused_queued())
        .order_by("due_at")
        .values_list("due_at", flat=True)
        .first()
    )
    # A published record whose later parts wait for their retry (its own partial index).
    parts: datetime | None = (
        ScheduledRecord.objects.filter(
            status=RecordStatus.PUBLISHED, next_attempt_at__isnull=False, user__is_active=True
        )
        .order_by("due_at")
        .values_list("due_at", flat=True)
        .first()
    )
    return min((when for when in (due, parts) if when is not None), default=None)


LATENESS_RECORDS = 5000  # the most recently changed records the lateness summary reads


@dataclass(frozen=True, slots=True)
class Lateness:
    """How late the scheduler's attempts began after their due time, over a period."""

    attempts: int
    p50: float | None
    p95: float | None
    p99: float | None
    worst: float | None
    due_now: int  # waiting records whose time has come (a backlog: the scheduler is behind)


def scheduler_lateness(*, hours: float = 1.0, now: datetime | None = None) -> Lateness:
    """The lateness of every attempt that began in the last `hours` (the `late` of each history
    entry, seconds after the record was due), from the most recently changed records."""
    now = now or timezone.now()
    since = (now - timedelta(hours=hours)).isoformat()
    histories = (
        ScheduledRecord.objects.filter(updated_at__gte=now - timedelta(hours=hours))
        .order_by("-updated_at")
        .values_list("history", flat=True)[:LATENESS_RECORDS]
    )
    late = sorted(
        float(entry["late"])
        for history in histories
        for entry in history or []
        if "late" in entry and str(entry.get("at", "")) >= since
    )

    def percentile(share: float) -> float | None:
        return late[min(len(late) - 1, int(share * len(late)))] if late else None

    return Lateness(
        attempts=len(late),
        p50=percentile(0.50),
        p95=percentile(0.95),
        p99=percentile(0.99),
        worst=late[-1] if late else None,
        due_now=ScheduledRecord.objects.filter(status=RecordStatus.SCHEDULED, due_at__lte=now)
        .exclude(paused_queued())
        .count(),
    )
