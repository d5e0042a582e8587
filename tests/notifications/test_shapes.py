"""The live feed's notification (a hand-written fast path) says field for field what
`GET /api/notifications` renders (issue 23: one shape per representation)."""

import pytest

from accounts.services.users import user_create
from notifications.api.center import NotificationSerializer
from notifications.output import notification_data
from notifications.services.center import notify

pytestmark = pytest.mark.django_db


def test_a_notification_as_the_live_feed_and_the_list_show_it():
    ada = user_create(email="ada@example.com")
    notification = notify(
        user=ada, type="system_alert", title="Hello", message="A message",
        metadata={"key": "value", "n": 1},
    )  # fmt: skip
    notification.refresh_from_db()
    assert notification_data(notification) == dict(NotificationSerializer(notification).data)


def test_a_notification_on_the_live_feed_as_the_list_shows_it():
    """The center hands the channel the values it wrote; notifications.output presents them
    as NotificationSerializer renders the stored row."""
    from notifications.models import LiveEvent, LiveEventKind

    ada = user_create(email="ada@example.com")
    notification = notify(
        user=ada, type="system_alert", title="Hello", message="A message", metadata={"n": 1}
    )
    notification.refresh_from_db()
    event = LiveEvent.objects.filter(kind=LiveEventKind.NOTIFICATION).latest("id")
    assert event.data == dict(NotificationSerializer(notification).data)
