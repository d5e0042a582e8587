# The idempotency store, moved here from accounts: the table accounts.0006 created is kept.

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('accounts', '0007_idempotency_record_moves_to_core'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='IdempotencyRecord',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('key', models.CharField(max_length=255)),
                        ('fingerprint', models.CharField(max_length=64)),
                        ('status', models.PositiveSmallIntegerField(blank=True, null=True)),
                        ('content_type', models.CharField(blank=True, default='', max_length=100)),
                        ('body', models.BinaryField(blank=True, default=b'')),
                        ('location', models.CharField(blank=True, default='', max_length=2000)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('completed_at', models.DateTimeField(blank=True, null=True)),
                        ('user', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'accounts_idempotencyrecord',
                        'indexes': [models.Index(fields=['created_at'], name='idempotency_created_idx')],
                        'constraints': [models.UniqueConstraint(fields=('user', 'key'), name='idempotency_once_per_user')],
                    },
                ),
            ],
        ),
    ]
