"""Reads of the posting queue and its best times (social.md section 11)."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from social.errors import AccountNotFound
from social.models import (
    WAITING_STATUSES,
    WEEKDAYS,
    AccountQueue,
    AccountStatus,
    AnalyticsRecord,
    RecordStatus,
    ScheduledRecord,
    SocialAccount,
)
from social.networks import NETWORKS
from social.planning.wallclock import Week
from social.selectors import settings_for

# --- The posting queue and best times (social.md section 11) ---------------------------------


def queue_account(*, workspace_id: UUID, account_id: UUID) -> SocialAccount:
    """The workspace's account (not disconnected) with its queue, if it has one; 404
    otherwise."""
    account = (
        SocialAccount.objects.filter(pk=account_id, workspace_id=workspace_id)
        .exclude(status=AccountStatus.DISCONNECTED)
        .select_related("queue")
        .first()
    )
    if account is None:
        raise AccountNotFound()
    return account


def queue_of(*, workspace_id: UUID, account_id: UUID) -> AccountQueue:
    """The workspace's account's queue; an account without one has none of its own yet: no
    slots, the workspace's default zone (unsaved)."""
    account = queue_account(workspace_id=workspace_id, account_id=account_id)
    queue: AccountQueue | None = getattr(account, "queue", None)
    if queue is None:
        queue = AccountQueue(account=account, time_zone=settings_for(workspace_id).default_timezone)
    return queue


def queue_records(*, account_id: UUID) -> QuerySet[ScheduledRecord]:
    """The account's queue: its waiting queued records never attempted yet (a retry waits at
    its own time), in queue order."""
    return ScheduledRecord.objects.filter(
        account_id=account_id, queued=True, status__in=WAITING_STATUSES, attempts=0
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
            status__in=WAITING_STATUSES,
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
