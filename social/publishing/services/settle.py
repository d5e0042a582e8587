"""An attempt's results written: each record fenced by its claim, in short transactions of a
few statements per batch, then the posts' statuses, the notifications and the events."""

import logging
import random
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.utils import timezone

from core import outbound
from core.tasks import enqueue_on_commit, task_named
from notifications import events
from notifications.models import NotificationType
from notifications.services.center import NotificationDraft, notify_many
from social.conf import scheduler_config
from social.connections import account_mark_expired
from social.content import (
    parts_missing,
    posts_outcome_refresh,
    record_parts,
)
from social.error_objects import HistoryOutcome
from social.lifecycle import record_failure_event
from social.models import RecordStatus
from social.networks import NETWORKS
from social.outcomes import attempt_error
from social.publishing.services.calls import poll_delay
from social.publishing.services.job import (
    PROCESSING_TASK,
    RECORDS,
    Job,
    Outcome,
    outcome_of,
)

logger = logging.getLogger(__name__)

# A platform's quota used up without saying when it frees: it is read again this much later.
QUOTA_RECHECK = timedelta(hours=1)


def jobs_settle(jobs: list[Job]) -> list[Outcome]:
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
    return [outcome_of(job, won=job.record.pk in written) for job in jobs]


def _hold(job: Job) -> bool:
    """A video still processing: the record stays Publishing under its claim, its lease
    renewed past the next look, which a task makes then (social.md section 10); whether the
    claim still held it. A worker that dies meanwhile leaves the lease to run out: the reaper
    and the next attempt resume from the kept state, never uploading again."""
    record, now = job.record, timezone.now()
    delay = poll_delay(job.processing)
    changes: dict[str, Any] = {"processing": job.processing, "updated_at": now}
    if not record.processing:  # the processing began with this attempt: the history says so
        began = {
            "attempt": record.attempts + 1,
            "at": now.isoformat(),
            "began": job.began.isoformat(),
            "outcome": HistoryOutcome.PROCESSING,
        }
        changes["history"] = [*record.history, began]
    renewed = RECORDS.renew(record, seconds=delay + scheduler_config().lease_seconds, **changes)
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
    """The changes one attempt's result makes to its record (written by `jobs_settle`, fenced by
    the record's claim)."""
    record, error, now = job.record, job.error, timezone.now()
    if job.deferred:
        return _deferred(job, now)
    attempts = record.attempts + 1
    entry: dict[str, Any] = {
        "attempt": attempts,
        "at": now.isoformat(),
        "began": job.began.isoformat(),
    }
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
    if job.kept() or record.processing:
        # Kept while the record waits for its next attempt (never uploaded again, a
        # container never made again); gone once it ends.
        changes["processing"] = job.kept()
    if job.published is not None:
        changes.update(
            url=job.published.url[:2000], provider_post_id=job.published.provider_post_id[:500]
        )
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
        entry.update(outcome=HistoryOutcome.PUBLISHED, found=job.found, url=job.published.url)
    else:
        error = error or outbound.TransientError("No result.", maybe_delivered=True)
        # An unknown outcome stays unknown until a later part is published (the lookup or the
        # create of the part in doubt succeeded).
        progressed = len(job.parts) > len(record.parts)
        maybe = (
            record.outcome_unknown and not progressed and not job.checked
        ) or error.maybe_delivered
        # A network that can neither take a key nor be asked (`none`: Discord) never sends
        # a create that may have landed again: Unconfirmed at once, the user resolves it.
        unaskable = maybe and NETWORKS[record.provider].exactly_once == "none"
        retry = (
            isinstance(error, outbound.TransientError)
            and job.settings.auto_retry
            and attempts < scheduler_config().max_attempts
            and not unaskable
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
        entry.update(
            outcome=HistoryOutcome.ERROR,
            error=error.message,
            status=error.status,
            maybeDelivered=error.maybe_delivered,
        )
        entry.update(attempt_error(record.provider, error))  # category, platform's answer
        if job.checked:  # the platform was asked about the part in doubt
            entry["found"] = job.found
        if job.published is not None:
            entry["parts"] = len(job.parts)
    if "processing" in changes and not changes.get("next_attempt_at"):
        changes["processing"] = {}  # kept only while a part waits for its retry
    changes["history"] = [*record.history, entry]
    if isinstance(error, outbound.AuthenticationError):
        account_mark_expired(account=record.account, reason=error.message)
    return changes


def _warnings(job: Job, error: outbound.OutboundError) -> list[dict[str, Any]]:
    return parts_missing(job.draft, job.record.provider, job.parts, reason=error.message)


def _deferred(job: Job, now: datetime) -> dict[str, Any]:
    """No slot at the platform in time, or the platform's own quota for the account used up
    (`job.quota`, read before any create): the record waits again, no attempt counted (nothing
    was sent); its history says so."""
    wait = scheduler_config().defer_seconds * (1 + random.random())  # noqa: S311 (jitter)
    due = now + timedelta(seconds=wait)
    entry: dict[str, Any] = {"at": now.isoformat(), "outcome": HistoryOutcome.DEFERRED}
    changes: dict[str, Any] = {"error_code": "retry_scheduled"}
    if job.quota is not None:  # as a daily cap defers (social.planning caps)
        due = job.quota.until or now + QUOTA_RECHECK
        entry.update(until=due.isoformat(), error=job.quota.message, category="account_limit")
        changes = {"error_code": "daily_cap_reached", "error": job.quota.message[:2000]}
        if job.kept() != job.record.processing:  # made by this attempt: never made again
            changes["processing"] = job.kept()
    else:
        entry["error"] = "The platform's slots were all busy."
    return {
        **changes,
        "status": RecordStatus.PUBLISHED if job.continuing else RecordStatus.SCHEDULED,
        "due_at": due,
        "next_attempt_at": due,
        "updated_at": now,
        "history": [*job.record.history, entry],
    }


def _announce(jobs: list[Job]) -> None:
    """The events of the records that ended, in the transaction that ended them (the user's
    notifications follow from them: records_notify)."""
    emitted: list[events.Emitted] = []
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
                missing.append(
                    _missing_parts(
                        record.user_id,
                        post_id=post_id,
                        record_id=str(record.pk),
                        platform=record.provider,
                        warnings=list(record.warnings),
                    )
                )
            continue
        if record.status == RecordStatus.PUBLISHED:
            context = {
                "notify": job.preferences.wants("postPublished"),
                "notify_missing": job.preferences.wants("postFailed"),
                "warnings": list(record.warnings),
                "series": record.series_id is not None,
            }
            emitted.append(
                (
                    record.user_id,
                    events.post_published(
                        post_id=post_id,
                        record_id=str(record.pk),
                        account_id=str(record.account_id),
                        platform=record.provider,
                        post_url=record.url,
                        provider_post_id=record.provider_post_id,
                        published_at=record.published_at or timezone.now(),
                        parts=record_parts(record),
                        context=context,
                    ),
                    record.workspace_id,
                )
            )
        elif record.status in (RecordStatus.FAILED, RecordStatus.UNCONFIRMED):
            context = {
                "notify": job.preferences.wants("postFailed"),
                "unconfirmed": record.status == RecordStatus.UNCONFIRMED,
                "series": record.series_id is not None,
            }
            # post.failed, or post.unconfirmed, with the error object
            emitted.append(
                (record.user_id, record_failure_event(record, context), record.workspace_id)
            )
    events.emit_many(items=emitted, actor=events.SYSTEM)  # the platform's answer, reported
    notify_many(drafts=missing)


def _missing_parts(
    user_id: UUID | str,
    *,
    post_id: str,
    record_id: str,
    platform: str,
    warnings: list[dict[str, Any]],
) -> NotificationDraft:
    """The notification of a published record with parts missing (its warnings)."""
    name = NETWORKS[platform].name
    missing = "; ".join(str(warning["message"]) for warning in warnings)
    return NotificationDraft(
        user_id=user_id,
        type=NotificationType.POST_FAILED,
        title=f"Published on {name}, but not all of it",
        message=f"Your post is live on {name}, but part of it is missing: {missing}",
        metadata={
            "postId": post_id,
            "platform": platform,
            "recordId": record_id,
            "warnings": warnings,
        },
    )


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
            drafts.append(
                _missing_parts(
                    user_id,
                    post_id=data["postId"],
                    record_id=data["recordId"],
                    platform=data["platform"],
                    warnings=warnings,
                )
            )
        if not context["notify"]:
            continue
        if payload.event == "post.published":
            drafts.append(
                NotificationDraft(
                    user_id=user_id,
                    type=NotificationType.POST_PUBLISHED,
                    title=f"Published on {name}",
                    message=f"Your post is live on {name}: {data['postUrl']}".rstrip(": "),
                    metadata={
                        "postId": data["postId"],
                        "platform": data["platform"],
                        "url": data["postUrl"],
                        "recordId": data["recordId"],
                    },
                )
            )
        else:
            message = (
                f"We could not confirm whether your post appeared on {name}: check your "
                "profile there before posting it again."
                if context["unconfirmed"]
                else f"Your post could not be published on {name}: {data['error']}"
            )
            drafts.append(
                NotificationDraft(
                    user_id=user_id,
                    type=NotificationType.POST_FAILED,
                    title=f"Not published on {name}",
                    message=message,
                    metadata={
                        "postId": data["postId"],
                        "platform": data["platform"],
                        "error": data["error"],
                        "attempts": data["retryCount"],
                        "recordId": data["recordId"],
                        "unconfirmed": context["unconfirmed"],
                    },
                )
            )
    notify_many(drafts=drafts)
