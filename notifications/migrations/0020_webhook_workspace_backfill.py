"""Every existing webhook endpoint belongs to its user's personal workspace, whose events it has
received so far, and every delivery to its endpoint's workspace (docs/workspaces.md, "Moving
data into workspaces"): batched set-based UPDATEs, each its own transaction
(accounts/migrations/_workspace_backfill.py).

An endpoint of an erased account (erasure deletes endpoints, so there should be none) has no
workspace to go to and was never sent anything again: it is deleted with its deliveries.
Backwards: nothing to undo; 0019's reverse drops the columns.
"""

from typing import Any

from django.db import migrations, transaction

from accounts.migrations._workspace_backfill import (
    personal_workspace_of_user,
    personal_workspaces_ensure,
    workspace_backfill,
)


def forward(apps: Any, schema_editor: Any) -> None:
    quote = schema_editor.connection.ops.quote_name
    personal_workspaces_ensure(apps, schema_editor)
    endpoint = apps.get_model("notifications", "WebhookEndpoint")
    delivery = apps.get_model("notifications", "WebhookDelivery")
    workspaces = quote(apps.get_model("accounts", "Workspace")._meta.db_table)
    workspace_backfill(endpoint, schema_editor, source=personal_workspace_of_user(workspaces))
    with transaction.atomic(using=schema_editor.connection.alias):
        endpoint.objects.filter(workspace__isnull=True).delete()
    endpoints = quote(endpoint._meta.db_table)
    workspace_backfill(
        delivery,
        schema_editor,
        source=f"SELECT e.workspace_id FROM {endpoints} e WHERE e.id = {{table}}.endpoint_id",
    )


class Migration(migrations.Migration):
    atomic = False  # each batch commits on its own

    dependencies = [
        ("notifications", "0019_webhook_workspace"),
    ]

    operations = [
        migrations.RunPython(forward, migrations.RunPython.noop, elidable=False),
    ]
