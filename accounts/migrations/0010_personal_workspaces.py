"""Every existing user gets their personal workspace, owned by them, as sign-up now makes it
(docs/workspaces.md). Erased accounts get none: an erasure removes it.

Set-based: one INSERT ... SELECT of workspaces and one of memberships per batch of users, the
batches bounded by user ids (keyset, in id order), each its own transaction, so a million users
never hold one long transaction and an interrupted run resumes where it stopped (a user who
has a personal workspace is skipped). Backwards: every personal workspace and its memberships
go, in batches too.
"""

from typing import Any

from django.db import migrations, transaction

from accounts.migrations._workspace_backfill import key_ranges, within

BATCH_SIZE = 10_000  # users per INSERT ... SELECT: one short transaction each
NAME = "Personal"
OWNER = "owner"

# A random version-4 UUID per row, in the form Django stores a UUIDField in: PostgreSQL's own
# uuid type, and 32 hexadecimal digits on SQLite.
NEW_UUID = {
    "postgresql": "gen_random_uuid()",
    "sqlite": (
        "lower(hex(randomblob(4)) || hex(randomblob(2)) || '4' || substr(hex(randomblob(2)), 2)"
        " || substr('89ab', 1 + (abs(random()) %% 4), 1) || substr(hex(randomblob(2)), 2)"
        " || hex(randomblob(6)))"
    ),
}


def forward(apps: Any, schema_editor: Any) -> None:
    connection = schema_editor.connection
    quote = connection.ops.quote_name
    user_model = apps.get_model("accounts", "User")
    users = quote(user_model._meta.db_table)
    workspaces = quote(apps.get_model("accounts", "Workspace")._meta.db_table)
    memberships = quote(apps.get_model("accounts", "Membership")._meta.db_table)
    new_uuid = NEW_UUID[connection.vendor]
    for low, high in key_ranges(user_model, connection, BATCH_SIZE):
        where, params = within("u.id", low, high)
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {workspaces} (id, name, personal, personal_user_id, "
                "approval_required, created_at) "
                f"SELECT {new_uuid}, %s, %s, u.id, %s, u.created_at FROM {users} u "
                f"WHERE u.erased_at IS NULL{where} AND NOT EXISTS "
                f"(SELECT 1 FROM {workspaces} w WHERE w.personal_user_id = u.id)",
                [NAME, True, False, *params],
            )
            cursor.execute(
                f"INSERT INTO {memberships} (workspace_id, user_id, role, joined_at) "
                f"SELECT w.id, u.id, %s, w.created_at FROM {users} u "
                f"JOIN {workspaces} w ON w.personal_user_id = u.id WHERE 1 = 1{where} "
                f"AND NOT EXISTS (SELECT 1 FROM {memberships} m "
                "WHERE m.workspace_id = w.id AND m.user_id = u.id)",
                [OWNER, *params],
            )


def backward(apps: Any, schema_editor: Any) -> None:
    workspace_model = apps.get_model("accounts", "Workspace")
    membership_model = apps.get_model("accounts", "Membership")
    invitation_model = apps.get_model("accounts", "Invitation")
    while True:
        with transaction.atomic(using=schema_editor.connection.alias):
            ids = list(
                workspace_model.objects.filter(personal=True).values_list("pk", flat=True)[
                    :BATCH_SIZE
                ]
            )
            if not ids:
                return
            invitation_model.objects.filter(workspace_id__in=ids).delete()
            membership_model.objects.filter(workspace_id__in=ids).delete()
            workspace_model.objects.filter(pk__in=ids).delete()


class Migration(migrations.Migration):
    atomic = False  # each batch commits on its own (above)

    dependencies = [
        ("accounts", "0009_workspaces"),
    ]

    operations = [
        migrations.RunPython(forward, backward, elidable=False),
    ]
