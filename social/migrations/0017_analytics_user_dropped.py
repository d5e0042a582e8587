"""The analytics rows' `user` goes: it was a copy of their record's, kept to list a user's
rows, which are listed by workspace now (0016). Backwards it comes back filled from the
records, by one `UPDATE ... FROM` per batch of rows (0015's batches), before it is required
again."""

import importlib
from typing import Any

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from accounts.migrations._workspace_backfill import key_ranges, within

BACKFILL = importlib.import_module("social.migrations.0015_workspace_backfill")


def users_back(apps: Any, schema_editor: Any) -> None:
    connection = schema_editor.connection
    quote = connection.ops.quote_name
    model = apps.get_model("social", "AnalyticsRecord")
    table = quote(model._meta.db_table)
    records = quote(apps.get_model("social", "ScheduledRecord")._meta.db_table)
    for low, high in key_ranges(model, connection, BACKFILL.BATCH_SIZE):
        where, params = within(f"{table}.id", low, high)
        BACKFILL._run(
            connection,
            f"UPDATE {table} SET user_id = r.user_id FROM {records} r "  # noqa: S608
            f"WHERE r.id = {table}.record_id AND {table}.user_id IS NULL{where}",
            params,
        )


class Migration(migrations.Migration):
    atomic = False  # backwards, each batch commits on its own

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("social", "0016_workspace_required"),
    ]

    operations = [
        migrations.AlterField(
            model_name="analyticsrecord",
            name="user",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(migrations.RunPython.noop, users_back, elidable=False),
        migrations.RemoveField(model_name="analyticsrecord", name="user"),
    ]
