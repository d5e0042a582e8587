"""The migrations that give events their workspace (notifications 0022 and 0023), run forward
and back on a populated database: every outbox event lands in its user's personal workspace
(made first for a user who had none), so do the live feed's domain events and post changes,
while its notifications, balances and revocations stay their user's alone; nothing else of
either table changes either way."""

import hashlib
import importlib
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("notifications", "0021_webhook_workspace_required")]
AFTER = [("notifications", "0023_event_workspace_backfill")]
BACKFILL = importlib.import_module("accounts.migrations._workspace_backfill")
OUTBOX_COLUMNS = ("pk", "id", "event", "user_id", "data", "created_at", "live_id", "actor")
LIVE_COLUMNS = ("pk", "user_id", "kind", "data", "created_at")


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


def checksum(apps: Any, model: str, columns: tuple[str, ...]) -> tuple[int, str]:
    """How many rows there are and a checksum of what each holds."""
    rows = list(apps.get_model("notifications", model).objects.order_by("pk").values_list(*columns))
    return len(rows), hashlib.sha256("\n".join(map(repr, rows)).encode()).hexdigest()


def test_events_move_into_their_users_personal_workspaces_and_back(before, monkeypatch):
    monkeypatch.setattr(BACKFILL, "BATCH_SIZE", 3)  # several batches, one partly filled
    apps = migrate(BEFORE)
    user_model = apps.get_model("accounts", "User")
    outbox_model = apps.get_model("notifications", "OutboxEvent")
    live_model = apps.get_model("notifications", "LiveEvent")
    users = [user_model.objects.create(email=f"user{n}@example.com") for n in range(3)]
    with connection.schema_editor(atomic=False) as editor:  # as 0010 made them
        BACKFILL.personal_workspaces_ensure(apps, editor)
    late = user_model.objects.create(email="shell@example.com")  # no personal workspace yet
    now = timezone.now()
    for n, user in enumerate([*users, *users, late]):
        live = live_model.objects.create(user=user, kind="event", data={"n": n}, created_at=now)
        outbox_model.objects.create(
            id=uuid.uuid4(),
            event="post.created",
            user=user,
            data={"n": n},
            live_id=live.pk,
            actor={"type": "user", "id": str(user.pk)},
        )
        for kind in ("post", "credits", "notification", "revoked"):
            live_model.objects.create(user=user, kind=kind, data={"n": n}, created_at=now)
    outbox_before = checksum(apps, "OutboxEvent", OUTBOX_COLUMNS)
    live_before = checksum(apps, "LiveEvent", LIVE_COLUMNS)
    assert (outbox_before[0], live_before[0]) == (7, 35)

    apps = migrate(AFTER)

    outbox_model = apps.get_model("notifications", "OutboxEvent")
    live_model = apps.get_model("notifications", "LiveEvent")
    placed = list(outbox_model.objects.values_list("user_id", "workspace__personal_user_id"))
    assert len(placed) == 7
    assert all(user == personal for user, personal in placed)
    shared = live_model.objects.filter(kind__in=("event", "post"))
    assert shared.count() == 14
    assert all(
        user == personal
        for user, personal in shared.values_list("user_id", "workspace__personal_user_id")
    )
    assert (
        not live_model.objects.exclude(kind__in=("event", "post"))
        .filter(workspace__isnull=False)
        .exists()
    )
    assert checksum(apps, "OutboxEvent", OUTBOX_COLUMNS) == outbox_before
    assert checksum(apps, "LiveEvent", LIVE_COLUMNS) == live_before

    apps = migrate(BEFORE)
    assert checksum(apps, "OutboxEvent", OUTBOX_COLUMNS) == outbox_before
    assert checksum(apps, "LiveEvent", LIVE_COLUMNS) == live_before
    with connection.cursor() as cursor:
        for table in ("notifications_outboxevent", "notifications_liveevent"):
            columns = connection.introspection.get_table_description(cursor, table)
            assert "workspace_id" not in {column.name for column in columns}

    apps = migrate(AFTER)  # and forward once more
    assert checksum(apps, "OutboxEvent", OUTBOX_COLUMNS) == outbox_before
    assert checksum(apps, "LiveEvent", LIVE_COLUMNS) == live_before
