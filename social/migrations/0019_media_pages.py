"""A media item's `pages`: a document's page count (social.md section 13), read from the file
when it is uploaded or registered; null for images and videos. A nullable column: no rows
are rewritten."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("social", "0018_approvals"),
    ]

    operations = [
        migrations.AddField(
            model_name="mediaitem",
            name="pages",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
    ]
