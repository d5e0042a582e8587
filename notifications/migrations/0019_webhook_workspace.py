import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """Webhook endpoints and their deliveries belong to a workspace: the columns, empty for now
    (0020 fills them, 0021 makes them required and indexes the deliveries' log by them)."""

    dependencies = [
        ("accounts", "0010_personal_workspaces"),
        ("notifications", "0018_event_actor"),
    ]

    operations = [
        migrations.AddField(
            model_name="webhookendpoint",
            name="workspace",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="webhook_endpoints",
                to="accounts.workspace",
            ),
        ),
        migrations.AddField(
            model_name="webhookdelivery",
            name="workspace",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="accounts.workspace",
            ),
        ),
    ]
