"""Events belong to a workspace (workspaces.md section 1): the outbox's and the live feed's rows
get theirs (0023 fills it in), and the replay reads by (workspace, live id)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0013_api_key_workspace_required'),
        ('notifications', '0021_webhook_workspace_required'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='outboxevent',
            name='outbox_user_live_idx',
        ),
        migrations.AddField(
            model_name='liveevent',
            name='workspace',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.workspace'),
        ),
        migrations.AddField(
            model_name='outboxevent',
            name='workspace',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.workspace'),
        ),
        migrations.AlterField(
            model_name='liveevent',
            name='kind',
            field=models.CharField(choices=[('notification', 'Notification'), ('post', 'Post'), ('credits', 'Credits'), ('event', 'Event'), ('revoked', 'Revoked'), ('membership', 'Membership')], max_length=16),
        ),
        migrations.AddIndex(
            model_name='liveevent',
            index=models.Index(fields=['workspace', 'id'], name='live_event_workspace_id_idx'),
        ),
        migrations.AddIndex(
            model_name='outboxevent',
            index=models.Index(fields=['workspace', 'live_id'], name='outbox_workspace_live_idx'),
        ),
    ]
