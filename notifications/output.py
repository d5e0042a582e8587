"""A notification as `GET /api/notifications` shows it, written by hand for the live feed:
every notification the center writes (thousands in a burst's settle) is presented to the
event channel as `notification.created` (`present`, registered in NotificationsConfig.ready())
from the values written, no model instance made. It sits beside the API, above the services,
which hand the channel what they wrote and shape nothing; tests/notifications/test_shapes.py
holds it equal to the API's NotificationSerializer."""

from collections.abc import Mapping
from typing import Any

from core.times import iso
from notifications.events import Payload
from notifications.models import Notification
from notifications.services.center import NOTIFICATION_FIELDS


def notification_data(notification: Notification) -> dict[str, Any]:
    """The notification as `GET /api/notifications` shows it."""
    values = {name: getattr(notification, name) for name in NOTIFICATION_FIELDS}
    return notification_values_data(values)


def notification_values_data(row: Mapping[str, Any]) -> dict[str, Any]:
    """notification_data of a notification's values (NOTIFICATION_FIELDS)."""
    return {
        "id": str(row["id"]),
        "user_id": str(row["user_id"]),
        "title": row["title"],
        "message": row["message"],
        "category": row["category"],
        "type": row["type"],
        "read": row["read"],
        "metadata": row["metadata"],
        "created_at": iso(row["created_at"]),
    }


def notification_created_data(payload: Payload) -> dict[str, Any]:
    """The event channel's presenter of `notification.created`: the notification written."""
    return notification_values_data(payload.context["notification"])
