"""Every existing API key belongs to its user's personal workspace, the one it has acted in so
far (docs/workspaces.md, "Moving data into workspaces"): batched set-based UPDATEs, each its
own transaction (accounts/migrations/_workspace_backfill.py).

A key of an erased account (erasure deletes keys, so there should be none) has no workspace to
go to and never worked again: it is deleted. Backwards: nothing to undo; 0011's reverse drops
the column.
"""

from typing import Any

from django.db import migrations, transaction

from accounts.migrations._workspace_backfill import (
    personal_workspace_of_user,
    personal_workspaces_ensure,
    workspace_backfill,
)


def forward(apps: Any, schema_editor: Any) -> None:
    personal_workspaces_ensure(apps, schema_editor)
    api_key = apps.get_model("accounts", "ApiKey")
    workspaces = schema_editor.connection.ops.quote_name(
        apps.get_model("accounts", "Workspace")._meta.db_table
    )
    workspace_backfill(api_key, schema_editor, source=personal_workspace_of_user(workspaces))
    with transaction.atomic(using=schema_editor.connection.alias):
        api_key.objects.filter(workspace__isnull=True).delete()


class Migration(migrations.Migration):
    atomic = False  # each batch commits on its own

    dependencies = [
        ("accounts", "0011_api_key_workspace"),
    ]

    operations = [
        migrations.RunPython(forward, migrations.RunPython.noop, elidable=False),
    ]
