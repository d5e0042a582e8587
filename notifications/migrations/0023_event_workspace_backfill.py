"""Every event recorded so far was its user's, so it belongs to their personal workspace
(docs/workspaces.md, "Moving data into workspaces"): the outbox's rows, and the live feed's
domain events and post changes (a notification, a balance or a revocation stays only its
user's: no workspace). Batched set-based UPDATEs, each its own transaction
(accounts/migrations/_workspace_backfill.py). Backwards: nothing to undo; 0022's reverse drops
the columns."""

from typing import Any

from django.db import migrations

from accounts.migrations._workspace_backfill import (
    personal_workspace_of_user,
    personal_workspaces_ensure,
    workspace_backfill,
)


def forward(apps: Any, schema_editor: Any) -> None:
    quote = schema_editor.connection.ops.quote_name
    personal_workspaces_ensure(apps, schema_editor)
    workspaces = quote(apps.get_model("accounts", "Workspace")._meta.db_table)
    outbox = apps.get_model("notifications", "OutboxEvent")
    workspace_backfill(outbox, schema_editor, source=personal_workspace_of_user(workspaces))
    live = apps.get_model("notifications", "LiveEvent")
    workspace_backfill(
        live,
        schema_editor,
        source=personal_workspace_of_user(workspaces) + " AND {table}.kind IN ('event', 'post')",
    )


class Migration(migrations.Migration):
    atomic = False  # each batch commits on its own

    dependencies = [
        ("notifications", "0022_event_workspace"),
    ]

    operations = [
        migrations.RunPython(forward, migrations.RunPython.noop, elidable=False),
    ]
