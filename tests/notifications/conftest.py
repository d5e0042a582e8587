"""Notification fixtures: notifications made by notify(), and their representation."""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from accounts.models import User
from notifications.models import Notification, NotificationType
from notifications.services.center import notification_mark_read, notify

BASE_TIME = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

Seed = Callable[..., list[Notification]]


def as_json(notification: Notification) -> dict[str, Any]:
    """The API's representation of a notification, written out by hand."""
    return {
        "id": str(notification.id),
        "user_id": str(notification.user_id),
        "title": notification.title,
        "message": notification.message,
        "category": notification.category,
        "type": notification.type,
        "read": notification.read,
        "metadata": notification.metadata,
        "created_at": notification.created_at.isoformat().replace("+00:00", "Z"),
    }


@pytest.fixture
def seed() -> Seed:
    """`seed(user, count, read=..., type=..., start=...)`: made oldest first, a minute apart.

    Created through notify(), then dated, so that the order of the list is known exactly.
    """

    def make(
        user: User,
        count: int,
        *,
        read: bool = False,
        type: str = NotificationType.SYSTEM_ALERT,
        start: int = 0,
    ) -> list[Notification]:
        made = []
        for i in range(start, start + count):
            notification = notify(user=user, type=type, title=f"Title {i}", message=f"Message {i}")
            notification.created_at = BASE_TIME + timedelta(minutes=i)
            Notification.objects.filter(pk=notification.pk).update(
                created_at=notification.created_at
            )
            if read:
                notification_mark_read(user=user, notification_id=notification.pk)
                notification.read = True
            made.append(notification)
        return made

    return make
