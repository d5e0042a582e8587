"""The social hub's data moves into workspaces, step two of three: every row a user owned goes
to that user's personal workspace (docs/workspaces.md, "The social hub").

Set-based, in batches: per table, one `UPDATE ... FROM` joining each row's user to their
personal workspace (`accounts_workspace.personal_user_id`) per batch of BATCH_SIZE rows (keyset
batches by primary key, each its own transaction), so a million records never hold one long
transaction and an interrupted run resumes (a row that has its workspace is skipped). The
settings and post counters are copied, by one `INSERT ... SELECT` per batch, into their
workspace-keyed tables (0014). First, users made since accounts' 0010 get their personal
workspace (its own statements, run again: it skips users who have one).

Rows whose user has no personal workspace even then are an erased user's: what an erasure
left (disconnected accounts, without credentials, that nothing refers to). They are deleted,
as an erasure now deletes them with the workspace; going back does not bring them back.

Backwards: the settings and counters of personal workspaces are copied back to their users
(shared workspaces' have no user to go to); the workspace columns go with 0014.
"""

import importlib
from typing import Any

from django.db import migrations, transaction

from accounts.migrations._workspace_backfill import key_ranges, within

BATCH_SIZE = 10_000  # rows per statement: one short transaction each

PERSONAL = importlib.import_module("accounts.migrations.0010_personal_workspaces")
# The tables whose rows a user owned: each row goes to its user's personal workspace.
OWNED = (
    "SocialAccount",
    "ConnectState",
    "Post",
    "Campaign",
    "MediaItem",
    "ScheduledRecord",
    "AnalyticsRecord",
)
# The tables keyed by their user, and their successors keyed by the workspace.
COPIED = {"SocialSettings": "WorkspaceSocialSettings", "PostCounter": "WorkspacePostCounter"}


def _run(connection: Any, sql: str, params: list[Any]) -> None:
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        cursor.execute(sql, params)


def forward(apps: Any, schema_editor: Any) -> None:
    connection = schema_editor.connection
    quote = connection.ops.quote_name
    PERSONAL.forward(apps, schema_editor)  # users made since: their personal workspace
    workspaces = quote(apps.get_model("accounts", "Workspace")._meta.db_table)
    for name in OWNED:
        model = apps.get_model("social", name)
        table = quote(model._meta.db_table)
        for low, high in key_ranges(model, connection, BATCH_SIZE):
            where, params = within(f"{table}.id", low, high)
            _run(
                connection,
                f"UPDATE {table} SET workspace_id = w.id FROM {workspaces} w "  # noqa: S608
                f"WHERE w.personal_user_id = {table}.user_id "
                f"AND {table}.workspace_id IS NULL{where}",
                params,
            )
    for name in OWNED:  # an erased user's leftovers (the module's docstring)
        with transaction.atomic(using=connection.alias):
            apps.get_model("social", name).objects.filter(workspace__isnull=True).delete()
    for old_name, new_name in COPIED.items():
        old, new = apps.get_model("social", old_name), apps.get_model("social", new_name)
        columns = [f.column for f in new._meta.local_concrete_fields if f.name != "workspace"]
        source, target = quote(old._meta.db_table), quote(new._meta.db_table)
        for low, high in key_ranges(old, connection, BATCH_SIZE):
            where, params = within("o.user_id", low, high)
            _run(
                connection,
                f"INSERT INTO {target} (workspace_id, {', '.join(columns)}) "  # noqa: S608
                f"SELECT w.id, {', '.join(f'o.{c}' for c in columns)} FROM {source} o "
                f"JOIN {workspaces} w ON w.personal_user_id = o.user_id WHERE NOT EXISTS "
                f"(SELECT 1 FROM {target} n WHERE n.workspace_id = w.id){where}",
                params,
            )


def backward(apps: Any, schema_editor: Any) -> None:
    connection = schema_editor.connection
    quote = connection.ops.quote_name
    workspaces = quote(apps.get_model("accounts", "Workspace")._meta.db_table)
    for old_name, new_name in COPIED.items():
        old, new = apps.get_model("social", old_name), apps.get_model("social", new_name)
        columns = [f.column for f in new._meta.local_concrete_fields if f.name != "workspace"]
        source, target = quote(new._meta.db_table), quote(old._meta.db_table)
        for low, high in key_ranges(new, connection, BATCH_SIZE):
            where, params = within("n.workspace_id", low, high)
            _run(
                connection,
                f"INSERT INTO {target} (user_id, {', '.join(columns)}) "  # noqa: S608
                f"SELECT w.personal_user_id, {', '.join(f'n.{c}' for c in columns)} "
                f"FROM {source} n JOIN {workspaces} w ON w.id = n.workspace_id "
                "WHERE w.personal_user_id IS NOT NULL AND NOT EXISTS "
                f"(SELECT 1 FROM {target} o WHERE o.user_id = w.personal_user_id){where}",
                params,
            )


class Migration(migrations.Migration):
    atomic = False  # each batch commits on its own (above)

    dependencies = [
        ("accounts", "0010_personal_workspaces"),
        ("social", "0014_workspace_columns"),
    ]

    operations = [
        migrations.RunPython(forward, backward, elidable=False),
    ]
