"""Share links (workspaces.md section 4: a workspace's calendar or report for whoever holds the
link, only the token's SHA-256 kept), and what a record's engagement is made of (reactions,
comments, shares: the report's sums). The new counters default to 0: no row is rewritten on
PostgreSQL (a constant default is the catalog's)."""

import django.db.models.deletion
import django.utils.timezone
import uuid
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0013_api_key_workspace_required'),
        ('social', '0019_media_pages'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='analyticsrecord',
            name='comments',
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='analyticsrecord',
            name='reactions',
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='analyticsrecord',
            name='shares',
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.CreateModel(
            name='ShareLink',
            fields=[
                ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ('kind', models.CharField(choices=[('calendar', 'Calendar'), ('report', 'Report')], max_length=16)),
                ('token_hash', models.CharField(max_length=64, unique=True)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('expires_at', models.DateTimeField(blank=True, null=True)),
                ('revoked_at', models.DateTimeField(blank=True, null=True)),
                ('last_used_at', models.DateTimeField(blank=True, null=True)),
                ('created_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('workspace', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.workspace')),
            ],
            options={
                'ordering': ('-created_at', '-id'),
                'indexes': [models.Index(fields=['workspace', '-created_at'], name='social_share_ws_idx')],
            },
        ),
    ]
