"""Per-platform daily caps (social.md section 12): a record that would exceed its account's cap
waits for the next window instead of being attempted and refused.

A cap is posts per rolling 24 hours (SOCIAL_DAILY_CAPS: Instagram 25 through the API, LinkedIn
100 by default): what Instagram's content publishing limit counts, and never more than a
calendar day allows either. An account's use is its records published in the last 24 hours
and those being published now (claimed by a run: they may publish any moment). Records are
admitted when they are claimed, before any provider call: the accounts' rows are locked in
one short transaction while their use is counted and the records over the cap are put back
to `Scheduled`, due when the oldest counted post leaves the window, with a `deferred` history
entry (no attempt counted, nothing sent). Two runs claiming records of one account wait on
each other's count, so they never admit more than the cap together.
"""

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from social.content import posts_live
from social.error_objects import HistoryOutcome
from social.models import RecordStatus, ScheduledRecord, SocialAccount
from social.networks import NETWORKS
from social.planning.services.app_caps import app_cap_of, app_caps_admit, app_used, day_of

WINDOW = timedelta(hours=24)
MARGIN = timedelta(seconds=1)  # a deferred record comes due just after its slot frees
CODE = "daily_cap_reached"


def cap_of(provider: str) -> int | None:
    limit = settings.SOCIAL_DAILY_CAPS.get(provider)
    return int(limit) if limit else None


@dataclass(frozen=True, slots=True)
class CapUse:
    limit: int
    used: int
    # When the oldest counted post leaves the window (a slot frees); None with none counted.
    resets_at: datetime | None


def _published_in_window(account_ids: list[UUID], now: datetime) -> dict[UUID, list[datetime]]:
    found: dict[UUID, list[datetime]] = defaultdict(list)
    rows = (
        ScheduledRecord.objects.filter(
            account_id__in=account_ids,
            status=RecordStatus.PUBLISHED,
            published_at__gt=now - WINDOW,
        )
        .order_by("published_at")
        .values_list("account_id", "published_at")
    )
    for account_id, published_at in rows:
        if published_at is not None:
            found[account_id].append(published_at)
    return found


def _publishing(account_ids: list[UUID], exclude: set[UUID]) -> dict[UUID, int]:
    counts: dict[UUID, int] = defaultdict(int)
    rows = ScheduledRecord.objects.filter(
        account_id__in=account_ids, status=RecordStatus.PUBLISHING
    ).values_list("account_id", "pk")
    for account_id, pk in rows:
        if pk not in exclude:
            counts[account_id] += 1
    return counts


def cap_use(account: SocialAccount, *, now: datetime | None = None) -> CapUse | None:
    """The account's use of its platform's daily cap (None: the platform has none); a cap the
    app's accounts share (YouTube's uploads: app_caps) counts every account's."""
    now = now or timezone.now()
    shared = app_cap_of(account.provider)
    if shared is not None:
        _, resets_at = day_of(shared[0], now)
        return CapUse(limit=shared[1], used=app_used(account.provider, now), resets_at=resets_at)
    limit = cap_of(account.provider)
    if limit is None:
        return None
    published = _published_in_window([account.pk], now)[account.pk]
    used = len(published) + _publishing([account.pk], set())[account.pk]
    return CapUse(limit=limit, used=used, resets_at=published[0] + WINDOW if published else None)


def records_admit(records: list[ScheduledRecord]) -> list[ScheduledRecord]:
    """Of these claimed records (`Publishing`, each with its claim), those within their
    accounts' caps, in their order; the others are put back to wait for their window (fenced
    by their claim: a record no longer this run's is left alone). Without a capped platform
    among them, no query."""
    capped = [record for record in records if cap_of(record.provider) is not None]
    shared = [record for record in records if app_cap_of(record.provider) is not None]
    if not capped and not shared:
        return records
    now = timezone.now()
    mine = {record.pk for record in records}
    deferred: set[Any] = set()
    with transaction.atomic():
        if shared:  # the caps every account of a network shares (YouTube's uploads)
            deferred |= app_caps_admit(shared, mine=mine, now=now)
        account_ids = sorted({record.account_id for record in capped}, key=str)
        # One lock order for every run; held while counting and deferring.
        list(
            SocialAccount.objects.select_for_update()
            .filter(pk__in=account_ids)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        published = _published_in_window(account_ids, now)
        publishing = _publishing(account_ids, mine)
        admitted: dict[UUID, int] = defaultdict(int)
        for record in sorted(capped, key=lambda r: (r.due_at, str(r.pk))):
            limit = cap_of(record.provider) or 0
            times = published[record.account_id]
            used = len(times) + publishing[record.account_id] + admitted[record.account_id]
            if used < limit:
                admitted[record.account_id] += 1
                continue
            # Due when enough of the counted posts have left the window for its turn (the
            # ones being published now count as published now).
            over = used - limit
            ages = [*times, *([now] * publishing[record.account_id])]
            until = (ages[min(over, len(ages) - 1)] if ages else now) + WINDOW + MARGIN
            if _defer(record, now=now, until=until, limit=limit):
                deferred.add(record.pk)
        if deferred:
            posts_live({r.post_id for r in [*capped, *shared] if r.pk in deferred})
    return [record for record in records if record.pk not in deferred]


def _defer(record: ScheduledRecord, *, now: datetime, until: datetime, limit: int) -> bool:
    name = NETWORKS[record.provider].name
    message = (
        f"{name} takes {limit} posts a day from an app: this one waits until "
        f"{until:%Y-%m-%d %H:%M} UTC, when the oldest of them is a day old."
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
        error_code=CODE,
        error=message,
        history=[*record.history, entry],
        updated_at=now,
    )
    return bool(changed)
