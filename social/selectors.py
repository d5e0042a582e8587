"""Reads of the social hub."""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.db import IntegrityError, transaction
from django.db.models import OuterRef, Prefetch, Q, QuerySet, Subquery
from django.utils import timezone

from accounts.models import User
from social.errors import AccountNotFound, RecordNotFound
from social.models import (
    WEEKDAYS,
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
from social.networks import NETWORKS
from social.outcomes import record_error
from social.wallclock import Week


def account_list(*, user: User) -> QuerySet[SocialAccount]:
    """The user's accounts that are not disconnected (expired ones included: reconnect)."""
    return SocialAccount.objects.filter(user=user).exclude(status=AccountStatus.DISCONNECTED)


def settings_for(user: User) -> SocialSettings:
    """The user's social settings; the defaults (unsaved) for a user who never set any."""
    return settings_for_users([user.pk])[user.pk]


def settings_for_users(user_ids: Iterable[Any]) -> dict[Any, SocialSettings]:
    """settings_for of each of these users (by id: the users need not be loaded), by user
    id, in one query."""
    ids = set(user_ids)
    found = {row.user_id: row for row in SocialSettings.objects.filter(user_id__any=list(ids))}
    return {pk: found.get(pk) or SocialSettings(user_id=pk) for pk in ids}


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
    campaign_id: Any = None,
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
    account_id: Any = None,
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


def user_record(*, user: User, record_id: Any) -> ScheduledRecord:
    """One of the user's scheduled records; another user's or none: 404."""
    record = ScheduledRecord.objects.filter(pk=record_id, user=user).first()
    if record is None:
        raise RecordNotFound()
    return record


def record_errors(*, record_ids: Iterable[Any]) -> dict[str, dict[str, Any] | None]:
    """The error objects of these records as they now stand (social.md section 12), by id."""
    ids = list(record_ids)
    if not ids:
        return {}
    return {str(record.pk): record_error(record) for record in ScheduledRecord.objects.filter(
        pk__in=ids).only("status", "provider", "error", "error_code", "history", "warnings",
                         "next_attempt_at")}  # fmt: skip


def analytics_list(
    *,
    user: User,
    provider: str | None = None,
    account_id: Any = None,
    post_id: Any = None,
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


# --- The posting queue and best times (social.md section 11) ---------------------------------


def paused_queued() -> Q:
    """Queued records of a paused queue: the scheduler skips them (exclude them from its
    reads; one subquery over the few paused queues)."""
    paused = AccountQueue.objects.filter(paused=True).values("account_id")
    return Q(queued=True, account_id__in=paused)


def queue_account(*, user: User, account_id: Any) -> SocialAccount:
    """The user's account (not disconnected) with its queue, if it has one; 404 otherwise."""
    account = (
        SocialAccount.objects.filter(pk=account_id, user=user)
        .exclude(status=AccountStatus.DISCONNECTED)
        .select_related("queue")
        .first()
    )
    if account is None:
        raise AccountNotFound()
    return account


def queue_of(*, user: User, account_id: Any) -> AccountQueue:
    """The account's queue; an account without one has none of its own yet: no slots, the
    user's default zone (unsaved)."""
    account = queue_account(user=user, account_id=account_id)
    queue: AccountQueue | None = getattr(account, "queue", None)
    if queue is None:
        queue = AccountQueue(account=account, time_zone=settings_for(user).default_timezone)
    return queue


def queue_records(*, account_id: Any) -> QuerySet[ScheduledRecord]:
    """The account's queue: its waiting queued records never attempted yet (a retry waits at
    its own time), in queue order."""
    return ScheduledRecord.objects.filter(
        account_id=account_id, queued=True, status=RecordStatus.SCHEDULED, attempts=0
    ).order_by("scheduled_time", "id")


UPCOMING_DAYS = 14  # how far ahead a queue shows its slots


def queue_upcoming(
    *, queue: AccountQueue, now: datetime | None = None
) -> list[tuple[datetime, Any | None]]:
    """The queue's slots in the next UPCOMING_DAYS, each with the waiting queued record that
    holds it, or None (one query)."""
    now = now or timezone.now()
    week = Week.of(queue.slots, ZoneInfo(queue.time_zone))
    times = week.between(now, now + timedelta(days=UPCOMING_DAYS))
    if not times or queue._state.adding:
        return [(at, None) for at in times]
    held = dict(
        ScheduledRecord.objects.filter(
            account_id=queue.account_id,
            queued=True,
            status=RecordStatus.SCHEDULED,
            scheduled_time__gte=times[0],
            scheduled_time__lte=times[-1],
        ).values_list("scheduled_time", "id")
    )
    return [(at, held.get(at)) for at in times]


BEST_TIMES = 5
BEST_TIMES_MIN_POSTS = 10  # published posts with metrics before the account's own data count
BEST_TIMES_POSTS = 500  # the most recent published posts read


@dataclass(frozen=True, slots=True)
class BestTime:
    day: str
    time: str
    score: float


@dataclass(frozen=True, slots=True)
class BestTimes:
    source: str  # "analytics" or "default"
    times: list[BestTime]


def best_times(*, account: SocialAccount, zone: Any) -> BestTimes:
    """The account's BEST_TIMES best weekly times, best first: from its own analytics when
    BEST_TIMES_MIN_POSTS of its published posts have metrics (engagement per impression of
    each hour of the week, in `zone`, over its last BEST_TIMES_POSTS posts; a post counts
    with its latest counters), otherwise the platform's defaults."""
    latest = AnalyticsRecord.objects.filter(record=OuterRef("pk")).order_by("-date")
    rows = list(
        ScheduledRecord.objects.filter(
            account=account, status=RecordStatus.PUBLISHED, published_at__isnull=False
        )
        .annotate(
            seen=Subquery(latest.values("impressions")[:1]),
            engaged=Subquery(latest.values("engagement")[:1]),
        )
        .filter(seen__isnull=False)
        .order_by("-published_at")
        .values_list("published_at", "seen", "engaged")[:BEST_TIMES_POSTS]
    )
    defaults = [
        BestTime(day=day, time=at, score=round(1.0 - 0.1 * rank, 2))
        for rank, (day, at) in enumerate(NETWORKS[account.provider].best_times)
    ]
    if len(rows) < BEST_TIMES_MIN_POSTS:
        return BestTimes(source="default", times=defaults)
    hours: dict[tuple[int, int], list[int]] = {}  # (weekday, hour) -> [engaged, seen, posts]
    for published_at, seen, engaged in rows:
        if published_at is None:  # filtered out above; for the type checker
            continue
        local = published_at.astimezone(zone)
        total = hours.setdefault((local.weekday(), local.hour), [0, 0, 0])
        total[0], total[1], total[2] = total[0] + engaged, total[1] + seen, total[2] + 1

    def rate(total: list[int]) -> float:
        return total[0] / total[1] if total[1] else 0.0

    ranked = sorted(hours.items(), key=lambda item: (-rate(item[1]), -item[1][2], item[0]))
    times = [
        BestTime(day=WEEKDAYS[day], time=f"{hour:02d}:00", score=round(rate(total), 4))
        for (day, hour), total in ranked[:BEST_TIMES]
    ]
    # Fewer hours than that with posts: the platform's defaults complete the list, scored 0.
    taken = {(t.day, t.time) for t in times}
    for default in defaults:
        if len(times) == BEST_TIMES:
            break
        if (default.day, default.time) not in taken:
            times.append(BestTime(day=default.day, time=default.time, score=0.0))
    return BestTimes(source="analytics", times=times)
