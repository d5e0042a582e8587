"""Reads of the social hub."""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from uuid import UUID

from django.db import IntegrityError, transaction
from django.db.models import F, Prefetch, Q, QuerySet
from django.utils import timezone

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


def account_list(*, workspace_id: UUID) -> QuerySet[SocialAccount]:
    """The workspace's accounts that are not disconnected (expired ones included: reconnect)."""
    return SocialAccount.objects.filter(workspace_id=workspace_id).exclude(
        status=AccountStatus.DISCONNECTED
    )


def settings_for(workspace_id: UUID) -> SocialSettings:
    """The workspace's social settings; the defaults (unsaved) for one that never set any."""
    found = SocialSettings.objects.filter(workspace_id=workspace_id).first()
    return found or SocialSettings(workspace_id=workspace_id)


@dataclass(frozen=True, slots=True)
class Preferences:
    """A user's notification preferences (social settings' `notificationPreferences`): their
    own across workspaces, kept in their personal workspace's settings."""

    chosen: dict[str, bool]

    def wants(self, preference: str) -> bool:
        return bool(self.chosen.get(preference, True))


@dataclass(frozen=True, slots=True)
class HubSettings:
    """What a batch of work reads of the social settings: each workspace's (by id) and each
    user's notification preferences (by user id, as asked)."""

    workspaces: dict[UUID, SocialSettings]
    users: dict[UUID | str, Preferences]


def hub_settings(
    *, workspace_ids: Iterable[UUID] = (), user_ids: Iterable[UUID | str] = ()
) -> HubSettings:
    """The settings of these workspaces and the preferences of these users (the settings of
    their personal workspaces), in one query (the workspaces need not be loaded)."""
    workspaces, users = set(workspace_ids), set(user_ids)
    found: dict[UUID, SocialSettings] = {}
    personal: dict[UUID, dict[str, bool]] = {}
    if workspaces or users:
        rows = SocialSettings.objects.filter(
            Q(workspace_id__any=list(workspaces))
            | Q(workspace__personal_user_id__in=[_uuid(pk) for pk in users])
        ).annotate(personal_user_id=F("workspace__personal_user_id"))
        for row in rows:
            found[row.workspace_id] = row
            if row.personal_user_id is not None:
                personal[row.personal_user_id] = row.notification_preferences
    return HubSettings(
        workspaces={pk: found.get(pk) or SocialSettings(workspace_id=pk) for pk in workspaces},
        # Keyed as asked; a user's row found whether their id came as a UUID or as its text.
        users={pk: Preferences(dict(personal.get(_uuid(pk)) or {})) for pk in users},
    )


def settings_seen(*, workspace_id: UUID, user_id: UUID) -> tuple[SocialSettings, Preferences]:
    """What a member sees of the settings: the workspace's, and their own preferences."""
    found = hub_settings(workspace_ids=[workspace_id], user_ids=[user_id])
    return found.workspaces[workspace_id], found.users[user_id]


def preferences_of(user_ids: Iterable[UUID | str]) -> dict[UUID | str, Preferences]:
    """The notification preferences of these users (by id, as asked), in one query."""
    return hub_settings(user_ids=user_ids).users


def _uuid(value: UUID | str) -> UUID:
    return value if isinstance(value, UUID) else UUID(value)


def workspace_accounts(*, workspace_id: UUID, account_ids: list[UUID]) -> list[SocialAccount]:
    """The workspace's connected accounts, in the order asked; 400 naming the others."""
    wanted = list(dict.fromkeys(str(account_id) for account_id in account_ids))
    found = {
        str(account.pk): account
        for account in SocialAccount.objects.filter(
            pk__in=wanted, workspace_id=workspace_id
        ).select_related("app", "user")
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


def post_total(*, workspace_id: UUID) -> int:
    """How many posts the workspace has, from the counter (made on the first read)."""
    counters = PostCounter.objects.filter(workspace_id=workspace_id)
    found = counters.values_list("total", flat=True).first()
    if found is not None:
        return int(found)
    try:
        with transaction.atomic():
            # The row lock of a new counter serializes this COUNT with concurrent creates.
            counter = PostCounter.objects.create(workspace_id=workspace_id, total=0)
            counter.total = Post.objects.filter(workspace_id=workspace_id).count()
            counter.save(update_fields=["total"])
            return counter.total
    except IntegrityError:  # made by a concurrent first read
        return int(counters.get().total)


def with_records(posts: QuerySet[Post]) -> QuerySet[Post]:
    """Posts with their scheduled records, in time order (one query for all of them), and
    their series (recurring posts)."""
    return posts.select_related("series").prefetch_related(
        Prefetch("records", queryset=ScheduledRecord.objects.order_by("scheduled_time", "id"))
    )


def media_list(*, workspace_id: UUID) -> QuerySet[MediaItem]:
    """The workspace's media library, newest first."""
    return MediaItem.objects.filter(workspace_id=workspace_id).order_by("-created_at", "-id")


def media_urls_of(posts: Iterable[Post]) -> dict[str, str]:
    """The URLs of these posts' media items (`mediaIds`), by id: one query for them all."""
    posts = list(posts)
    wanted = {str(media_id) for post in posts for media_id in post.media_ids}
    if not wanted:
        return {}
    workspaces = {post.workspace_id for post in posts}
    items = MediaItem.objects.filter(pk__in=wanted, workspace_id__in=workspaces).values_list(
        "pk", "url"
    )
    return {str(pk): url for pk, url in items}


def post_list(
    *,
    workspace_id: UUID,
    platform: str | None = None,
    status: str | None = None,
    campaign_id: UUID | None = None,
) -> QuerySet[Post]:
    """The workspace's posts, newest first, with their records; `platform` matches the
    intended platforms and the records' providers."""
    posts = Post.objects.filter(workspace_id=workspace_id)
    if platform:
        posts = posts.filter(provider_set__contains=f"|{platform}|")
    if status:
        posts = posts.filter(status=status)
    if campaign_id:
        posts = posts.filter(campaign_id=campaign_id)
    return with_records(posts.order_by("-created_at", "-id"))


def record_calendar(
    *,
    workspace_id: UUID,
    status: str | None = None,
    account_id: UUID | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
) -> QuerySet[ScheduledRecord]:
    """The workspace's scheduled records by time, `start` and `end` inclusive."""
    records = ScheduledRecord.objects.filter(workspace_id=workspace_id)
    if status:
        records = records.filter(status=status)
    if account_id:
        records = records.filter(account_id=account_id)
    if start:
        records = records.filter(scheduled_time__gte=start)
    if end:
        records = records.filter(scheduled_time__lte=end)
    return records.order_by("scheduled_time", "id")


def workspace_record(*, workspace_id: UUID, record_id: UUID) -> ScheduledRecord:
    """One of the workspace's scheduled records; another workspace's or none: 404."""
    record = ScheduledRecord.objects.filter(pk=record_id, workspace_id=workspace_id).first()
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
    workspace_id: UUID,
    provider: str | None = None,
    account_id: UUID | None = None,
    post_id: UUID | None = None,
    start: date | None = None,
    end: date | None = None,
) -> QuerySet[AnalyticsRecord]:
    """The workspace's analytics rows, newest day first, `start` and `end` inclusive."""
    rows = AnalyticsRecord.objects.filter(workspace_id=workspace_id)
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


def workspace_live() -> Q:
    """Records of a workspace that works: a shared one (it keeps running under its owners,
    whoever wrote the post), or a personal one whose user is active. A deactivated user's
    personal workspace does nothing; an erased user's has gone with its records."""
    return Q(workspace__personal=False) | Q(workspace__personal_user__is_active=True)


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
        ScheduledRecord.objects.filter(workspace_live(), status=RecordStatus.SCHEDULED)
        .exclude(paused_queued())
        .order_by("due_at")
        .values_list("due_at", flat=True)
        .first()
    )
    # A published record whose later parts wait for their retry (its own partial index).
    parts: datetime | None = (
        ScheduledRecord.objects.filter(
            workspace_live(), status=RecordStatus.PUBLISHED, next_attempt_at__isnull=False
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
