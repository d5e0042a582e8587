"""What a user does about an outcome (social.md section 12): retry a failed record, retry every
failed record a filter matches, resolve an unconfirmed one (published, retry, abandon).

Each action changes a record only from the state it applies to (a record in any other state is
409, and a repeat finds it changed: nothing is done twice), keeps the record's history (an
entry per action) and is seen like any other change: the live feed's `post` event, and the
domain event webhooks carry (`post.scheduled` for a record waiting again, `post.published` or
`post.failed` for a resolution), in the transaction of the change. A record retried after an
attempt that may have reached the platform keeps its outcome unknown: its next attempt looks
the post up first, so a retry never publishes twice.
"""

import uuid
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from core.errors import ValidationFailed
from notifications import events
from social.content import post_status_refresh, record_parts
from social.error_objects import HistoryOutcome, record_error
from social.errors import (
    AccountNotConnected,
    AccountNotFound,
    PostNotFound,
    RecordNotFailed,
    RecordNotFound,
    RecordNotUnconfirmed,
    TargetTaken,
)
from social.lifecycle import record_failure_event
from social.models import AccountStatus, Post, RecordStatus, ScheduledRecord, SocialAccount
from social.networks import NETWORKS
from social.outcomes import CATEGORIES
from social.planning import approval_gate

RETRY_LIMIT = 1000  # failed records one filtered retry takes (a repeat takes the rest)


def _locked_record(workspace_id: uuid.UUID, record_id: uuid.UUID) -> ScheduledRecord:
    record = (
        ScheduledRecord.objects.select_for_update(of=("self",))
        .select_related("account")
        .filter(pk=record_id, workspace_id=workspace_id)
        .first()
    )
    if record is None:
        raise RecordNotFound()
    return record


def _connected(record: ScheduledRecord) -> None:
    """A record is tried again only on a connected account (409: reconnect first)."""
    if record.account.status != AccountStatus.CONNECTED:
        raise AccountNotConnected(
            details={"accountId": str(record.account_id), "status": record.account.status}
        )


def _waiting_again(record: ScheduledRecord, *, now: datetime, entry: dict[str, Any]) -> None:
    """The record waits again, due now, with fresh attempts and its history kept; a recurring
    post's occurrence leaves its series (which went on without it: its next one waits). Saved
    in a savepoint: another record holding the same target is 409."""
    record.status = RecordStatus.SCHEDULED
    record.due_at = record.next_attempt_at = now
    record.attempts = 0
    record.error = record.error_code = ""
    record.series = None
    record.history = [*record.history, entry]
    try:
        with transaction.atomic():
            record.save(
                update_fields=[
                    "status",
                    "due_at",
                    "next_attempt_at",
                    "attempts",
                    "error",
                    "error_code",
                    "series",
                    "history",
                    "outcome_unknown",
                    "updated_at",
                ]
            )
    except IntegrityError:
        raise TargetTaken(details={"recordId": str(record.pk)}) from None


def _scheduled_again(records: Iterable[ScheduledRecord], *, now: datetime) -> None:
    """`post.scheduled` for each post whose records wait again (webhooks), and the posts'
    statuses (the live feed's `post` events)."""
    by_post: dict[uuid.UUID, list[ScheduledRecord]] = defaultdict(list)
    for record in records:
        by_post[record.post_id].append(record)
    for post_id, mine in by_post.items():
        post_status_refresh(post_id)
        approval_gate(post_id)  # waiting again as approved, or held until it is
        events.emit(
            user=mine[0].user_id,
            workspace=mine[0].workspace_id,
            payload=events.post_scheduled(
                post_id=str(post_id),
                platforms=list(dict.fromkeys(record.provider for record in mine)),
                account_ids=[str(record.account_id) for record in mine],
                scheduled_at=now,
            ),
        )


def record_retry(*, workspace_id: uuid.UUID, record_id: uuid.UUID) -> ScheduledRecord:
    """Put the workspace's failed record back to `Scheduled`, due now, its attempts reset (409
    unless `Failed`; 409 while its account is not connected: reconnect first)."""
    now = timezone.now()
    with transaction.atomic():
        record = _locked_record(workspace_id, record_id)
        if record.status != RecordStatus.FAILED:
            raise RecordNotFailed(details={"status": record.status})
        _connected(record)
        entry = {"at": now.isoformat(), "outcome": HistoryOutcome.RETRIED, "by": "user"}
        _waiting_again(record, now=now, entry=entry)
        _scheduled_again([record], now=now)
    return record


@dataclass(frozen=True, slots=True)
class Skipped:
    """A failed record a filtered retry left alone, and why: `account_not_connected`, or
    `already_scheduled` (another record holds its target)."""

    record_id: uuid.UUID
    reason: str


@dataclass(frozen=True, slots=True)
class Retried:
    retried: int
    skipped: list[Skipped]


def records_retry(
    *,
    workspace_id: uuid.UUID,
    account_id: uuid.UUID | None = None,
    category: str | None = None,
    post_id: uuid.UUID | None = None,
) -> Retried:
    """Retry every failed record of the workspace that matches (all of them without a filter): an
    account's, a post's, those whose error is of `category`. A record whose account is not
    connected, or whose target another record holds, is skipped and named."""
    if category is not None and category not in CATEGORIES:
        raise ValidationFailed(details={"category": [f"One of {', '.join(CATEGORIES)}."]})
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
    failed = ScheduledRecord.objects.filter(workspace_id=workspace_id, status=RecordStatus.FAILED)
    if account_id is not None:
        failed = failed.filter(account_id=account_id)
    if post_id is not None:
        failed = failed.filter(post_id=post_id)
    now = timezone.now()
    retried: list[ScheduledRecord] = []
    skipped: list[Skipped] = []
    with transaction.atomic():
        candidates = (
            failed.select_for_update(of=("self",))
            .select_related("account")
            .order_by("scheduled_time", "id")[:RETRY_LIMIT]
        )
        for record in candidates:
            error = record_error(record)
            if category is not None and (error or {}).get("category") != category:
                continue
            if record.account.status != AccountStatus.CONNECTED:
                skipped.append(Skipped(record.pk, "account_not_connected"))
                continue
            entry = {"at": now.isoformat(), "outcome": HistoryOutcome.RETRIED, "by": "user"}
            try:
                _waiting_again(record, now=now, entry=entry)
            except TargetTaken:
                skipped.append(Skipped(record.pk, "already_scheduled"))
                continue
            retried.append(record)
        _scheduled_again(retried, now=now)
    return Retried(retried=len(retried), skipped=skipped)


RESOLUTIONS = ("published", "retry", "abandon")


def record_resolve(
    *, workspace_id: uuid.UUID, user: User, record_id: uuid.UUID, action: str, url: str = ""
) -> ScheduledRecord:
    """Settle the workspace's `Unconfirmed` record (409 otherwise) as `user` says:
    `published` (they saw it: `Published` with that URL), `retry` (waiting again, due now:
    looked up once more, then created if absent), `abandon` (`Failed`; a later retry still
    looks it up first)."""
    if action not in RESOLUTIONS:
        raise ValidationFailed(details={"action": [f"One of {', '.join(RESOLUTIONS)}."]})
    if action == "published" and not url:
        raise ValidationFailed(details={"url": ["The post's URL on the platform is required."]})
    now = timezone.now()
    entry: dict[str, Any] = {
        "at": now.isoformat(),
        "outcome": HistoryOutcome.RESOLVED,
        "action": action,
        "by": "user",
    }
    with transaction.atomic():
        record = _locked_record(workspace_id, record_id)
        if record.status != RecordStatus.UNCONFIRMED:
            raise RecordNotUnconfirmed(details={"status": record.status})
        if action == "retry":
            _connected(record)
            # The next attempt looks it up before creating it, where the network can be
            # asked; one that cannot (`none`) sends it again, as the user chose.
            record.outcome_unknown = NETWORKS[record.provider].exactly_once != "none"
            _waiting_again(record, now=now, entry=entry)
            _scheduled_again([record], now=now)
            return record
        if action == "published":
            entry["url"] = url
            record.status = RecordStatus.PUBLISHED
            record.url = url[:2000]
            record.published_at = now
            record.outcome_unknown = False
            record.error = record.error_code = ""
        else:
            name = NETWORKS[record.provider].name
            record.status = RecordStatus.FAILED
            record.error = f"You marked the post as not published on {name}."
            record.error_code = "abandoned"
            # A later retry still looks it up first (sends it where nothing can be asked).
            record.outcome_unknown = NETWORKS[record.provider].exactly_once != "none"
        record.history = [*record.history, entry]
        record.save(
            update_fields=[
                "status",
                "url",
                "published_at",
                "outcome_unknown",
                "error",
                "error_code",
                "history",
                "updated_at",
            ]
        )
        post_status_refresh(record.post_id, providers_changed=False)
        # The user settled it: no notification of their own doing, the event for the others.
        if action == "published":
            payload: events.Payload = events.post_published(
                post_id=str(record.post_id),
                record_id=str(record.pk),
                account_id=str(record.account_id),
                platform=record.provider,
                post_url=record.url,
                provider_post_id=record.provider_post_id,
                published_at=now,
                parts=record_parts(record),
                context={"notify": False},
            )
        else:
            payload = record_failure_event(record, {"notify": False, "unconfirmed": False})
        events.emit(user=user, payload=payload, workspace=record.workspace_id)
    return record
