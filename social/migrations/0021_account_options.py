"""What an account was connected with that its posts use (Pinterest's default board:
`{boardId, boardName}`). The constant default rewrites no row on PostgreSQL."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("social", "0020_share_links_and_engagement_parts"),
    ]

    operations = [
        migrations.AddField(
            model_name="socialaccount",
            name="options",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
