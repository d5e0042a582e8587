import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """Every key has its workspace (0012): the column is required from now on."""

    dependencies = [
        ("accounts", "0012_api_key_workspace_backfill"),
    ]

    operations = [
        migrations.AlterField(
            model_name="apikey",
            name="workspace",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="api_keys",
                to="accounts.workspace",
            ),
        ),
    ]
