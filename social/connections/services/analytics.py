"""Analytics: each published record's counters, read from its platform once a day for 30 days
after publishing, one row per (record, date). Provider calls run concurrently in threads that
touch no database; one platform's outage or one account's expired token stops nothing else."""

import logging
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from core import outbound
from core.concurrency import bounded_map
from social.conf import scheduler_config
from social.connections.services.credentials import (
    account_mark_expired,
    credentials_keep,
    sessions_open,
)
from social.models import AccountStatus, AnalyticsRecord, RecordStatus, ScheduledRecord
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


def metrics_collect(*, concurrency: int | None = None) -> dict[str, int]:
    """Today's counters of every record published in the last 30 days, on accounts still
    connected. Safe to run more than once a day: the day's row is updated."""
    now = timezone.now()
    records = list(
        ScheduledRecord.objects.filter(
            status=RecordStatus.PUBLISHED,
            published_at__gte=now - timedelta(days=COLLECT_DAYS),
            account__status=AccountStatus.CONNECTED,
        )
        .exclude(provider_post_id="")
        .select_related("account", "account__app", "account__user")
    )
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
                    "collected_at": now,
                },
            )
        done["collected"] += 1
    return {"records": len(readings), **done}
