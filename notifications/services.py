"""Writes on notifications; notify() and notify_bulk() are the one way every app creates them."""

from collections.abc import Iterable
from typing import Any
from uuid import UUID

from accounts.models import User
from notifications.errors import NotificationNotFound
from notifications.models import CATEGORY_OF_TYPE, Notification, NotificationType
from notifications.selectors import notification_get

BATCH_SIZE = 1000  # one INSERT round trip per batch


def notify(
    *,
    user: User,
    type: NotificationType | str,
    title: str,
    message: str,
    metadata: dict[str, Any] | None = None,
) -> Notification:
    """Create one notification; the category follows from the type."""
    kind = NotificationType(type)
    return Notification.objects.create(
        user=user,
        type=kind,
        category=CATEGORY_OF_TYPE[kind],
        title=title[:200],
        message=message[:2000],
        metadata=metadata or {},
    )


def notify_bulk(
    *,
    user_ids: Iterable[UUID | str],
    type: NotificationType | str,
    title: str,
    message: str,
    metadata: dict[str, Any] | None = None,
    batch_size: int = BATCH_SIZE,
) -> int:
    """The same notification to many users, one INSERT per batch. Returns how many."""
    kind = NotificationType(type)
    created = 0
    batch: list[Notification] = []
    for user_id in user_ids:
        batch.append(
            Notification(
                user_id=user_id,
                type=kind,
                category=CATEGORY_OF_TYPE[kind],
                title=title[:200],
                message=message[:2000],
                metadata=metadata or {},
            )
        )
        if len(batch) >= batch_size:
            Notification.objects.bulk_create(batch)
            created += len(batch)
            batch = []
    if batch:
        Notification.objects.bulk_create(batch)
        created += len(batch)
    return created


def notification_mark_read(*, user: User, notification_id: UUID) -> Notification:
    """Mark one of the user's notifications read; marking a read one again changes nothing."""
    notification = notification_get(user=user, notification_id=notification_id)
    if not notification.read:
        # Conditional, so a concurrent read-all or a second click is not written twice.
        Notification.objects.filter(pk=notification.pk, read=False).update(read=True)
        notification.read = True
    return notification


def notifications_mark_all_read(*, user: User) -> int:
    """One UPDATE over the user's unread rows (the partial unread index finds them)."""
    return Notification.objects.filter(user=user, read=False).update(read=True)


def notification_delete(*, user: User, notification_id: UUID) -> None:
    """Delete one of the user's notifications; another user's id is a 404 and deletes nothing."""
    # Nothing references a notification, so this is a single DELETE ... WHERE id AND user_id.
    deleted, _ = Notification.objects.filter(pk=notification_id, user=user).delete()
    if not deleted:
        raise NotificationNotFound()


def system_alert_send(
    *,
    title: str,
    message: str,
    user_ids: Iterable[UUID | str] | None = None,
    batch_size: int = BATCH_SIZE,
) -> int:
    """A system_alert to the given users, or to every active user when `user_ids` is None.

    User ids are streamed in chunks and inserted one batch at a time, so memory and round
    trips grow with the number of batches, not of users. Returns how many were sent.
    """
    if user_ids is None:
        user_ids = (
            User.objects.filter(is_active=True)
            .order_by()
            .values_list("id", flat=True)
            .iterator(chunk_size=batch_size)
        )
    return notify_bulk(
        user_ids=user_ids,
        type=NotificationType.SYSTEM_ALERT,
        title=title,
        message=message,
        batch_size=batch_size,
    )
