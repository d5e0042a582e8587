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
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone

from core import outbound, slots
from core.concurrency import bounded
from core.leases import Backoff, Lease
from core.tasks import enqueue_on_commit, task_named
from notifications import events
from notifications.models import NotificationType
from notifications.services.center import NotificationDraft, notify_many
from social.connections import account_mark_expired, credentials_keep, sessions_open
from social.content import (
    Draft,
    Part,
    draft_of,
    parts_missing,
    parts_of,
    posts_outcome_refresh,
    record_parts,
)
from social.lifecycle import record_failure_event
from social.models import RecordStatus, ScheduledRecord, SocialSettings
from social.networks import NETWORKS
from social.outcomes import attempt_error
from social.providers.base import LOOKUP_SKEW, Adapter, Attempt, Credentials, Published
from social.selectors import settings_for_users

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
DEFER_SECONDS = 1.0  # a record deferred for want of a platform slot waits 1-2 s (jitter)
SETTLE_BATCH = 100  # results written in one transaction at most
# Results are written together: once this many have ended, or the oldest of them has waited
# SETTLE_WITHIN_SECONDS, or no call is left running. A burst's results then settle in
# transactions of 64 (a dozen statements each, whatever their size), not of the few that
# ended in the same moment: fewer statements a record (docs/performance.md), and each
# statement keeps the timer waiting while the call threads share its interpreter.
SETTLE_AT_LEAST = 64
SETTLE_WITHIN_SECONDS = 0.2
SETTLE_GATHER_SECONDS = 0.01  # calls that end this close together are one group
SETTLE_TICK_SECONDS = 0.05  # how often results held back are looked at while calls run

# Records wait `Scheduled` (due at `due_at`), are claimed `Publishing` under a lease of
# SCHEDULER_LEASE_SECONDS, and are retried after SCHEDULER_RETRY_BASE_SECONDS, doubling.
RECORDS = Lease(
    ScheduledRecord,
    seconds=lambda: settings.SCHEDULER_LEASE_SECONDS,
    waiting=RecordStatus.SCHEDULED,
    leased=RecordStatus.PUBLISHING,
    backoff=Backoff(base=lambda: settings.SCHEDULER_RETRY_BASE_SECONDS),
)
# A record is Published from its first part on (social.md section 9); its later parts that
# failed wait for their retry with the record still Published, due at `next_attempt_at`
# (set only while parts wait). Such a record is claimed under a lease of its own, its status
# unchanged (the lease and the claim token alone hold it), and reaped the same way.
PARTS = Lease(
    ScheduledRecord,
    seconds=lambda: settings.SCHEDULER_LEASE_SECONDS,
    waiting=RecordStatus.PUBLISHED,
    backoff=RECORDS.backoff,
)
# The next look at a processing video (social/tasks.py imports this module, so it is named here).
PROCESSING_TASK = "social.tasks.record_processing_task"


@dataclass
class Job:
    """A claimed record and what its attempt needs, prepared in the calling thread."""

    record: ScheduledRecord
    draft: Draft
    credentials: Credentials
    preferences: SocialSettings
    claimed_at: datetime | None = None  # when the attempt began: its lateness is measured to it
    published: Published | None = None
    found: bool = False  # published by an earlier attempt, found by the lookup
    error: outbound.OutboundError | None = None
    deferred: bool = False  # no slot at the platform in time: not attempted, waits again
    parts: list[dict[str, Any]] = field(default_factory=list)  # published, this attempt's too
    complete: bool = False  # every part is published
    # A video's upload at the platform (social.md section 10): its state after this attempt,
    # and whether the platform is still processing it (the record then stays Publishing).
    processing: dict[str, Any] = field(default_factory=dict)
    pending: bool = False
    # When this attempt began (the record as claimed: nothing it creates is older), and the
    # posts other records of the account hold (never adopted by a lookup of this one).
    began: datetime = field(default_factory=timezone.now)
    taken: frozenset[str] = frozenset()
    checked: bool = False  # the part in doubt was looked up, and the platform answered
    # Published before this attempt (its post is out): the attempt is for its later parts.
    continuing: bool = False

    @property
    def final(self) -> bool:
        """Whether this attempt is the record's last: a failure ends it."""
        return self.record.attempts + 1 >= MAX_ATTEMPTS or not self.preferences.auto_retry

    @property
    def window(self) -> datetime:
        """When the record's first attempt began (nothing it made is older): its first
        attempt entry's `began`, the record's creation for an entry written before entries
        kept it, this attempt's start when none is before it."""
        for entry in self.record.history:
            if entry.get("attempt") is None:
                continue  # a deferral, a retry asked for, a resolution: no call was made
            began = entry.get("began")
            return datetime.fromisoformat(began) if began else self.record.created_at
        return self.began

    def attempt(self, index: int, *, unknown: bool) -> Attempt:
        return Attempt(key=part_key(self.record, index), since=self.record.created_at,
                       part=index, after=self.window, taken=self.taken,
                       unknown=unknown)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Outcome:
    record_id: str
    post_id: str
    account_id: str
    provider: str
    status: str
    success: bool
    url: str = ""
    provider_post_id: str = ""
    error_code: str = ""
    error: str = ""
    retry_at: datetime | None = None
    attempts: int = 0


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
    # transaction (SETTLE_AT_LEAST, SETTLE_WITHIN_SECONDS; each record's writes stay fenced
    # by its claim; a failed batch leaves its records to the lease, then the lookup).
    outcomes: dict[int, Outcome] = {}
    calls = bounded(_call, list(jobs), limit=concurrency, gather=SETTLE_GATHER_SECONDS,
                    more=more(refill) if refill is not None else None,
                    tick=SETTLE_TICK_SECONDS)  # fmt: skip
    held: list[int] = []  # ended, not yet written
    since = 0.0
    for ended in calls:
        if ended and not held:
            since = time.monotonic()
        held += [index for index, _ in ended]
        if held and (
            len(held) >= SETTLE_AT_LEAST or time.monotonic() - since >= SETTLE_WITHIN_SECONDS
        ):
            _settle_ended(jobs, held, outcomes)
            held = []
    _settle_ended(jobs, held, outcomes)  # the last ones: no call is left running
    return [outcomes[index] for index in range(len(jobs))]


def _settle_ended(jobs: list[Job], ended: list[int], outcomes: dict[int, Outcome]) -> None:
    """Write the results of these jobs (by index) into `outcomes`, SETTLE_BATCH to a
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
    for start in range(0, len(indexes), SETTLE_BATCH):
        batch = indexes[start : start + SETTLE_BATCH]
        try:
            with transaction.atomic():
                settled = _settle([jobs[index] for index in batch])
            outcomes.update(zip(batch, settled, strict=True))
        except DatabaseError:
            logger.warning("Settling %s results together failed; one by one", len(batch))
            for index in batch:
                outcomes[index] = _settle_alone(jobs[index])


def _jobs(
    records: list[ScheduledRecord], *, concurrency: int, claimed_at: datetime | None
) -> list[Job]:
    """The claimed records' jobs: each with its draft, its account's credentials (refreshed
    once per account) and its user's preferences."""
    preferences = settings_for_users(record.user_id for record in records)
    sessions = sessions_open([record.account for record in records], concurrency=concurrency)
    jobs = []
    for record in records:
        session = sessions[record.account_id]
        jobs.append(
            Job(
                record,
                draft_of(record.post, record.provider),
                session.credentials,
                preferences[record.user_id],
                claimed_at=claimed_at,
                error=session.error,  # the account's credentials could not be refreshed
                began=record.updated_at,  # written when it was claimed (or its lease renewed)
                continuing=record.status == RecordStatus.PUBLISHED,
                # What is out already (the post, for a record whose later parts wait), even
                # when no call is made (the account's credentials could not be renewed).
                parts=list(record.parts),
                published=_published_post(record),
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


def record_processing_continue(*, record_id: Any, claim: Any) -> str:
    """The next look at a video the platform is processing, from a task (`_hold` queued it):
    the same attempt goes on, if the record is still under that claim; its status after."""
    record = (
        ScheduledRecord.objects.select_related("post", "account", "account__app",
                                               "account__user", "user")
        .filter(pk=record_id, claim=claim, status=RecordStatus.PUBLISHING)
        .first()
    )  # fmt: skip
    if record is None:
        return "gone"  # reclaimed after its lease, cancelled with its post, or done already
    (outcome,) = records_attempt([record], concurrency=1, continued=True)
    return outcome.status


def _settle_alone(job: Job) -> Outcome:
    """Settle one result in its own transaction, from the record as stored (a failed batch
    may have changed the object in memory)."""
    job.record.refresh_from_db(
        fields=["status", "attempts", "history", "outcome_unknown", "claim", "next_attempt_at",
                "due_at", "url", "provider_post_id", "published_at", "error", "error_code",
                "lease_expires_at", "parts", "warnings", "processing"]
    )  # fmt: skip
    try:
        with transaction.atomic():
            return _settle([job])[0]
    except DatabaseError:
        logger.exception("Settling record %s failed: its lease will bring it back", job.record.pk)
        record = job.record
        return Outcome(
            record_id=str(record.pk), post_id=str(record.post_id),
            account_id=str(record.account_id), provider=record.provider, status="Lost",
            success=False, error_code="settle_failed", error="The result could not be saved.",
        )  # fmt: skip


def _call(job: Job) -> None:
    """The provider calls of one attempt, in one of the platform's slots shared by every worker
    process (SCHEDULER_PROVIDER_CONCURRENCY); no database (a worker thread)."""
    if job.error is not None:
        return
    with slots.slot(
        f"provider:{job.record.provider}",
        limit=settings.SCHEDULER_PROVIDER_CONCURRENCY,
        wait=settings.SCHEDULER_PROVIDER_WAIT_SECONDS,
        hold_seconds=settings.SCHEDULER_LEASE_SECONDS,
        keep=settings.SCHEDULER_CONCURRENCY,  # this process's calls at most
    ) as held:
        if held:
            _calls(job)
        else:
            job.deferred = True


def _calls(job: Job) -> None:
    """Publish the record's parts in order (the post, its thread's replies, its first
    comment), each once: a part an earlier attempt published is skipped, and the first part
    not yet published, when the last attempt may have delivered it (`outcome_unknown`), is
    looked up before it is created again. Stops at the first failure (`job.error`)."""
    record = job.record
    adapter = NETWORKS[record.provider].adapter
    done: dict[int, Published] = {int(part["index"]): _published_of(part) for part in record.parts}
    job.parts = list(record.parts)
    job.published = done.get(0)
    job.processing = dict(record.processing)
    unknown = record.outcome_unknown
    try:
        for part in parts_of(job.draft, record.provider):
            if part.index in done:
                continue
            attempt = job.attempt(part.index, unknown=unknown)
            published = None
            if unknown:
                unknown = False  # only the part in flight when the outcome was lost
                published = _part_lookup(adapter, job, part, attempt, done)
                job.checked = True
                job.found = job.found or (part.index == 0 and published is not None)
                if published is None and record.attempts >= MAX_ATTEMPTS:
                    # Its attempts are used up (the last one's worker died) and the platform
                    # says the part is not there: never a new create, and nothing in doubt.
                    job.error = outbound.TransientError(
                        "The last attempt stopped before its result was recorded, and "
                        "the platform does not have the post."
                    )
                    return
            if published is None:
                try:
                    published = _part_created(adapter, job, part, attempt, done)
                except outbound.TransientError as error:
                    if not (job.final and error.maybe_delivered):
                        raise
                    published = _asked(adapter, job, part, replace(attempt, unknown=True),
                                       done, error)  # fmt: skip
                if published is None:  # the platform is processing a video: a task looks again
                    job.pending = True
                    return
            done[part.index] = published
            if part.index == 0:
                job.published = published
            job.parts.append(_part_data(part, published))
        job.complete = True
    except outbound.HostBusy as busy:
        # The user's own server (a Mastodon instance, a PDS) had all its calls from this
        # process in flight: nothing was sent. As for a busy platform, the record waits its
        # turn with no attempt counted, unless this attempt already published or uploaded.
        if len(job.parts) == len(record.parts) and job.processing == record.processing:
            job.deferred = True
        else:
            job.error = busy
    except outbound.OutboundError as error:
        job.error = error
    except Exception as error:  # a bug or a provider answer we did not expect
        logger.exception(
            "Publishing record %s to %s failed unexpectedly", record.pk, record.provider
        )
        job.error = outbound.TransientError(
            f"Unexpected error ({type(error).__name__}).", maybe_delivered=True
        )


def _part_created(
    adapter: Adapter, job: Job, part: Part, attempt: Attempt, done: dict[int, Published]
) -> Published | None:
    """The part's create (a video post's upload and look first); None while the platform
    processes the video."""
    if part.kind == "post" and _has_video(part):
        return _video_post(adapter, job, part, attempt)
    return _part_create(adapter, job, part, attempt, done)


def _asked(
    adapter: Adapter,
    job: Job,
    part: Part,
    attempt: Attempt,
    done: dict[int, Published],
    error: outbound.TransientError,
) -> Published:
    """The record's last attempt failed after its create may have done the work (a 500, 502
    or 504, a timeout after sending, a lost answer): the platform is asked before the record
    ends (social.md section 5). Found: the part is published. Not there: the failure did
    nothing (raised, no longer in doubt). No answer: raised as it was, still in doubt."""
    try:
        found = _part_lookup(adapter, job, part, attempt, done)
    except outbound.OutboundError:
        raise error from None
    job.checked = True
    if found is None:
        error.maybe_delivered = False
        raise error
    job.found = job.found or part.index == 0
    return found


def _has_video(part: Part) -> bool:
    return any(media.video for media in part.content.media)


def _video_post(adapter: Adapter, job: Job, part: Part, attempt: Attempt) -> Published | None:
    """A post with a video: upload it once (an upload already made, its state kept on the
    record, is never made again), look once at the platform's processing, and publish when
    it is done; None while the platform is still processing (no thread waits for it)."""
    state = job.processing
    if not state:
        state = adapter.video_upload(job.credentials, part.content, attempt)
        state["since"] = timezone.now().isoformat()
        job.processing = state
    state["polls"] = int(state.get("polls", 0)) + 1
    if not adapter.video_ready(job.credentials, state):
        began = datetime.fromisoformat(str(state["since"]))
        if (timezone.now() - began).total_seconds() > settings.VIDEO_PROCESSING_TIMEOUT_SECONDS:
            minutes = settings.VIDEO_PROCESSING_TIMEOUT_SECONDS // 60
            raise outbound.PermanentError(
                f"{NETWORKS[job.record.provider].name} did not finish processing the video "
                f"within {minutes} minutes."
            )
        return None
    return adapter.publish(job.credentials, replace(part.content, video=state), attempt)


def poll_delay(state: dict[str, Any]) -> float:
    """Seconds until the next look at a video in processing (VIDEO_POLL_SECONDS, its last
    value repeated)."""
    delays = list(settings.VIDEO_POLL_SECONDS) or [5.0]
    return float(delays[min(int(state.get("polls", 1)) - 1, len(delays) - 1)])


def part_key(record: ScheduledRecord, index: int) -> str:
    """A part's own key across the record's attempts (Mastodon's Idempotency-Key, Bluesky's
    record key): the record's id for the post, with the part's index for the others."""
    return str(record.id) if index == 0 else f"{record.id}:{index}"


def _part_create(
    adapter: Adapter, job: Job, part: Part, attempt: Attempt, done: dict[int, Published]
) -> Published:
    if part.kind == "post":
        return adapter.publish(job.credentials, part.content, attempt)
    if part.kind == "reply":
        parent, root = done[part.index - 1], done[0]
        return adapter.reply(job.credentials, part.content, attempt, parent=parent, root=root)
    return adapter.comment(job.credentials, part.content.text, attempt, on=done[0])


def _part_lookup(
    adapter: Adapter, job: Job, part: Part, attempt: Attempt, done: dict[int, Published]
) -> Published | None:
    if part.kind == "post":
        return adapter.lookup(job.credentials, part.content, attempt)
    if part.kind == "reply":
        parent, root = done[part.index - 1], done[0]
        return adapter.reply_lookup(
            job.credentials, part.content, attempt, parent=parent, root=root
        )
    return adapter.comment_lookup(job.credentials, part.content.text, attempt, on=done[0])


def _part_data(part: Part, published: Published) -> dict[str, Any]:
    """A published part as the record stores it (`ref`: what a reply to it must name)."""
    data = {"index": part.index, "kind": part.kind,
            "providerPostId": published.provider_post_id, "url": published.url}  # fmt: skip
    if published.ref:
        data["ref"] = published.ref
    return data


def _published_post(record: ScheduledRecord) -> Published | None:
    """The record's post (its part 0), when it stores it: out already."""
    return next((_published_of(part) for part in record.parts if int(part["index"]) == 0), None)


def _published_of(part: dict[str, Any]) -> Published:
    return Published(provider_post_id=str(part.get("providerPostId") or ""),
                     url=str(part.get("url") or ""), ref=str(part.get("ref") or ""))  # fmt: skip


def _settle(jobs: list[Job]) -> list[Outcome]:
    """Write a batch of results in the caller's transaction: the records, in one statement,
    each fenced by its claim, then, for those still this run's, their posts' derived
    statuses, the notifications and the events, in a few statements for the whole batch."""
    held = {job.record.pk for job in jobs if job.pending and _hold(job)}
    results = [(job, _result(job)) for job in jobs if not job.pending]
    written = RECORDS.settle_each([(job.record, changes) for job, changes in results]) | held
    won = []
    for job, changes in results:
        mine = job.record.pk in written
        if mine:
            changes.update(lease_expires_at=None, claim=None)
            for name, value in changes.items():
                setattr(job.record, name, value)
        else:
            logger.warning("Record %s: result of a lost lease discarded", job.record.pk)
        won.append(mine)
    ended = [job for (job, _), mine in zip(results, won, strict=True) if mine]
    if ended:
        posts_outcome_refresh(job.record for job in ended)
        _announce(ended)
    return [_outcome(job, job.record.pk in written) for job in jobs]


def _hold(job: Job) -> bool:
    """A video still processing: the record stays Publishing under its claim, its lease
    renewed past the next look, which a task makes then (social.md section 10); whether the
    claim still held it. A worker that dies meanwhile leaves the lease to run out: the reaper
    and the next attempt resume from the kept state, never uploading again."""
    record, now = job.record, timezone.now()
    delay = poll_delay(job.processing)
    changes: dict[str, Any] = {"processing": job.processing, "updated_at": now}
    if not record.processing:  # the processing began with this attempt: the history says so
        began = {"attempt": record.attempts + 1, "at": now.isoformat(),
                 "began": job.began.isoformat(), "outcome": "processing"}  # fmt: skip
        changes["history"] = [*record.history, began]
    renewed = RECORDS.renew(record, seconds=delay + settings.SCHEDULER_LEASE_SECONDS, **changes)
    if not renewed:
        logger.warning("Record %s: result of a lost lease discarded", record.pk)
        return False
    for name, value in changes.items():
        setattr(record, name, value)
    enqueue_on_commit(
        task_named(PROCESSING_TASK),
        countdown=delay,
        record_id=str(record.pk),
        claim=str(record.claim),
    )
    return True


def _result(job: Job) -> dict[str, Any]:
    """The changes one attempt's result makes to its record (written by `_settle`, fenced by
    the record's claim)."""
    record, error, now = job.record, job.error, timezone.now()
    if job.deferred:
        return _deferred(job, now)
    attempts = record.attempts + 1
    entry: dict[str, Any] = {"attempt": attempts, "at": now.isoformat(),
                             "began": job.began.isoformat()}  # fmt: skip
    if job.claimed_at is not None:  # how long after its due time the attempt began
        # (later parts of a published record: their due time is `next_attempt_at`, `due_at`
        # having moved past the claim's lease)
        due = record.next_attempt_at if job.continuing and record.next_attempt_at else record.due_at
        entry["late"] = round(max(0.0, (job.claimed_at - due).total_seconds()), 3)
    changes: dict[str, Any] = {
        "attempts": attempts,
        "next_attempt_at": None,
        "updated_at": now,
    }
    if job.draft.thread or job.draft.first_comment or record.parts:
        changes["parts"] = job.parts  # a post alone is its record's one part: not stored
    if job.processing or record.processing:
        # Kept while the record waits for its next attempt (never uploaded again); gone
        # once it ends.
        changes["processing"] = job.processing
    if job.published is not None:
        changes.update(url=job.published.url[:2000],
                       provider_post_id=job.published.provider_post_id[:500])  # fmt: skip
    if job.published is not None and not job.continuing:
        changes["published_at"] = now  # out from its first part on: Published now
    if error is None and job.published is not None and job.complete:
        changes.update(
            status=RecordStatus.PUBLISHED,
            outcome_unknown=False,
            error="",
            error_code="",
            warnings=[],
        )
        entry.update(outcome="published", found=job.found, url=job.published.url)
    else:
        error = error or outbound.TransientError("No result.", maybe_delivered=True)
        # An unknown outcome stays unknown until a later part is published (the lookup or the
        # create of the part in doubt succeeded).
        progressed = len(job.parts) > len(record.parts)
        maybe = (
            record.outcome_unknown and not progressed and not job.checked
        ) or error.maybe_delivered
        retry = (
            isinstance(error, outbound.TransientError)
            and job.preferences.auto_retry
            and attempts < MAX_ATTEMPTS
        )
        if retry:
            due = now + RECORDS.backoff.delay(attempts, at_least=error.retry_after or 0)
            changes.update(
                # The post out, the record is Published while its later parts wait (PARTS
                # claims it when they are due); otherwise it waits, Scheduled.
                status=RecordStatus.SCHEDULED if job.published is None else RecordStatus.PUBLISHED,
                due_at=due,
                next_attempt_at=due,
                outcome_unknown=maybe,
                error_code="retry_scheduled",
            )
        elif job.published is not None:
            # The post is out; what follows it could not be published: Published, with
            # warnings naming what is missing.
            changes.update(
                status=RecordStatus.PUBLISHED,
                outcome_unknown=False,
                error_code="",
                warnings=_warnings(job, error),
            )
        elif isinstance(error, outbound.TransientError) and maybe:
            changes.update(status=RecordStatus.UNCONFIRMED, error_code="unconfirmed")
        else:
            code = (
                "account_expired"
                if isinstance(error, outbound.AuthenticationError)
                else "provider_rejected"
                if isinstance(error, outbound.PermanentError)
                else "provider_unavailable"
            )
            changes.update(status=RecordStatus.FAILED, error_code=code)
        changes["error"] = error.message[:2000]
        entry.update(outcome="error", error=error.message, status=error.status,
                     maybeDelivered=error.maybe_delivered)  # fmt: skip
        entry.update(attempt_error(record.provider, error))  # category, platform's answer
        if job.checked:  # the platform was asked about the part in doubt
            entry["found"] = job.found
        if job.published is not None:
            entry["parts"] = len(job.parts)
    if "processing" in changes and changes.get("status") != RecordStatus.SCHEDULED:
        changes["processing"] = {}
    changes["history"] = [*record.history, entry]
    if isinstance(error, outbound.AuthenticationError):
        account_mark_expired(account=record.account, reason=error.message)
    return changes


def _warnings(job: Job, error: outbound.OutboundError) -> list[dict[str, Any]]:
    return parts_missing(job.draft, job.record.provider, job.parts, reason=error.message)


def _deferred(job: Job, now: datetime) -> dict[str, Any]:
    """No slot at the platform in time: the record waits again, due in a moment, no attempt
    counted (the platform was never called); its history says so."""
    due = now + timedelta(seconds=DEFER_SECONDS * (1 + random.random()))  # noqa: S311
    return {
        "status": RecordStatus.PUBLISHED if job.continuing else RecordStatus.SCHEDULED,
        "due_at": due,
        "next_attempt_at": due,
        "error_code": "retry_scheduled",
        "updated_at": now,
        "history": [*job.record.history, {"at": now.isoformat(), "outcome": "deferred",
                                          "error": "The platform's slots were all busy."}],
    }  # fmt: skip


def _outcome(job: Job, won: bool) -> Outcome:
    record = job.record
    if job.pending and won:
        return Outcome(
            record_id=str(record.pk), post_id=str(record.post_id),
            account_id=str(record.account_id), provider=record.provider,
            status=RecordStatus.PUBLISHING, success=False, error_code="processing",
            error="The platform is processing the video: the post is published once it is done.",
            attempts=record.attempts,
        )  # fmt: skip
    return Outcome(
        record_id=str(record.pk),
        post_id=str(record.post_id),
        account_id=str(record.account_id),
        provider=record.provider,
        status=record.status if won else "Lost",
        success=won and record.status == RecordStatus.PUBLISHED,
        url=record.url,
        provider_post_id=record.provider_post_id,
        error_code=record.error_code if won else "lease_lost",
        error=record.error,
        retry_at=record.next_attempt_at,
        attempts=record.attempts,
    )


def _announce(jobs: list[Job]) -> None:
    """The events of the records that ended, in the transaction that ended them (the user's
    notifications follow from them: records_notify)."""
    emitted: list[tuple[Any, events.Payload]] = []
    missing: list[NotificationDraft] = []
    for job in jobs:
        record = job.record
        post_id = str(record.post_id)
        if job.continuing:
            # Announced when its post went out (post.published, once); parts that failed
            # for good since are told as that announcement would have told them.
            if (
                record.warnings
                and not record.next_attempt_at
                and job.preferences.wants("postFailed")
            ):
                missing.append(_missing_parts(record.user_id, post_id=post_id,
                                              record_id=str(record.pk),
                                              platform=record.provider,
                                              warnings=list(record.warnings)))  # fmt: skip
            continue
        if record.status == RecordStatus.PUBLISHED:
            context = {"notify": job.preferences.wants("postPublished"),
                       "notify_missing": job.preferences.wants("postFailed"),
                       "warnings": list(record.warnings),
                       "series": record.series_id is not None}  # fmt: skip
            emitted.append((record.user_id, events.post_published(
                post_id=post_id, record_id=str(record.pk), account_id=str(record.account_id),
                platform=record.provider, post_url=record.url,
                provider_post_id=record.provider_post_id,
                published_at=record.published_at or timezone.now(),
                parts=record_parts(record), context=context,
            )))  # fmt: skip
        elif record.status in (RecordStatus.FAILED, RecordStatus.UNCONFIRMED):
            context = {
                "notify": job.preferences.wants("postFailed"),
                "unconfirmed": record.status == RecordStatus.UNCONFIRMED,
                "series": record.series_id is not None,
            }
            # post.failed, or post.unconfirmed, with the error object
            emitted.append((record.user_id, record_failure_event(record, context)))
    events.emit_many(items=emitted, actor=events.SYSTEM)  # the platform's answer, reported
    notify_many(drafts=missing)


def _missing_parts(
    user_id: Any, *, post_id: str, record_id: str, platform: str, warnings: list[dict[str, Any]]
) -> NotificationDraft:
    """The notification of a published record with parts missing (its warnings)."""
    name = NETWORKS[platform].name
    missing = "; ".join(str(warning["message"]) for warning in warnings)
    return NotificationDraft(
        user_id=user_id, type=NotificationType.POST_FAILED,
        title=f"Published on {name}, but not all of it",
        message=f"Your post is live on {name}, but part of it is missing: {missing}",
        metadata={"postId": post_id, "platform": platform, "recordId": record_id,
                  "warnings": warnings},
    )  # fmt: skip


def records_notify(emitted: list[events.Event]) -> None:
    """The event channel's subscriber for `post.published` and `post.failed`: a notification
    for each, as the user's preferences say, in one INSERT for a batch of results."""
    drafts: list[NotificationDraft] = []
    for event in emitted:
        user_id, payload = event.user_id, event.payload
        data, context = payload.data, payload.context
        name = NETWORKS[data["platform"]].name
        warnings = context.get("warnings")
        if warnings and context.get("notify_missing"):
            drafts.append(_missing_parts(user_id, post_id=data["postId"],
                                         record_id=data["recordId"],
                                         platform=data["platform"],
                                         warnings=warnings))  # fmt: skip
        if not context["notify"]:
            continue
        if payload.event == "post.published":
            drafts.append(NotificationDraft(
                user_id=user_id, type=NotificationType.POST_PUBLISHED,
                title=f"Published on {name}",
                message=f"Your post is live on {name}: {data['postUrl']}".rstrip(": "),
                metadata={"postId": data["postId"], "platform": data["platform"],
                          "url": data["postUrl"], "recordId": data["recordId"]},
            ))  # fmt: skip
        else:
            message = (
                f"We could not confirm whether your post appeared on {name}: check your "
                "profile there before posting it again."
                if context["unconfirmed"]
                else f"Your post could not be published on {name}: {data['error']}"
            )
            drafts.append(NotificationDraft(
                user_id=user_id, type=NotificationType.POST_FAILED,
                title=f"Not published on {name}", message=message,
                metadata={"postId": data["postId"], "platform": data["platform"],
                          "error": data["error"], "attempts": data["retryCount"],
                          "recordId": data["recordId"], "unconfirmed": context["unconfirmed"]},
            ))  # fmt: skip
    notify_many(drafts=drafts)
