"""`expires_at` becomes when the connection ends without the user (social.md section 2); the
credentials' own end moves to `credentials_expire_at`. A Bluesky session renews itself: no end."""

from django.db import migrations, models
from django.db.models import F


def split_expiry(apps, schema_editor):
    SocialAccount = apps.get_model("social", "SocialAccount")
    SocialAccount.objects.update(credentials_expire_at=F("expires_at"))
    SocialAccount.objects.filter(provider="bluesky").update(expires_at=None)


def join_expiry(apps, schema_editor):
    SocialAccount = apps.get_model("social", "SocialAccount")
    SocialAccount.objects.update(expires_at=F("credentials_expire_at"))


class Migration(migrations.Migration):

    dependencies = [
        ("social", "0005_post_counter"),
    ]

    operations = [
        migrations.AddField(
            model_name="socialaccount",
            name="credentials_expire_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(split_expiry, join_expiry),
    ]
