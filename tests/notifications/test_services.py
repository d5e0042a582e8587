"""notify(), notify_bulk() and system_alert_send(): categories, the CHECK constraint, batching."""

import math
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

from accounts.models import User
from notifications.models import (
    Category,
    LiveEvent,
    Notification,
    NotificationCounter,
    NotificationType,
)
from notifications.services.center import notify, notify_bulk, system_alert_send
from tests.notifications.conftest import as_json

pytestmark = pytest.mark.django_db

CATEGORIES = {
    "system_alert": "System",
    "payment_success": "Billing",
    "plan_upgrade": "Billing",
    "payment_failed": "Billing",
    "ai_complete": "AI Generation",
    "ai_failed": "AI Generation",
    "post_published": "Social Hub",
    "post_failed": "Social Hub",
    "account_connected": "Social Hub",
    "account_connect_failed": "Social Hub",
    "token_expiring": "Social Hub",
    "post_at_risk": "Social Hub",
    # workspaces.md section 3: approvals and comments
    "approval_requested": "Social Hub",
    "approval_decided": "Social Hub",
    "post_commented": "Social Hub",
}


def _inserts(model: Any, rows: int) -> int:
    """INSERTs of `rows` rows: one on PostgreSQL (core.bulk: the rows as one document),
    as many as the backend's parameter limit needs elsewhere."""
    if connection.vendor == "postgresql":
        return 1
    fields = model._meta.concrete_fields
    per_insert = min(rows, connection.ops.bulk_batch_size(fields, [None] * rows))
    return math.ceil(rows / per_insert)


def statements_for(rows: int, batch_size: int) -> int:
    """Statements notify_bulk needs for `rows` distinct users in batches of `batch_size`: per
    batch, the notifications' INSERT, the counters (on PostgreSQL one INSERT ... ON CONFLICT
    adding to those that exist; elsewhere an INSERT of the missing rows and one UPDATE), and
    the live feed's events' INSERT."""
    full, rest = divmod(rows, batch_size)
    sizes = [batch_size] * full + ([rest] if rest else [])
    return sum(
        _inserts(Notification, size) + _counters(size) + _inserts(LiveEvent, size) for size in sizes
    )


def _counters(rows: int) -> int:
    if connection.vendor == "postgresql":
        return 1
    return _inserts(NotificationCounter, rows) + 1


def test_the_table_covers_every_type():
    assert set(CATEGORIES) == set(NotificationType.values)


@pytest.mark.parametrize(("kind", "category"), sorted(CATEGORIES.items()))
def test_every_type_lands_in_its_category(ada, ada_client, kind, category):
    notification = notify(user=ada, type=kind, title="T", message="M", metadata={"k": 1})
    notification.refresh_from_db()
    assert (notification.type, notification.category) == (kind, category)
    assert ada_client.get("/api/notifications").json()["data"] == [as_json(notification)]
    assert ada_client.get("/api/notifications").json()["data"][0]["category"] == category


@pytest.mark.parametrize(("kind", "category"), sorted(CATEGORIES.items()))
def test_notify_bulk_sets_the_category_too(ada, bob, kind, category):
    assert notify_bulk(user_ids=[ada.id, bob.id], type=kind, title="T", message="M") == 2
    assert set(Notification.objects.values_list("type", "category")) == {(kind, category)}


def test_an_unknown_type_is_refused_before_any_write(ada):
    with pytest.raises(ValueError, match="is not a valid NotificationType"):
        notify(user=ada, type="newsletter", title="T", message="M")
    assert Notification.objects.count() == 0


@pytest.mark.parametrize(
    ("kind", "wrong"),
    [
        ("system_alert", Category.BILLING),
        ("payment_failed", Category.SYSTEM),
        ("ai_complete", Category.SOCIAL_HUB),
        ("post_failed", Category.AI_GENERATION),
    ],
)
def test_the_database_refuses_a_category_that_does_not_match_the_type(ada, kind, wrong):
    with pytest.raises(IntegrityError), transaction.atomic():
        Notification.objects.create(user=ada, type=kind, category=wrong, title="T", message="M")
    assert Notification.objects.count() == 0


def test_notify_truncates_to_the_column_sizes(ada):
    notification = notify(user=ada, type="system_alert", title="t" * 300, message="m" * 3000)
    notification.refresh_from_db()
    assert (len(notification.title), len(notification.message)) == (200, 2000)
    assert notification.metadata == {}
    assert notification.read is False


def test_notify_bulk_is_one_insert_per_batch(db, django_assert_num_queries):
    users = User.objects.bulk_create(
        [User(email=f"u{i}@example.com") for i in range(250)], batch_size=500
    )
    with django_assert_num_queries(statements_for(250, 100)):
        sent = notify_bulk(
            user_ids=(u.id for u in users),
            type="plan_upgrade",
            title="T",
            message="M",
            batch_size=100,
        )
    assert sent == 250
    assert Notification.objects.filter(category="Billing").count() == 250


def test_system_alert_to_everyone_skips_inactive_users(ada, bob):
    User.objects.filter(pk=bob.pk).update(is_active=False)
    assert system_alert_send(title="Maintenance", message="Tonight at 22:00 UTC") == 1
    [alert] = Notification.objects.all()
    assert (alert.user_id, alert.type, alert.category) == (ada.id, "system_alert", "System")
    assert (alert.title, alert.message, alert.read) == (
        "Maintenance",
        "Tonight at 22:00 UTC",
        False,
    )


def test_system_alert_to_chosen_users(ada, bob):
    assert system_alert_send(title="T", message="M", user_ids=[bob.id]) == 1
    assert list(Notification.objects.values_list("user_id", flat=True)) == [bob.id]


def test_counters_follow_every_write(ada, bob):
    """After any mix of writes, the counters equal what counting the rows gives."""
    import random

    from notifications.selectors import notification_counts
    from notifications.services.center import (
        notification_delete,
        notification_mark_read,
        notifications_delete,
        notifications_mark_all_read,
    )

    rng = random.Random(7)
    for _ in range(200):
        user = rng.choice([ada, bob])
        mine = list(Notification.objects.filter(user=user).values_list("pk", flat=True))
        action = rng.choice(["notify", "bulk", "read", "read_all", "delete", "admin_delete"])
        if action == "notify":
            notify(user=user, type="ai_complete", title="T", message="M")
        elif action == "bulk":
            notify_bulk(
                user_ids=[ada.pk, bob.pk, ada.pk], type="system_alert", title="T", message="M"
            )
        elif action == "read" and mine:
            notification_mark_read(user=user, notification_id=rng.choice(mine))
        elif action == "read_all" and rng.random() < 0.2:
            notifications_mark_all_read(user=user)
        elif action == "delete" and mine:
            notification_delete(user=user, notification_id=rng.choice(mine))
        elif action == "admin_delete" and mine:
            notifications_delete(notification_ids=rng.sample(mine, min(3, len(mine))))
        for someone in (ada, bob):
            rows = Notification.objects.filter(user=someone)
            assert notification_counts(user=someone) == (
                rows.count(),
                rows.filter(read=False).count(),
            )


def test_counters_rebuild_recounts_rows_written_behind_the_services(ada, bob):
    from notifications.selectors import notification_counts
    from notifications.services.center import notification_counters_rebuild

    notify(user=ada, type="ai_complete", title="T", message="M")
    Notification.objects.create(
        user=bob, type="ai_complete", category="AI Generation", title="T", message="M"
    )
    Notification.objects.filter(user=ada).update(read=True)
    assert notification_counters_rebuild() == 2
    assert notification_counts(user=ada) == (1, 0)
    assert notification_counts(user=bob) == (1, 1)
