"""The one way notifications are created: every app calls notify() or notify_bulk()."""

from collections.abc import Iterable
from typing import Any
from uuid import UUID

from accounts.models import User
from notifications.models import CATEGORY_OF_TYPE, Notification, NotificationType

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
