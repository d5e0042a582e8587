"""Analytics: each published record's counters, read from its platform once a day for 30 days
after publishing, one row per (record, date). Provider calls run concurrently in threads that
touch no database; one platform's outage or one account's expired token stops nothing else."""

import logging
import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from core import outbound, ratelimit
from core.concurrency import bounded_map
from core.errors import RateLimitedError
from core.tasks import enqueue_on_commit, task_named
from social.conf import scheduler_config
from social.connections.services.credentials import (
    account_mark_expired,
    credentials_keep,
    sessions_open,
)
from social.errors import AccountNotFound, PostNotFound
from social.models import (
    AccountStatus,
    AnalyticsRecord,
    Post,
    RecordStatus,
    ScheduledRecord,
    SocialAccount,
)
from social.networks import NETWORKS
from social.providers.base import Credentials, Metrics, Published

logger = logging.getLogger(__name__)

COLLECT_DAYS = 30


@dataclass
class Reading:
    record: ScheduledRecord
    credentials: Credentials
    metrics: Metrics | None = None
    error: outbound.OutboundError | None = None


def _read(reading: Reading) -> None:
    """One record's counters from its platform (a worker thread: no database)."""
    if reading.error is not None:
        return
    record = reading.record
    adapter = NETWORKS[record.provider].adapter
    try:
        reading.metrics = adapter.metrics(
            reading.credentials, Published(record.provider_post_id, record.url)
        )
    except outbound.OutboundError as error:
        reading.error = error
    except Exception as error:  # a provider answer we did not expect: this record only
        logger.exception("Metrics of record %s (%s) failed", record.pk, record.provider)
        reading.error = outbound.PermanentError(f"Unexpected error ({type(error).__name__}).")


def _collectable(now: datetime) -> QuerySet[ScheduledRecord]:
    """The records whose counters are read: published in the last 30 days, on accounts still
    connected, on networks that give counters."""
    return (
        ScheduledRecord.objects.filter(
            status=RecordStatus.PUBLISHED,
            published_at__gte=now - timedelta(days=COLLECT_DAYS),
            account__status=AccountStatus.CONNECTED,
        )
        .exclude(provider_post_id="")
        .exclude(provider__in=[name for name, network in NETWORKS.items() if not network.metrics])
    )


def metrics_collect(
    *, concurrency: int | None = None, record_ids: list[str] | None = None
) -> dict[str, int]:
    """Today's counters of every record published in the last 30 days (of `record_ids` only,
    when given: a refresh asked for), on accounts still connected. Safe to run more than once
    a day: the day's row is updated."""
    now = timezone.now()
    found = _collectable(now)
    if record_ids is not None:
        found = found.filter(pk__in=record_ids)
    records = list(found.select_related("account", "account__app", "account__user"))
    concurrency = concurrency or scheduler_config().concurrency
    sessions = sessions_open([record.account for record in records], concurrency=concurrency)
    readings = [
        Reading(
            record, sessions[record.account_id].credentials, error=sessions[record.account_id].error
        )
        for record in records
    ]
    bounded_map(_read, readings, limit=concurrency)
    done: Counter[str] = Counter()
    today = now.date()
    expired: set[object] = set()
    for reading in readings:
        record = reading.record
        credentials_keep(record.account, reading.credentials)
        error = reading.error
        if isinstance(error, outbound.AuthenticationError) and record.account_id not in expired:
            account_mark_expired(account=record.account, reason=error.message)
            expired.add(record.account_id)
        if reading.metrics is None:
            done[f"failed:{record.provider}"] += 1
            continue
        with transaction.atomic():
            AnalyticsRecord.objects.update_or_create(
                record=record,
                date=today,
                defaults={
                    "workspace_id": record.workspace_id,
                    "post_id": record.post_id,
                    "account_id": record.account_id,
                    "provider": record.provider,
                    "impressions": reading.metrics.impressions,
                    "engagement": reading.metrics.engagement,
                    "clicks": reading.metrics.clicks,
                    "reactions": reading.metrics.reactions,
                    "comments": reading.metrics.comments,
                    "shares": reading.metrics.shares,
                    "collected_at": now,
                },
            )
        done["collected"] += 1
    return {"records": len(readings), **done}


REFRESH_EVERY_SECONDS = 15 * 60  # an account's counters read on demand at most this often
REFRESH_TASK = "social.tasks.metrics_refresh_task"


def metrics_refresh(
    *,
    workspace_id: uuid.UUID,
    account_id: uuid.UUID | None = None,
    post_id: uuid.UUID | None = None,
) -> int:
    """Queue a collection, now, of the counters of the workspace's records that the periodic
    task would read (of that account, of that post, when named; social.md section 13): how
    many were queued. Each account at most once per REFRESH_EVERY_SECONDS: the records of an
    account refreshed within that time are left out, and when every account concerned was,
    429 with the seconds until the first may be refreshed again. An account or post not the
    workspace's: 404."""
    if (
        account_id is not None
        and not SocialAccount.objects.filter(pk=account_id, workspace_id=workspace_id).exists()
    ):
        raise AccountNotFound()
    if (
        post_id is not None
        and not Post.objects.filter(pk=post_id, workspace_id=workspace_id).exists()
    ):
        raise PostNotFound()
    found = _collectable(timezone.now()).filter(workspace_id=workspace_id)
    if account_id is not None:
        found = found.filter(account_id=account_id)
    if post_id is not None:
        found = found.filter(post_id=post_id)
    by_account: dict[uuid.UUID, list[str]] = {}
    for record_id, record_account in found.values_list("pk", "account_id"):
        by_account.setdefault(record_account, []).append(str(record_id))
    waits: list[int] = []
    queued: list[str] = []
    for account, record_ids in sorted(by_account.items(), key=lambda item: str(item[0])):
        window = ratelimit.hit(f"metrics-refresh:{account}", limit=1, period=REFRESH_EVERY_SECONDS)
        if window.exceeded:
            waits.append(window.reset)
        else:
            queued += record_ids
    if waits and not queued:
        raise RateLimitedError(
            "These counters were refreshed less than 15 minutes ago.", retry_after=min(waits)
        )
    if queued:
        enqueue_on_commit(task_named(REFRESH_TASK), record_ids=queued)
    return len(queued)
