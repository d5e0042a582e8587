import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """Every endpoint and delivery has its workspace (0020): the columns are required from now
    on, and a workspace's deliveries log is read by an index."""

    dependencies = [
        ("notifications", "0020_webhook_workspace_backfill"),
    ]

    operations = [
        migrations.AlterField(
            model_name="webhookendpoint",
            name="workspace",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="webhook_endpoints",
                to="accounts.workspace",
            ),
        ),
        migrations.AlterField(
            model_name="webhookdelivery",
            name="workspace",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="accounts.workspace",
            ),
        ),
        migrations.AddIndex(
            model_name="webhookdelivery",
            index=models.Index(
                fields=["workspace", "-created_at"], name="webhook_delivery_ws_idx"
            ),
        ),
    ]
