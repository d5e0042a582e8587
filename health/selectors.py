"""What an operator reads about the running system, across the apps (the admin's "System
status" page and the gauges of /metrics that are read at scrape time): backlogs, lags, failing
providers, workers. Each number is one small query on an index made for it."""

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db.models import Count, Min, Q
from django.utils import timezone

from core.heartbeats import SEEN_WITHIN
from core.models import WorkerHeartbeat
from core.redis import get_redis
from notifications.models import (
    ConsumptionStatus,
    DeliveryStatus,
    OutboxConsumption,
    OutboxEvent,
    WebhookDelivery,
)
from social.models import RecordStatus, ScheduledRecord

logger = logging.getLogger(__name__)

# The Celery queues the workers read: the default one, and webhook deliveries' own.
QUEUES = ("celery", "webhooks")
HISTORY_RECORDS = 5000  # the most recently changed records the providers' summary reads


def _age(now: datetime, since: datetime | None) -> float:
    return max(0.0, (now - since).total_seconds()) if since is not None else 0.0


@dataclass(frozen=True, slots=True)
class Backlogs:
    """Work waiting now, and how long the oldest of each kind has waited past its time."""

    records_due: int  # scheduled records whose time has come, not yet claimed
    records_oldest_due_seconds: float
    records_publishing: int  # claimed, their attempt under way
    webhooks_pending: int  # deliveries not yet delivered or failed (retries waiting included)
    webhooks_due: int  # of those, the ones whose (next) attempt is due now
    webhooks_oldest_due_seconds: float
    outbox_undispatched: int  # events not yet handed to their consumers
    outbox_consumptions_due: int  # handed over, their consumer's run due and not done
    outbox_lag_seconds: float  # how long the oldest of those two has waited
    workers_seen: int  # Celery workers whose heartbeat came within the last minute
    queue_lengths: dict[str, int] = field(default_factory=dict)  # tasks waiting per queue


def backlogs(*, now: datetime | None = None) -> Backlogs:
    now = now or timezone.now()
    records = ScheduledRecord.objects.filter(
        status__in=[RecordStatus.SCHEDULED, RecordStatus.PUBLISHING]
    ).aggregate(
        due=Count("pk", filter=Q(status=RecordStatus.SCHEDULED, due_at__lte=now)),
        oldest=Min("due_at", filter=Q(status=RecordStatus.SCHEDULED, due_at__lte=now)),
        publishing=Count("pk", filter=Q(status=RecordStatus.PUBLISHING)),
    )
    webhooks = WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING).aggregate(
        pending=Count("pk"),
        due=Count("pk", filter=Q(next_attempt_at__lte=now)),
        oldest=Min("next_attempt_at", filter=Q(next_attempt_at__lte=now)),
    )
    events = OutboxEvent.objects.filter(dispatched_at__isnull=True).aggregate(
        waiting=Count("pk"), oldest=Min("created_at")
    )
    consumptions = OutboxConsumption.objects.filter(
        status__in=[ConsumptionStatus.PENDING, ConsumptionStatus.RUNNING], next_attempt_at__lte=now
    ).aggregate(due=Count("pk"), oldest=Min("next_attempt_at"))
    return Backlogs(
        records_due=records["due"],
        records_oldest_due_seconds=_age(now, records["oldest"]),
        records_publishing=records["publishing"],
        webhooks_pending=webhooks["pending"],
        webhooks_due=webhooks["due"],
        webhooks_oldest_due_seconds=_age(now, webhooks["oldest"]),
        outbox_undispatched=events["waiting"],
        outbox_consumptions_due=consumptions["due"],
        outbox_lag_seconds=max(_age(now, events["oldest"]), _age(now, consumptions["oldest"])),
        workers_seen=WorkerHeartbeat.objects.filter(seen_at__gte=now - SEEN_WITHIN).count(),
        queue_lengths=queue_lengths(),
    )


def queue_lengths() -> dict[str, int]:
    """Tasks waiting in each queue of the broker (Redis, or the embedded file-system one);
    {} when the broker cannot be read (the probe of health says so)."""
    try:
        if settings.REDIS_URL:
            pipe = get_redis().pipeline(transaction=False)
            for queue in QUEUES:
                pipe.llen(queue)
            return dict(zip(QUEUES, (int(n) for n in pipe.execute()), strict=True))
        folder = Path(str(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"]))
        names = [entry.name for entry in folder.iterdir()] if folder.is_dir() else []
        return {queue: sum(name.endswith(f".{queue}.msg") for name in names) for queue in QUEUES}
    except Exception:
        logger.warning("The task queue's length could not be read", exc_info=True)
        return {}


@dataclass(frozen=True, slots=True)
class ProviderFailures:
    """A platform's attempts in the period, how many failed, and the last failure."""

    provider: str
    attempts: int
    failed: int
    last_error: str
    last_failed_at: datetime | None

    @property
    def share(self) -> float:
        return self.failed / self.attempts if self.attempts else 0.0


def providers_failing(*, hours: float = 1.0, now: datetime | None = None) -> list[ProviderFailures]:
    """The platforms with a failed attempt in the last `hours`, most failures first: every
    attempt's entry in the records' histories (the most recently changed records)."""
    now = now or timezone.now()
    since = (now - timedelta(hours=hours)).isoformat()
    histories = (
        ScheduledRecord.objects.filter(updated_at__gte=now - timedelta(hours=hours))
        .order_by("-updated_at")
        .values_list("provider", "history")[:HISTORY_RECORDS]
    )
    attempts: dict[str, int] = {}
    failed: dict[str, int] = {}
    last: dict[str, tuple[str, str]] = {}
    for provider, history in histories:
        for entry in history or []:
            at = str(entry.get("at", ""))
            if at < since or entry.get("outcome") not in ("published", "error"):
                continue
            attempts[provider] = attempts.get(provider, 0) + 1
            if entry["outcome"] == "error":
                failed[provider] = failed.get(provider, 0) + 1
                if at > last.get(provider, ("", ""))[0]:
                    last[provider] = (at, str(entry.get("error", "")))
    found = [
        ProviderFailures(
            provider=provider,
            attempts=attempts[provider],
            failed=count,
            last_error=last[provider][1],
            last_failed_at=_moment(last[provider][0]),
        )
        for provider, count in failed.items()
    ]
    return sorted(found, key=lambda item: (-item.failed, item.provider))


def _moment(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Worker:
    name: str
    pid: int
    processes: int
    started_at: datetime
    seen_at: datetime
    seen_lately: bool


def workers(*, now: datetime | None = None) -> list[Worker]:
    """The workers that sent a heartbeat in the last day, the most recently seen first."""
    now = now or timezone.now()
    return [
        Worker(
            name=row.name,
            pid=row.pid,
            processes=row.processes,
            started_at=row.started_at,
            seen_at=row.seen_at,
            seen_lately=row.seen_at >= now - SEEN_WITHIN,
        )
        for row in WorkerHeartbeat.objects.order_by("-seen_at")[:50]
    ]
