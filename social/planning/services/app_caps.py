"""Daily caps the app's accounts share (a network's `app_cap`, social.networks.base): YouTube's
uploads a day for the whole Google Cloud project, every account together, reset at midnight
Pacific Time (networks/youtube.md). The day's use is the network's records published since that
day's midnight and those being published now; a record that would exceed the cap is put back
to `Scheduled`, due at the next midnight, with a `deferred` history entry (nothing sent, no
attempt counted), as the per-account caps do (caps.py). Runs admitting records of one such
network wait on each other (a transaction-scoped advisory lock on PostgreSQL; SQLite writes
one at a time anyway), so they never admit more than the cap together."""

import zlib
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import connection
from django.utils import timezone

from social.error_objects import HistoryOutcome
from social.models import RecordStatus, ScheduledRecord
from social.networks import NETWORKS
from social.networks.base import AppCap

MARGIN = timedelta(seconds=1)  # a deferred record comes due just after the day turns


def app_cap_of(provider: str) -> tuple[AppCap, int] | None:
    """The network's shared cap and its limit (its setting), None without one."""
    network = NETWORKS.get(provider)
    cap = network.app_cap if network is not None else None
    if cap is None:
        return None
    limit = int(getattr(settings, cap.setting, 0) or 0)
    return (cap, limit) if limit > 0 else None


def day_of(cap: AppCap, now: datetime) -> tuple[datetime, datetime]:
    """The cap's current day: its midnight and the next, in its zone."""
    local = now.astimezone(ZoneInfo(cap.zone))
    start = local.replace(hour=0, minute=0, second=0, microsecond=0)
    following = start.date() + timedelta(days=1)
    end = datetime(following.year, following.month, following.day, tzinfo=ZoneInfo(cap.zone))
    return start, end


def app_used(
    provider: str, now: datetime, *, exclude: set[Any] | frozenset[Any] = frozenset()
) -> int:
    """The network's records published since the day's midnight, and those being published."""
    found = app_cap_of(provider)
    if found is None:
        return 0
    start, _ = day_of(found[0], now)
    published = ScheduledRecord.objects.filter(
        provider=provider, status=RecordStatus.PUBLISHED, published_at__gte=start
    ).count()
    publishing = (
        ScheduledRecord.objects.filter(provider=provider, status=RecordStatus.PUBLISHING)
        .exclude(pk__in=exclude)
        .count()
    )
    return published + publishing


def app_caps_admit(records: list[ScheduledRecord], *, mine: set[Any], now: datetime) -> set[Any]:
    """In the caller's transaction: of these claimed records, the ones over their network's
    shared cap, deferred to its next day (their ids)."""
    deferred: set[Any] = set()
    for provider in sorted({record.provider for record in records}):
        found = app_cap_of(provider)
        if found is None:
            continue
        cap, limit = found
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                key = zlib.crc32(f"app_cap:{provider}".encode())
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])
        used = app_used(provider, now, exclude=mine)
        _, end = day_of(cap, now)
        for record in sorted(
            (r for r in records if r.provider == provider), key=lambda r: (r.due_at, str(r.pk))
        ):
            if used < limit:
                used += 1
                continue
            if _defer(record, now=now, until=end + MARGIN, limit=limit, cap=cap):
                deferred.add(record.pk)
    return deferred


def _defer(
    record: ScheduledRecord, *, now: datetime, until: datetime, limit: int, cap: AppCap
) -> bool:
    name = NETWORKS[record.provider].name
    message = (
        f"{name} takes {limit} {cap.what} a day from this app, every account together: this "
        f"one waits until {until.astimezone(ZoneInfo('UTC')):%Y-%m-%d %H:%M} UTC, when "
        f"{name}'s day ends ({cap.zone})."
    )
    entry = {
        "at": now.isoformat(),
        "outcome": HistoryOutcome.DEFERRED,
        "until": until.isoformat(),
        "error": message,
        "category": "account_limit",
    }
    changed = ScheduledRecord.objects.filter(
        pk=record.pk, status=RecordStatus.PUBLISHING, claim=record.claim
    ).update(
        status=RecordStatus.SCHEDULED,
        due_at=until,
        next_attempt_at=until,
        lease_expires_at=None,
        claim=None,
        error_code="daily_cap_reached",
        error=message,
        history=[*record.history, entry],
        updated_at=timezone.now(),
    )
    return bool(changed)
