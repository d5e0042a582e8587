import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """API keys belong to a workspace: the column, empty for now (0012 fills it, 0013 makes it
    required)."""

    dependencies = [
        ("accounts", "0010_personal_workspaces"),
    ]

    operations = [
        migrations.AddField(
            model_name="apikey",
            name="workspace",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="api_keys",
                to="accounts.workspace",
            ),
        ),
    ]
