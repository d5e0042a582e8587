"""The migrations that bind every existing API key to a workspace (accounts 0011 to 0013), run
forward and back on a populated database: each key lands in its user's personal workspace
(made first for a user who had none), nothing else of a key changes either way, and a key of
an erased account, which has no workspace to go to, is dropped."""

import hashlib
import importlib
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("accounts", "0010_personal_workspaces")
AFTER = ("accounts", "0013_api_key_workspace_required")
BACKFILL = importlib.import_module("accounts.migrations._workspace_backfill")
KEY_COLUMNS = ("pk", "user_id", "name", "prefix", "key_hash", "scopes", "created_at", "revoked_at")


def migrate(*targets: tuple[str, str]) -> Any:
    executor = MigrationExecutor(connection)
    executor.migrate(list(targets))
    return MigrationExecutor(connection).loader.project_state(list(targets)).apps


@pytest.fixture
def at_0010() -> Iterator[None]:
    migrate(BEFORE)
    try:
        yield
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


def keys_checksum(apps: Any, *, leaving_out: Any = None) -> tuple[int, str]:
    """How many keys there are and a checksum of what each holds."""
    keys = apps.get_model("accounts", "ApiKey").objects.exclude(pk=leaving_out)
    rows = list(keys.order_by("pk").values_list(*KEY_COLUMNS))
    text = "\n".join(repr(row) for row in rows)
    return len(rows), hashlib.sha256(text.encode()).hexdigest()


def test_keys_move_into_personal_workspaces_and_back(at_0010, monkeypatch):
    monkeypatch.setattr(BACKFILL, "BATCH_SIZE", 4)  # several batches, one partly filled
    apps = migrate(BEFORE)
    user_model = apps.get_model("accounts", "User")
    key_model = apps.get_model("accounts", "ApiKey")
    now = timezone.now()
    users = user_model.objects.bulk_create(
        user_model(email=f"user{index}@example.com", created_at=now - timedelta(days=index))
        for index in range(6)
    )
    # Users made before 0010 ran got their personal workspace then: made here, as 0010 did.
    with connection.schema_editor(atomic=False) as editor:
        BACKFILL.personal_workspaces_ensure(apps, editor)
    # One made since around the services (no personal workspace) and one erased account.
    late = user_model.objects.create(email="shell@example.com")
    erased = user_model.objects.create(email="erased@example.invalid", erased_at=now)
    keys = []
    for number, user in enumerate([*users, *users[:3], late, erased]):
        keys.append(
            key_model(
                user=user,
                name=f"key {number}",
                prefix=f"fgp_{number:08d}",
                key_hash=hashlib.sha256(str(number).encode()).hexdigest(),
                scopes=["posts:read"],
                created_at=now,
                revoked_at=now if number % 5 == 0 else None,
            )
        )
    key_model.objects.bulk_create(keys)
    erased_key = key_model.objects.get(user=erased).pk
    before = keys_checksum(apps, leaving_out=erased_key)
    assert before[0] == 10

    apps = migrate(AFTER)

    key_model = apps.get_model("accounts", "ApiKey")
    assert not key_model.objects.filter(pk=erased_key).exists()
    placed = key_model.objects.values_list("user_id", "workspace__personal_user_id")
    assert len(placed) == 10
    assert all(user == personal for user, personal in placed)
    workspaces = apps.get_model("accounts", "Workspace").objects
    assert workspaces.filter(personal_user_id=late.pk).count() == 1
    assert keys_checksum(apps) == before

    apps = migrate(BEFORE)
    assert keys_checksum(apps) == before
    assert "workspace_id" not in {
        column.name
        for column in connection.introspection.get_table_description(
            connection.cursor(), "accounts_apikey"
        )
    }

    apps = migrate(AFTER)  # and forward once more
    assert keys_checksum(apps) == before
    assert not apps.get_model("accounts", "ApiKey").objects.filter(workspace=None).exists()
