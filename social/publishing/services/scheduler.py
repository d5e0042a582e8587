"""The scheduler: every due record published at most once, on time, with retries and honest
outcomes (social.md section 5).

One run: reap the records whose lease ran out (their worker died: the outcome is unknown, so
the next attempt looks the post up first), claim the due ones, attempt them concurrently
(`attempts.records_attempt`: provider calls outside any transaction, results fenced by the
claim), and report. Claiming is one statement concurrent runs cannot both win: the candidates
are read with `FOR UPDATE SKIP LOCKED` on PostgreSQL (runs skip each other's rows instead of
waiting), and the UPDATE that claims them only takes rows still `Scheduled`, stamping them
with this run's claim token; the run then works on exactly the rows carrying its token. On
SQLite the same conditional UPDATE is the claim (SQLite runs one write at a time). Published
records whose later parts wait for their retry (social.md section 9) are claimed the same way
when due, their status left Published (job.PARTS), and reaped the same way.

The same service runs from beat (every SCHEDULER_INTERVAL_SECONDS), from
`POST /api/social/scheduler/run` (cron, with X-Cron-Secret) and from
`python manage.py run_scheduler`.
"""

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from core import metrics
from social.conf import scheduler_config
from social.content import posts_live_of, posts_records
from social.error_objects import HistoryOutcome
from social.models import RecordStatus, ScheduledRecord
from social.planning import records_admit
from social.publishing.services.attempts import records_attempt
from social.publishing.services.job import PARTS, RECORDS, Outcome
from social.selectors import paused_queued, workspace_live

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RunReport:
    executed_at: datetime
    reaped: int
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def processed(self) -> int:
        return len(self.outcomes)

    @property
    def successful(self) -> int:
        return sum(outcome.success for outcome in self.outcomes)

    @property
    def failed(self) -> int:
        return len(self.outcomes) - self.successful


def records_reap(*, now: datetime | None = None) -> int:
    """Records still `Publishing` after their lease: their worker died mid-attempt. Each goes
    back to `Scheduled`, due now, with its outcome unknown (the attempt may have reached the
    platform) and the attempt counted."""
    now = now or timezone.now()
    reaped = _reap(RECORDS.expired(now), held=RecordStatus.PUBLISHING, now=now)
    # Published records whose later parts' attempt outlived its lease (among the few of the
    # parts' due index): they stay Published, their parts due now.
    parts = ScheduledRecord.objects.filter(
        status=RecordStatus.PUBLISHED,
        next_attempt_at__isnull=False,
        claim__isnull=False,
        lease_expires_at__lt=now,
    )
    reaped += _reap(parts, held=RecordStatus.PUBLISHED, now=now)
    if reaped:
        logger.warning("Scheduler: %s records reclaimed after their lease ran out", reaped)
    return reaped


def _reap(stale: QuerySet[ScheduledRecord], *, held: str, now: datetime) -> int:
    """Give back `stale` records (in `held` status, their lease run out): due now, the attempt
    counted, its outcome unknown (looked up first). A Publishing record goes back to
    Scheduled; a Published one with parts to come stays Published."""
    reaped = 0
    rows = stale.values_list("pk", "claim", "attempts", "history", "updated_at")
    for pk, claim, attempts, history, claimed in list(rows[: scheduler_config().batch_size]):
        entry = {
            "attempt": attempts + 1,
            "at": now.isoformat(),
            # Written when it was claimed (or its lease renewed): what the dead attempt made
            # is not older, so its lookup reads back to here.
            "began": claimed.isoformat(),
            "outcome": HistoryOutcome.LEASE_EXPIRED,
            "error": "The worker stopped before the platform's answer was recorded.",
        }
        reaped += ScheduledRecord.objects.filter(pk=pk, status=held, claim=claim).update(
            status=RecordStatus.SCHEDULED if held == RecordStatus.PUBLISHING else held,
            due_at=now,
            next_attempt_at=now,
            lease_expires_at=None,
            claim=None,
            attempts=attempts + 1,
            outcome_unknown=True,
            error_code="lease_expired",
            history=[*history, entry],
            updated_at=now,
        )
    return reaped


def records_claim(*, limit: int, now: datetime | None = None) -> list[ScheduledRecord]:
    """Claim up to `limit` due records for this run (see the module's docstring)."""
    now = now or timezone.now()
    # A deactivated user's personal workspace's records are never attempted (an erasure
    # deletes them), nor the queued records of a paused queue (social.md section 11). Whose a
    # post is does not matter: a shared workspace's records go out whoever wrote them.
    due = ScheduledRecord.objects.filter(workspace_live(), due_at__lte=now).exclude(paused_queued())
    claimed: list[ScheduledRecord] = []
    with transaction.atomic():
        token, ids = RECORDS.claim_some(
            due, now=now, limit=limit, order_by=("due_at",), updated_at=now
        )
        if token is not None:
            claimed = list(
                RECORDS.held(token, ids)
                .select_related("post", "account", "account__app")
                .order_by("due_at")
            )
            posts_live_of(posts_records(claimed))  # each post's records, these now Publishing
    if claimed:
        claimed = records_admit(claimed)  # those over their account's daily cap wait (caps.py)
        metrics.scheduler_claimed((r.provider, (now - r.due_at).total_seconds()) for r in claimed)
    if len(claimed) < limit:
        claimed += _parts_claim(limit=limit - len(claimed), now=now)
    return claimed


def _parts_claim(*, limit: int, now: datetime) -> list[ScheduledRecord]:
    """Claim up to `limit` Published records whose later parts are due (job.PARTS: their
    status stays Published; no daily cap, which counts posts, and no live event: nothing a
    user sees changes until their result)."""
    due = ScheduledRecord.objects.filter(
        next_attempt_at__isnull=False,
        due_at__lte=now,
        claim__isnull=True,
    ).filter(workspace_live())
    with transaction.atomic():
        # Not due again while its lease lasts (it stays Published, in the due set's index):
        # the timers do not wake for it; the reaper makes it due at once if its worker dies.
        held_until = now + timedelta(seconds=scheduler_config().lease_seconds)
        token, ids = PARTS.claim_some(
            due, now=now, limit=limit, order_by=("due_at",), updated_at=now, due_at=held_until
        )
        if token is None:
            return []
        return list(
            PARTS.held(token, ids)
            .select_related("post", "account", "account__app")
            .order_by("due_at")
        )


def scheduler_run(*, limit: int | None = None) -> RunReport:
    """One run over the due set: reap, claim, publish, report."""
    executed_at = timezone.now()
    reaped = records_reap(now=executed_at)
    config = scheduler_config()
    claimed = records_claim(limit=limit or config.batch_size, now=executed_at)
    outcomes = records_attempt(claimed, concurrency=config.concurrency, claimed_at=executed_at)
    metrics.scheduler_attempted((outcome.provider, outcome.status) for outcome in outcomes)
    if outcomes:
        logger.info(
            "Scheduler: %s records attempted, %s published",
            len(outcomes),
            sum(o.success for o in outcomes),
        )
    return RunReport(executed_at=executed_at, reaped=reaped, outcomes=outcomes)
