# The idempotency store moved to the core app; its table stays where it is (core.0001).

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0006_idempotency_records'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='IdempotencyRecord')],
        ),
    ]
