"""The data migration that gives every existing user a personal workspace, run forward and back
on a populated database: each unerased user gets exactly one, owned by them; the users' rows
are untouched both ways; going back removes the personal workspaces and nothing else."""

import importlib
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("accounts", "0008_api_keys")
SCHEMA = ("accounts", "0009_workspaces")
DATA = ("accounts", "0010_personal_workspaces")
MIGRATION = importlib.import_module("accounts.migrations.0010_personal_workspaces")


def migrate(*targets: tuple[str, str]) -> Any:
    """Migrate to `targets`; the apps (historical models) of that state."""
    executor = MigrationExecutor(connection)
    executor.migrate(list(targets))
    return MigrationExecutor(connection).loader.project_state(list(targets)).apps


@pytest.fixture
def at_0008() -> Iterator[None]:
    migrate(BEFORE)
    try:
        yield
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


def users_rows(apps: Any) -> list[tuple[Any, ...]]:
    return list(
        apps.get_model("accounts", "User")
        .objects.order_by("pk")
        .values_list("pk", "email", "created_at", "credits_remaining", "erased_at", "password")
    )


def test_forward_and_back_on_a_populated_database(at_0008, monkeypatch):
    monkeypatch.setattr(MIGRATION, "BATCH_SIZE", 4)  # several batches, one partly filled
    apps = migrate(BEFORE)
    user_model = apps.get_model("accounts", "User")
    start = timezone.now() - timedelta(days=400)
    user_model.objects.bulk_create(
        user_model(
            email=f"user{index}@example.com",
            created_at=start + timedelta(days=index),
            credits_remaining=index,
            erased_at=start if index == 7 else None,
        )
        for index in range(22)
    )
    before = users_rows(apps)

    apps = migrate(DATA)

    workspace_model = apps.get_model("accounts", "Workspace")
    membership_model = apps.get_model("accounts", "Membership")
    expected = sorted(
        (row[0], row[2]) for row in before if row[4] is None
    )  # each unerased user, with the time of their sign-up
    personal = sorted(
        workspace_model.objects.filter(personal=True).values_list("personal_user", "created_at")
    )
    assert personal == expected
    assert len(expected) == 21
    assert set(workspace_model.objects.values_list("name", "approval_required")) == {
        ("Personal", False)
    }
    ids = list(workspace_model.objects.values_list("pk", flat=True))
    assert len(set(ids)) == len(ids)
    assert {uuid.UUID(str(pk)).version for pk in ids} == {4}
    owners = membership_model.objects.values_list("workspace__personal_user", "user", "role")
    assert sorted(owners) == sorted((pk, pk, "owner") for pk, _ in expected)
    assert users_rows(apps) == before

    # Run again (an interrupted run resumed): nothing is made twice.
    with connection.schema_editor(atomic=False) as editor:
        MIGRATION.forward(apps, editor)
    assert workspace_model.objects.count() == membership_model.objects.count() == 21

    # A shared workspace made since stays when the migration is undone.
    shared = workspace_model.objects.create(name="Acme Bakery")
    membership_model.objects.create(workspace=shared, user_id=expected[0][0], role="owner")

    apps = migrate(SCHEMA)

    workspace_model = apps.get_model("accounts", "Workspace")
    membership_model = apps.get_model("accounts", "Membership")
    assert list(workspace_model.objects.values_list("name", flat=True)) == ["Acme Bakery"]
    assert list(membership_model.objects.values_list("workspace__name", "role")) == [
        ("Acme Bakery", "owner")
    ]
    assert users_rows(apps) == before

    apps = migrate(BEFORE)
    assert users_rows(apps) == before
    assert "accounts_workspace" not in connection.introspection.table_names()

    apps = migrate(DATA)  # and forward once more
    assert apps.get_model("accounts", "Workspace").objects.filter(personal=True).count() == 21
    assert users_rows(apps) == before
