"""The migrations that move webhook endpoints and deliveries into workspaces (notifications 0019
to 0021), run forward and back on a populated database: each endpoint lands in its user's
personal workspace (made first for a user who had none), each delivery in its endpoint's;
nothing else of either changes either way; an erased account's endpoint, which has no
workspace to go to, is dropped with its deliveries."""

import hashlib
import importlib
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.models import F
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("notifications", "0018_event_actor"), ("accounts", "0010_personal_workspaces")]
AFTER = [("notifications", "0021_webhook_workspace_required")]
BACKFILL = importlib.import_module("accounts.migrations._workspace_backfill")
ENDPOINT_COLUMNS = ("pk", "user_id", "url", "events", "active", "created_at")
DELIVERY_COLUMNS = ("pk", "endpoint_id", "event_id", "event", "body", "status", "created_at")


def migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


@pytest.fixture
def before() -> Iterator[None]:
    migrate(BEFORE)
    try:
        yield
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


def checksum(apps: Any, model: str, columns: tuple[str, ...], leaving_out: Any) -> tuple[int, str]:
    """How many rows there are and a checksum of what each holds."""
    rows = list(
        apps.get_model("notifications", model)
        .objects.exclude(**leaving_out)
        .order_by("pk")
        .values_list(*columns)
    )
    return len(rows), hashlib.sha256("\n".join(map(repr, rows)).encode()).hexdigest()


def test_endpoints_and_deliveries_move_into_workspaces_and_back(before, monkeypatch):
    monkeypatch.setattr(BACKFILL, "BATCH_SIZE", 3)  # several batches, one partly filled
    apps = migrate(BEFORE)
    user_model = apps.get_model("accounts", "User")
    endpoint_model = apps.get_model("notifications", "WebhookEndpoint")
    delivery_model = apps.get_model("notifications", "WebhookDelivery")
    now = timezone.now()
    users = [user_model.objects.create(email=f"user{n}@example.com") for n in range(4)]
    with connection.schema_editor(atomic=False) as editor:  # as 0010 made them
        BACKFILL.personal_workspaces_ensure(apps, editor)
    late = user_model.objects.create(email="shell@example.com")  # no personal workspace yet
    erased = user_model.objects.create(email="erased@example.invalid", erased_at=now)
    endpoints = [
        endpoint_model.objects.create(
            user=user, url=f"https://hooks.example.com/{n}", events=["credits.depleted"]
        )
        for n, user in enumerate([*users, *users[:2], late, erased])
    ]
    for n, endpoint in enumerate(endpoints * 2):
        delivery_model.objects.create(
            endpoint=endpoint, event_id=uuid.uuid4(), event="credits.depleted", body=f"{n}"
        )
    gone = {"endpoint": {"user": erased}, "delivery": {"endpoint__user": erased}}
    endpoints_before = checksum(apps, "WebhookEndpoint", ENDPOINT_COLUMNS, gone["endpoint"])
    deliveries_before = checksum(apps, "WebhookDelivery", DELIVERY_COLUMNS, gone["delivery"])
    assert (endpoints_before[0], deliveries_before[0]) == (7, 14)

    apps = migrate(AFTER)

    endpoint_model = apps.get_model("notifications", "WebhookEndpoint")
    delivery_model = apps.get_model("notifications", "WebhookDelivery")
    assert not endpoint_model.objects.filter(user_id=erased.pk).exists()
    placed = list(endpoint_model.objects.values_list("user_id", "workspace__personal_user_id"))
    assert len(placed) == 7
    assert all(user == personal for user, personal in placed)
    assert delivery_model.objects.count() == 14
    assert not delivery_model.objects.exclude(workspace=F("endpoint__workspace")).exists()
    assert checksum(apps, "WebhookEndpoint", ENDPOINT_COLUMNS, {}) == endpoints_before
    assert checksum(apps, "WebhookDelivery", DELIVERY_COLUMNS, {}) == deliveries_before

    apps = migrate(BEFORE)
    assert checksum(apps, "WebhookEndpoint", ENDPOINT_COLUMNS, {}) == endpoints_before
    assert checksum(apps, "WebhookDelivery", DELIVERY_COLUMNS, {}) == deliveries_before
    with connection.cursor() as cursor:
        for table in ("notifications_webhookendpoint", "notifications_webhookdelivery"):
            columns = connection.introspection.get_table_description(cursor, table)
            assert "workspace_id" not in {column.name for column in columns}

    apps = migrate(AFTER)  # and forward once more
    assert checksum(apps, "WebhookEndpoint", ENDPOINT_COLUMNS, {}) == endpoints_before
    assert checksum(apps, "WebhookDelivery", DELIVERY_COLUMNS, {}) == deliveries_before
