"""The social hub's lifecycle events (social.md section 12): posts created, updated, deleted and
partially published, records moved, cancelled, failed or unconfirmed, accounts connected,
reconnected, expiring and expired. Each is built from the rows it describes and emitted in the
transaction of the change, through the one event channel (notifications/events.py): the
outbox carries it to webhooks, the live feed to the user's streams, `GET /api/events` replays
it. The writers call these; they write nothing else."""

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any
from uuid import UUID

from notifications import events
from social.error_objects import record_error
from social.models import (
    AccountHealth,
    Post,
    PostStatus,
    RecordStatus,
    ScheduledRecord,
    SocialAccount,
)


def record_failure_event(record: ScheduledRecord, context: dict[str, Any]) -> events.Public:
    """`post.failed`, or `post.unconfirmed` for a record whose outcome is unknown, with the
    error object (what happened, what the user can do)."""
    return events.post_failed(
        post_id=str(record.post_id),
        record_id=str(record.pk),
        account_id=str(record.account_id),
        platform=record.provider,
        error=record.error,
        retry_count=record.attempts,
        error_detail=record_error(record),
        context=context,
        unconfirmed=record.status == RecordStatus.UNCONFIRMED,
    )


def post_saved_emit(post: Post, *, created: bool) -> None:
    events.emit(
        user=post.user_id,
        workspace=post.workspace_id,
        payload=events.post_saved(
            created=created,
            post_id=str(post.pk),
            title=post.title,
            status=post.status,
            platforms=list(post.platforms),
            campaign_id=str(post.campaign_id) if post.campaign_id else None,
            updated_at=post.updated_at,
        ),
    )


def post_deleted_emit(post: Post, record_ids: Iterable[UUID]) -> None:
    events.emit(
        user=post.user_id,
        workspace=post.workspace_id,
        payload=events.post_deleted(
            post_id=str(post.pk), record_ids=[str(record_id) for record_id in record_ids]
        ),
    )


def posts_partially_published(
    post_ids: Iterable[UUID], *, actor: events.Actor | None = None
) -> None:
    """`post.partially_published` for each of these posts not already PartiallyPublished
    (called before their new status is written): what was published, what was not. `actor`:
    the user by default, the system for a batch of the platforms' answers."""
    fresh = {
        pk: (user_id, workspace_id)
        for pk, user_id, workspace_id in Post.objects.filter(pk__in=list(post_ids))
        .exclude(status=PostStatus.PARTIALLY_PUBLISHED)
        .values_list("pk", "user_id", "workspace_id")
    }
    if not fresh:
        return
    published: dict[UUID, list[dict[str, Any]]] = {pk: [] for pk in fresh}
    missing: dict[UUID, list[dict[str, Any]]] = {pk: [] for pk in fresh}
    for record in ScheduledRecord.objects.filter(post_id__in=fresh).exclude(
        status=RecordStatus.CANCELLED
    ):
        common = {
            "recordId": str(record.pk),
            "accountId": str(record.account_id),
            "platform": record.provider,
        }
        if record.status == RecordStatus.PUBLISHED:
            published[record.post_id].append({**common, "postUrl": record.url})
        else:
            missing[record.post_id].append(
                {**common, "status": record.status, "error": record_error(record)}
            )
    events.emit_many(
        items=[
            (
                user_id,
                events.post_partially_published(
                    post_id=str(pk), published=published[pk], not_published=missing[pk]
                ),
                workspace_id,
            )
            for pk, (user_id, workspace_id) in fresh.items()
        ],
        actor=actor,
    )


def record_moved_emit(record: ScheduledRecord, *, previous: datetime | None) -> None:
    events.emit(
        user=record.user_id,
        workspace=record.workspace_id,
        payload=events.schedule_moved(
            record_id=str(record.pk),
            post_id=str(record.post_id),
            account_id=str(record.account_id),
            platform=record.provider,
            scheduled_at=record.scheduled_time,
            previous=previous,
            queued=record.queued,
        ),
    )


def records_moving(moves: Mapping[Any, datetime]) -> None:
    """`schedule.moved` for waiting queued records about to get the times of `moves` (record
    id -> new time; read before they are written, for their previous times)."""
    if not moves:
        return
    to = {str(pk): when for pk, when in moves.items()}
    rows = ScheduledRecord.objects.filter(pk__in=list(moves)).values_list(
        "pk", "user_id", "workspace_id", "post_id", "account_id", "provider", "scheduled_time"
    )
    events.emit_many(
        items=[
            (
                user_id,
                events.schedule_moved(
                    record_id=str(pk),
                    post_id=str(post_id),
                    account_id=str(account_id),
                    platform=provider,
                    scheduled_at=to[str(pk)],
                    previous=previous,
                    queued=True,
                ),
                workspace_id,
            )
            for pk, user_id, workspace_id, post_id, account_id, provider, previous in rows
        ]
    )


def records_cancelled_emit(records: Iterable[ScheduledRecord], *, reason: str) -> None:
    """`schedule.cancelled` for each record (`reason`: cancelled, series_ended,
    account_disconnected)."""
    events.emit_many(
        items=[
            (
                record.user_id,
                events.schedule_cancelled(
                    record_id=str(record.pk),
                    post_id=str(record.post_id),
                    account_id=str(record.account_id),
                    platform=record.provider,
                    scheduled_at=record.scheduled_time,
                    reason=reason,
                ),
                record.workspace_id,
            )
            for record in records
        ]
    )


def account_connected_emit(account: SocialAccount, *, reconnected: bool) -> None:
    """`account.connected` or `account.reconnected`. A reconnected account's health is
    checked afresh, and the problems announced about it may be announced again."""
    if reconnected:
        AccountHealth.objects.filter(account=account).delete()
    events.emit(
        user=account.user_id,
        workspace=account.workspace_id,
        payload=events.account_connected(
            account_id=str(account.pk),
            platform=account.provider,
            username=account.username,
            reconnected=reconnected,
        ),
    )


def account_expired_emit(account: SocialAccount, *, reason: str) -> None:
    """The platform refused the account's credentials, or their time ran out: the system's."""
    events.emit(
        user=account.user_id,
        workspace=account.workspace_id,
        actor=events.SYSTEM,
        payload=events.account_expired(
            account_id=str(account.pk),
            platform=account.provider,
            username=account.username,
            reason=reason,
        ),
    )


def account_expiring_emit(account: SocialAccount, *, days: int) -> None:
    """The daily upkeep's warning: the system's."""
    events.emit(
        user=account.user_id,
        workspace=account.workspace_id,
        actor=events.SYSTEM,
        payload=events.account_expiring(
            account_id=str(account.pk),
            platform=account.provider,
            username=account.username,
            expires_at=account.expires_at,
            days=days,
        ),
    )
