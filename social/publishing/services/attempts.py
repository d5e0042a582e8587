"""One attempt at publishing claimed records, used by "publish now" and by the scheduler.

A record arrives claimed: `Publishing`, with a lease (`lease_expires_at`, after which the
scheduler may reclaim it) and a claim token (`claim`) that fences its result. The provider
calls run concurrently in threads that touch no database; their results are settled in the
calling thread while the other calls run, up to 64 of them in one short transaction that
writes each record, then the posts' derived statuses, the notifications and the outbox events
of the batch in a few statements for all of them. A result whose claim was lost
(the record was reclaimed after its lease ran out, or the post deleted) changes nothing.

Attempts (social.md section 5): 3 per record. A transient failure with attempts left and
`autoRetry` on waits `SCHEDULER_RETRY_BASE_SECONDS * 2^(attempts - 1)` (or the platform's
`Retry-After`, when later). An attempt that may have reached the platform (not a 503 or a
429: the platform did not act) marks the outcome unknown: the next attempt first looks the
post up; in the record's last attempt the platform is asked at once. Permanent failures,
authentication failures (the account is marked `expired`) and the last attempt end the
record: `Failed`, or `Unconfirmed` when it may have been published and the platform could
not be asked. A record whose post is out is `Published` (section 9): its later parts that
failed wait for their retry under the PARTS lease, the record still Published.
"""

import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any
from uuid import UUID

from django.db import DatabaseError, transaction
from django.utils import timezone

from core.concurrency import bounded
from social.conf import scheduler_config
from social.connections import credentials_keep, sessions_open
from social.content import (
    draft_of,
)
from social.models import RecordStatus, ScheduledRecord
from social.providers.base import LOOKUP_SKEW
from social.publishing.services.calls import attempt_call, published_post
from social.publishing.services.job import (
    Job,
    Outcome,
    OutcomeStatus,
)
from social.publishing.services.settle import jobs_settle
from social.selectors import hub_settings

logger = logging.getLogger(__name__)


Refill = Callable[[], tuple[list[ScheduledRecord], datetime]]


def records_attempt(
    records: list[ScheduledRecord],
    *,
    concurrency: int,
    claimed_at: datetime | None = None,
    continued: bool = False,
    refill: Refill | None = None,
) -> list[Outcome]:
    """Attempt each claimed record once (records need post, account and account.app
    loaded); the outcomes in the same order. `claimed_at`: when they were claimed (now).
    `continued`: the attempt began earlier and goes on (a video the platform was processing):
    its lateness was measured then. `refill`: asked for more claimed records (and when they
    were claimed) whenever every call so far has started, while the last ones are in flight,
    until it gives none (the timer: no pause between its batches); their outcomes follow."""
    if not records:
        return []
    claimed_at = None if continued else (claimed_at or timezone.now())
    jobs = _jobs(records, concurrency=concurrency, claimed_at=claimed_at)

    def more(refill: Refill) -> Callable[[], list[Job]]:
        def claimed_jobs() -> list[Job]:
            claimed, at = refill()
            added = _jobs(claimed, concurrency=concurrency, claimed_at=at) if claimed else []
            jobs.extend(added)
            return added

        return claimed_jobs

    # Results are settled while the other calls are still in flight, several to a
    # transaction (settle_at_least, settle_within_seconds; each record's writes stay fenced
    # by its claim; a failed batch leaves its records to the lease, then the lookup).
    config = scheduler_config()
    outcomes: dict[int, Outcome] = {}
    calls = bounded(
        attempt_call,
        list(jobs),
        limit=concurrency,
        gather=config.settle_gather_seconds,
        more=more(refill) if refill is not None else None,
        ahead=config.ahead_rounds,
        tick=config.settle_tick_seconds,
    )
    held: list[int] = []  # ended, not yet written
    since = 0.0
    for ended in calls:
        if ended and not held:
            since = time.monotonic()
        held += [index for index, _ in ended]
        if held and (
            len(held) >= config.settle_at_least
            or time.monotonic() - since >= config.settle_within_seconds
        ):
            _settle_ended(jobs, held, outcomes)
            held = []
    _settle_ended(jobs, held, outcomes)  # the last ones: no call is left running
    return [outcomes[index] for index in range(len(jobs))]


def _settle_ended(jobs: list[Job], ended: list[int], outcomes: dict[int, Outcome]) -> None:
    """Write the results of these jobs (by index) into `outcomes`, settle_batch to a
    transaction; each record's writes fenced by its claim. A batch that fails leaves nothing
    written: each of its records is then settled on its own (one that fails again is left to
    its lease, then the lookup)."""
    # One lock order for every run (user, then post): two runs' batches touch the same users'
    # counters and the same posts, and must not wait on each other in opposite orders.
    indexes = sorted(
        ended, key=lambda i: (str(jobs[i].record.user_id), str(jobs[i].record.post_id))
    )
    for index in indexes:  # renewed during the calls: kept whatever the batch does
        credentials_keep(jobs[index].record.account, jobs[index].credentials)
    size = scheduler_config().settle_batch
    for start in range(0, len(indexes), size):
        batch = indexes[start : start + size]
        try:
            with transaction.atomic():
                settled = jobs_settle([jobs[index] for index in batch])
            outcomes.update(zip(batch, settled, strict=True))
        except DatabaseError:
            logger.warning("Settling %s results together failed; one by one", len(batch))
            for index in batch:
                outcomes[index] = _settle_alone(jobs[index])


def _jobs(
    records: list[ScheduledRecord], *, concurrency: int, claimed_at: datetime | None
) -> list[Job]:
    """The claimed records' jobs: each with its draft, its account's credentials (refreshed
    once per account), its workspace's settings and its author's preferences."""
    found = hub_settings(
        workspace_ids=(record.workspace_id for record in records),
        user_ids=(record.user_id for record in records),
    )
    sessions = sessions_open([record.account for record in records], concurrency=concurrency)
    jobs = []
    for record in records:
        session = sessions[record.account_id]
        jobs.append(
            Job(
                record,
                draft_of(record.post, record.provider),
                session.credentials,
                found.workspaces[record.workspace_id],
                found.users[record.user_id],
                claimed_at=claimed_at,
                error=session.error,  # the account's credentials could not be refreshed
                began=record.updated_at,  # written when it was claimed (or its lease renewed)
                continuing=record.status == RecordStatus.PUBLISHED,
                # What is out already (the post, for a record whose later parts wait), even
                # when no call is made (the account's credentials could not be renewed).
                parts=list(record.parts),
                published=published_post(record),
            )
        )
    _taken(jobs)
    return jobs


def _taken(jobs: list[Job]) -> None:
    """For the jobs whose attempt may look a part up (an outcome in doubt, or a last attempt
    whose create may fail after the work): the posts and parts other records of their
    accounts hold, published since the earliest of their windows (one query)."""
    asking = [job for job in jobs if job.record.outcome_unknown or job.final]
    if not asking:
        return
    since = min(job.window for job in asking) - LOOKUP_SKEW
    held: dict[Any, list[tuple[Any, str]]] = {}
    rows = ScheduledRecord.objects.filter(
        account_id__in={job.record.account_id for job in asking}, published_at__gte=since
    ).values_list("pk", "account_id", "provider_post_id", "parts")
    for pk, account_id, provider_post_id, parts in rows:
        ids = [provider_post_id, *(str(part.get("providerPostId") or "") for part in parts)]
        held.setdefault(account_id, []).extend((pk, found) for found in ids if found)
    for job in asking:
        job.taken = frozenset(
            found for pk, found in held.get(job.record.account_id, ()) if pk != job.record.pk
        )


def record_processing_continue(*, record_id: UUID | str, claim: UUID | str) -> str:
    """The next look at a video the platform is processing, from a task (`_hold` queued it):
    the same attempt goes on, if the record is still under that claim; its status after."""
    record = (
        ScheduledRecord.objects.select_related("post", "account", "account__app", "account__user")
        .filter(pk=record_id, claim=claim, status=RecordStatus.PUBLISHING)
        .first()
    )
    if record is None:
        return "gone"  # reclaimed after its lease, cancelled with its post, or done already
    (outcome,) = records_attempt([record], concurrency=1, continued=True)
    return outcome.status


def _settle_alone(job: Job) -> Outcome:
    """Settle one result in its own transaction, from the record as stored (a failed batch
    may have changed the object in memory)."""
    job.record.refresh_from_db(
        fields=[
            "status",
            "attempts",
            "history",
            "outcome_unknown",
            "claim",
            "next_attempt_at",
            "due_at",
            "url",
            "provider_post_id",
            "published_at",
            "error",
            "error_code",
            "lease_expires_at",
            "parts",
            "warnings",
            "processing",
        ]
    )
    try:
        with transaction.atomic():
            return jobs_settle([job])[0]
    except DatabaseError:
        logger.exception("Settling record %s failed: its lease will bring it back", job.record.pk)
        record = job.record
        return Outcome(
            record_id=str(record.pk),
            post_id=str(record.post_id),
            account_id=str(record.account_id),
            provider=record.provider,
            status=OutcomeStatus.LOST,
            success=False,
            error_code="settle_failed",
            error="The result could not be saved.",
        )
