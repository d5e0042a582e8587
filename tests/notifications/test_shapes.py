"""The live feed's notification (a hand-written fast path) says field for field what
`GET /api/notifications` renders (issue 23: one shape per representation)."""

import pytest

from accounts.services.users import user_create
from notifications.api.center import NotificationSerializer
from notifications.services.center import notification_data, notify

pytestmark = pytest.mark.django_db


def test_a_notification_as_the_live_feed_and_the_list_show_it():
    ada = user_create(email="ada@example.com")
    notification = notify(
        user=ada, type="system_alert", title="Hello", message="A message",
        metadata={"key": "value", "n": 1},
    )  # fmt: skip
    notification.refresh_from_db()
    assert notification_data(notification) == dict(NotificationSerializer(notification).data)
