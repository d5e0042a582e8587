"""Re-encrypt every stored secret under the newest FIELD_ENCRYPTION_KEY (after a rotation)."""

from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand, CommandError

from core.crypto import EncryptedTextField, SecretUnreadable

BATCH_SIZE = 500  # rows read per round trip


class Command(BaseCommand):
    help = (
        "Re-encrypt stored secrets with the first key of FIELD_ENCRYPTION_KEY. Rotation: put "
        "the new key first (keep the old one after it), deploy, run this, then drop the old key."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        total = 0
        for model in apps.get_models():
            fields = [f.name for f in model._meta.fields if isinstance(f, EncryptedTextField)]
            if not fields:
                continue
            count = 0
            try:
                # Reading decrypts with whichever key made the value; update() encrypts with
                # the first key. One small UPDATE per row: no long lock on the table.
                for pk, *values in model._default_manager.values_list("pk", *fields).iterator(
                    chunk_size=BATCH_SIZE
                ):
                    changes = {
                        name: value for name, value in zip(fields, values, strict=True) if value
                    }
                    if changes:
                        model._default_manager.filter(pk=pk).update(**changes)
                        count += 1
            except SecretUnreadable as exc:
                raise CommandError(
                    f"{model._meta.label}: {exc} Put every key still in use in "
                    "FIELD_ENCRYPTION_KEY, newest first, and run this again."
                ) from None
            self.stdout.write(f"{model._meta.label}: {count} row(s) re-encrypted")
            total += count
        self.stdout.write(self.style.SUCCESS(f"{total} row(s) re-encrypted in all."))
