# Outbox consumptions run on the lease engine (core.leases): a claim token and the lease's end
# replace the claim time. A row claimed when this runs keeps its lease (claim time + 300 s).

from datetime import timedelta

from django.db import migrations, models


def leases_from_claim_times(apps, schema_editor):
    OutboxConsumption = apps.get_model('notifications', 'OutboxConsumption')
    for row in OutboxConsumption.objects.filter(status='running', claimed_at__isnull=False):
        row.lease_expires_at = row.claimed_at + timedelta(seconds=300)
        row.save(update_fields=['lease_expires_at'])


class Migration(migrations.Migration):

    dependencies = [
        ('notifications', '0012_live_revocation'),
    ]

    operations = [
        migrations.AddField(
            model_name='outboxconsumption',
            name='claim',
            field=models.UUIDField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='outboxconsumption',
            name='lease_expires_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(leases_from_claim_times, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name='outboxconsumption',
            name='claimed_at',
        ),
    ]
