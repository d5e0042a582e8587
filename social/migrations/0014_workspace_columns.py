"""The social hub's data moves into workspaces (docs/workspaces.md, "The social hub"), step one
of three: a nullable `workspace` on every table whose rows a user owned, and the settings and
post counters' new tables, keyed by workspace (0015 fills them, 0016 makes them required)."""

import django.db.models.deletion
from django.db import migrations, models


def _workspace(*, on_delete, db_index=False):
    return models.ForeignKey(
        null=True,
        db_index=db_index,
        on_delete=on_delete,
        related_name="+",
        to="accounts.workspace",
    )


RESTRICT = django.db.models.deletion.RESTRICT
CASCADE = django.db.models.deletion.CASCADE


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0010_personal_workspaces"),
        ("social", "0013_provider_from_the_registry"),
    ]

    operations = [
        migrations.AddField(
            model_name="socialaccount", name="workspace", field=_workspace(on_delete=RESTRICT)
        ),
        migrations.AddField(
            model_name="connectstate",
            name="workspace",
            field=_workspace(on_delete=CASCADE, db_index=True),
        ),
        migrations.AddField(
            model_name="post", name="workspace", field=_workspace(on_delete=RESTRICT)
        ),
        migrations.AddField(
            model_name="campaign",
            name="workspace",
            field=_workspace(on_delete=RESTRICT, db_index=True),
        ),
        migrations.AddField(
            model_name="mediaitem", name="workspace", field=_workspace(on_delete=RESTRICT)
        ),
        migrations.AddField(
            model_name="scheduledrecord", name="workspace", field=_workspace(on_delete=RESTRICT)
        ),
        migrations.AddField(
            model_name="analyticsrecord", name="workspace", field=_workspace(on_delete=RESTRICT)
        ),
        # New tables, renamed to the old names in 0016 once the old ones are gone: a primary
        # key moved from the user to the workspace is a new table on every database.
        migrations.CreateModel(
            name="WorkspaceSocialSettings",
            fields=[
                (
                    "workspace",
                    models.OneToOneField(
                        on_delete=CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="accounts.workspace",
                    ),
                ),
                ("default_platform", models.CharField(blank=True, max_length=16, null=True)),
                ("default_timezone", models.CharField(default="UTC", max_length=64)),
                ("auto_retry", models.BooleanField(default=True)),
                ("require_alt_text", models.BooleanField(default=False)),
                ("notification_preferences", models.JSONField(blank=True, default=dict)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={"verbose_name_plural": "social settings"},
        ),
        migrations.CreateModel(
            name="WorkspacePostCounter",
            fields=[
                (
                    "workspace",
                    models.OneToOneField(
                        on_delete=CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="accounts.workspace",
                    ),
                ),
                ("total", models.PositiveIntegerField(default=0)),
            ],
        ),
    ]
