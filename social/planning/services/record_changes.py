"""Scheduled records after they are placed (social.md section 4): a waiting one moved or
cancelled (a series ended with it), a failed one retried by an operator, and an account's
records when it is disconnected."""

from typing import Any
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from social.content import draft_of, parts_missing, post_status_refresh
from social.error_objects import HistoryOutcome
from social.errors import AccountExpiresBefore, RecordNotFound, RecordNotScheduled
from social.lifecycle import record_moved_emit, records_cancelled_emit
from social.models import WAITING_STATUSES, RecordStatus, ScheduledRecord, SocialAccount
from social.planning.services.approvals import approval_gate
from social.planning.services.records import record_time_set, resolve_time
from social.planning.services.recurrence import series_continue, series_end


def _waiting_record(workspace_id: UUID, record_id: UUID) -> ScheduledRecord:
    record = (
        ScheduledRecord.objects.select_for_update()
        .filter(pk=record_id, workspace_id=workspace_id)
        .select_related("account")
        .first()
    )
    if record is None:
        raise RecordNotFound()
    if record.status not in WAITING_STATUSES:
        raise RecordNotScheduled(details={"status": record.status})
    return record


def record_move(
    *, workspace_id: UUID, record_id: UUID, scheduled_time: str, zone_name: str | None
) -> ScheduledRecord:
    """Move the workspace's waiting record to `scheduled_time` (read in `zone_name` when it
    has no offset)."""
    when = resolve_time(
        scheduled_time, zone_name=zone_name, workspace_id=workspace_id, field="scheduledTime"
    )
    with transaction.atomic():
        record = _waiting_record(workspace_id, record_id)
        expires = record.account.expires_at
        if expires is not None and expires < when:
            raise AccountExpiresBefore(details={"accountIds": [str(record.account_id)]})
        previous = record.scheduled_time
        record_time_set(record, when)
        record.queued = False  # a time of its own: its queue slot is free again
        record.save(
            update_fields=["scheduled_time", "due_at", "next_attempt_at", "queued", "updated_at"]
        )
        record_moved_emit(record, previous=previous)
        approval_gate(record.post_id)
    return record


def record_cancel(*, workspace_id: UUID, record_id: UUID, series: bool = False) -> ScheduledRecord:
    """Cancel the workspace's waiting record (a queued one frees its slot; an occurrence of a
    series is skipped: the next one is created). With `series`, a record of a recurring post
    ends its series: its waiting occurrences are cancelled and no other comes."""
    with transaction.atomic():
        if series:
            found = ScheduledRecord.objects.filter(pk=record_id, workspace_id=workspace_id).first()
            if found is None:
                raise RecordNotFound()
            if found.series_id is not None:
                series_end(series_id=found.series_id)
                waiting = found.status in WAITING_STATUSES
                found.refresh_from_db()
                if waiting and found.status == RecordStatus.CANCELLED:
                    records_cancelled_emit([found], reason="series_ended")
                return found
        record = _waiting_record(workspace_id, record_id)
        record.status = RecordStatus.CANCELLED
        record.save(update_fields=["status", "updated_at"])
        records_cancelled_emit([record], reason="cancelled")
        post_status_refresh(record.post_id)
        approval_gate(record.post_id)
        if record.series_id is not None:
            series_continue([record])
    return record


def records_parts_end(account: SocialAccount, *, reason: str) -> int:
    """The account's published records whose later parts wait (and are not being attempted
    now): no further attempt, their warnings naming what is missing, with `reason`; how many
    (in the caller's transaction: a disconnect)."""
    waiting = ScheduledRecord.objects.filter(
        account=account,
        status=RecordStatus.PUBLISHED,
        next_attempt_at__isnull=False,
        claim__isnull=True,
    ).select_related("post")
    ended = 0
    for record in waiting:
        warnings = parts_missing(
            draft_of(record.post, record.provider),
            record.provider,
            list(record.parts),
            reason=reason,
        )
        ended += ScheduledRecord.objects.filter(pk=record.pk, claim__isnull=True).update(
            next_attempt_at=None,
            outcome_unknown=False,
            error_code="",
            error=reason,
            warnings=warnings,
            updated_at=timezone.now(),
        )
    return ended


def account_records_cancel(account: SocialAccount) -> int:
    """A disconnected account's waiting records (inside the disconnect's transaction); the
    later parts its published records still wait to send end too (social.md section 9)."""
    records_parts_end(account, reason="the account was disconnected.")
    waiting = ScheduledRecord.objects.filter(account=account, status__in=WAITING_STATUSES)
    records = list(waiting)
    post_ids = {record.post_id for record in records}
    records_cancelled_emit(records, reason="account_disconnected")
    cancelled = waiting.update(status=RecordStatus.CANCELLED, updated_at=timezone.now())
    for post_id in post_ids:
        post_status_refresh(post_id)
    return cancelled


def record_retry(*, record: ScheduledRecord) -> bool:
    """An operator's retry of a failed record: waiting again, due now, with fresh attempts
    (its history is kept). Whether it changed."""
    now = timezone.now()
    entry: dict[str, Any] = {"at": now.isoformat(), "outcome": HistoryOutcome.RETRY_REQUESTED}
    with transaction.atomic():
        changed = ScheduledRecord.objects.filter(pk=record.pk, status=RecordStatus.FAILED).update(
            status=RecordStatus.SCHEDULED,
            due_at=now,
            next_attempt_at=now,
            attempts=0,
            error="",
            error_code="",
            # A series went on without it (its next occurrence waits): retried on its own.
            series=None,
            history=[*record.history, entry],
            updated_at=now,
        )
        if changed:
            post_status_refresh(record.post_id)
            approval_gate(record.post_id)  # retried as approved, or held again
    return bool(changed)
