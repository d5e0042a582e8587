"""Ledger rows get a public UUID (exposed as their id): added empty, filled row by row, then
made unique and required (a column default would give every existing row the same value)."""

import uuid

from django.db import migrations, models


def fill(apps, schema_editor):
    CreditTransaction = apps.get_model("billing", "CreditTransaction")
    for pk in CreditTransaction.objects.filter(public_id__isnull=True).values_list("pk", flat=True):
        CreditTransaction.objects.filter(pk=pk).update(public_id=uuid.uuid4())


class Migration(migrations.Migration):

    dependencies = [
        ("billing", "0002_payment_entity_key"),
    ]

    operations = [
        migrations.AddField(
            model_name="credittransaction",
            name="public_id",
            field=models.UUIDField(editable=False, null=True),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="credittransaction",
            name="public_id",
            field=models.UUIDField(default=uuid.uuid4, editable=False, unique=True),
        ),
    ]
