"""A workspace's report (workspaces.md section 4): what went out between two days, both
included, read in the workspace's time zone (its social settings' `defaultTimezone`), per
network and in total, the five posts that engaged most, and how long approvals took.

Everything is counted in the database, in a fixed number of queries whatever the number of
posts: records published in the period (by `published_at`) and how many of them within 60 s of
their time; records that failed or could not be confirmed, scheduled in the period, by the
category of their error (social.md section 12); the counters last read of each published
record (its newest analytics row); the approvals decided in the period (created to decided,
the median, in hours)."""

import statistics
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery, Sum

from core.errors import ValidationFailed
from social.error_objects import record_error
from social.models import (
    AnalyticsRecord,
    ApprovalRequest,
    ApprovalStatus,
    RecordStatus,
    ScheduledRecord,
)
from social.networks import NETWORKS

MAX_DAYS = 366
DEFAULT_DAYS = 30  # without `from`: the 30 days up to `to` (today, without it)
ON_TIME_SECONDS = 60
TOP_POSTS = 5
FAILED = (RecordStatus.FAILED, RecordStatus.UNCONFIRMED)
COUNTERS = ("impressions", "reactions", "comments", "shares", "clicks")


@dataclass(frozen=True, slots=True)
class Period:
    first: date
    last: date  # included
    zone: ZoneInfo

    @property
    def start(self) -> datetime:
        return datetime.combine(self.first, time(), self.zone)

    @property
    def end(self) -> datetime:  # excluded: the day after `last` begins
        return datetime.combine(self.last + timedelta(days=1), time(), self.zone)


def report_period(*, first: date | None, last: date | None, zone: ZoneInfo, today: date) -> Period:
    """The period asked for: `to` defaults to today, `from` to the 30 days up to `to`. `to`
    before `from`, or more than 366 days from `from` to `to` (both included): 400 naming
    `to`."""
    last = last or today
    first = first or last - timedelta(days=DEFAULT_DAYS - 1)
    if last < first:
        raise ValidationFailed(details={"to": ["Must be on or after `from`."]})
    if (last - first).days + 1 > MAX_DAYS:
        raise ValidationFailed(details={"to": [f"At most {MAX_DAYS} days from `from`."]})
    return Period(first=first, last=last, zone=zone)


@dataclass(slots=True)
class Figures:
    """What a network, or all of them, did in the period."""

    published: int = 0
    on_time: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    counters: Counter[str] = field(default_factory=Counter)

    def add(self, other: "Figures") -> None:
        self.published += other.published
        self.on_time += other.on_time
        self.failed.update(other.failed)
        self.counters.update(other.counters)

    @property
    def on_time_rate(self) -> float | None:
        """0..1; None when nothing was published."""
        return round(self.on_time / self.published, 4) if self.published else None

    def data(self) -> dict[str, Any]:
        return {
            "published": self.published,
            "onTimeRate": self.on_time_rate,
            "failed": dict(sorted(self.failed.items())),
            **{name: int(self.counters[name]) for name in COUNTERS},
        }


@dataclass(frozen=True, slots=True)
class TopPost:
    post_id: UUID
    provider: str
    url: str
    content: str
    engagement: int


@dataclass(frozen=True, slots=True)
class Report:
    period: Period
    totals: Figures
    networks: dict[str, Figures]
    top_posts: list[TopPost]
    approval_median_hours: float | None

    def data(self) -> dict[str, Any]:
        return {
            "from": self.period.first.isoformat(),
            "to": self.period.last.isoformat(),
            "timezone": str(self.period.zone),
            "totals": self.totals.data(),
            "networks": [
                {"provider": provider, **figures.data()}
                for provider, figures in self.networks.items()
            ],
            "topPosts": [
                {
                    "postId": str(top.post_id),
                    "provider": top.provider,
                    "url": top.url,
                    "content": top.content,
                    "engagement": top.engagement,
                }
                for top in self.top_posts
            ],
            "approvalMedianHours": self.approval_median_hours,
        }


def published_in(workspace_id: UUID, period: Period) -> QuerySet[ScheduledRecord]:
    return ScheduledRecord.objects.filter(
        workspace_id=workspace_id,
        status=RecordStatus.PUBLISHED,
        published_at__gte=period.start,
        published_at__lt=period.end,
    )


def latest_metrics(records: QuerySet[ScheduledRecord]) -> QuerySet[AnalyticsRecord]:
    """The newest analytics row of each of these records: its counters as last read."""
    newest = AnalyticsRecord.objects.filter(record=OuterRef("record")).order_by("-date")
    return AnalyticsRecord.objects.filter(
        record__in=records.values("id"), date=Subquery(newest.values("date")[:1])
    )


def on_time() -> Q:
    margin = timedelta(seconds=ON_TIME_SECONDS)
    return Q(
        published_at__lte=F("scheduled_time") + margin,
        published_at__gte=F("scheduled_time") - margin,
    )


def report_build(*, workspace_id: UUID, period: Period) -> Report:
    """The report of the workspace over the period, in five queries."""
    published = published_in(workspace_id, period)
    networks: dict[str, Figures] = {}

    def of(provider: str) -> Figures:
        return networks.setdefault(provider, Figures())

    for row in published.values("provider").annotate(
        count=Count("id"), in_time=Count("id", filter=on_time())
    ):
        found = of(row["provider"])
        found.published, found.on_time = row["count"], row["in_time"]
    sums = {name: Sum(name) for name in COUNTERS}
    for row in latest_metrics(published).values("provider").annotate(**sums):
        of(row["provider"]).counters.update({name: int(row[name] or 0) for name in COUNTERS})
    failed = ScheduledRecord.objects.filter(
        workspace_id=workspace_id,
        status__in=FAILED,
        scheduled_time__gte=period.start,
        scheduled_time__lt=period.end,
    ).only(
        "id", "status", "provider", "error", "error_code", "history", "warnings", "next_attempt_at"
    )
    for record in failed:
        error = record_error(record)
        of(record.provider).failed[str(error["category"]) if error else "internal"] += 1
    ordered = {p: networks[p] for p in sorted(networks, key=_registry_order)}
    totals = Figures()
    for figures in ordered.values():
        totals.add(figures)
    return Report(
        period=period,
        totals=totals,
        networks=ordered,
        top_posts=_top_posts(published),
        approval_median_hours=_approval_median_hours(workspace_id, period),
    )


def _registry_order(provider: str) -> tuple[int, str]:
    order = list(NETWORKS)
    return (order.index(provider) if provider in order else len(order), provider)


def _top_posts(published: QuerySet[ScheduledRecord]) -> list[TopPost]:
    rows = (
        latest_metrics(published)
        .filter(engagement__gt=0)
        .select_related("record", "post")
        .only(
            "engagement", "provider", "record__url", "post__id", "post__content", "post__variants"
        )
        .order_by("-engagement", "-impressions", "record_id")[:TOP_POSTS]
    )
    return [
        TopPost(
            post_id=row.post.pk,
            provider=row.provider,
            url=row.record.url,
            content=str(
                ((row.post.variants or {}).get(row.provider) or {}).get("content")
                or row.post.content
            ),
            engagement=int(row.engagement),
        )
        for row in rows
    ]


def _approval_median_hours(workspace_id: UUID, period: Period) -> float | None:
    """The median time from asking to approving, of the approvals decided in the period (an
    approved request made stale by a later edit still counts: it was approved); None when
    none was."""
    spans = [
        (decided - asked).total_seconds() / 3600
        for asked, decided in ApprovalRequest.objects.filter(
            workspace_id=workspace_id,
            status__in=(ApprovalStatus.APPROVED, ApprovalStatus.STALE),
            decided_at__gte=period.start,
            decided_at__lt=period.end,
        ).values_list("created_at", "decided_at")
        if decided is not None
    ]
    return round(statistics.median(spans), 2) if spans else None


@dataclass(frozen=True, slots=True)
class PublishedRow:
    """One published record, as the CSV shows it."""

    record: ScheduledRecord
    counters: dict[str, int]
    engagement: int

    @property
    def on_time(self) -> bool:
        published = self.record.published_at or self.record.scheduled_time
        return abs((published - self.record.scheduled_time).total_seconds()) <= ON_TIME_SECONDS

    @property
    def content(self) -> str:
        post = self.record.post
        variant = (post.variants or {}).get(self.record.provider) or {}
        return str(variant.get("content") or post.content)


def report_rows(*, workspace_id: UUID, period: Period) -> list[PublishedRow]:
    """Every record published in the period, oldest first, with its counters as last read:
    two queries."""
    published = published_in(workspace_id, period)
    metrics = {
        row["record_id"]: row
        for row in latest_metrics(published).values("record_id", "engagement", *COUNTERS)
    }
    records = (
        published.select_related("post")
        .only(
            "id",
            "provider",
            "scheduled_time",
            "published_at",
            "url",
            "post__id",
            "post__content",
            "post__variants",
        )
        .order_by("published_at", "id")
    )
    rows = []
    for record in records:
        found = metrics.get(record.pk) or {}
        rows.append(
            PublishedRow(
                record=record,
                counters={name: int(found.get(name) or 0) for name in COUNTERS},
                engagement=int(found.get("engagement") or 0),
            )
        )
    return rows
