"""The outbox gets a sequence (its new primary key) and per-consumer rows.

The primary key changes type (UUID -> bigint), which no ALTER does portably: the old table is
renamed aside, the new one created, the events copied in their order (their ids kept, so an
event keeps its identity), and the old table dropped.
"""

import django.db.models.deletion
import django.utils.timezone
import uuid
from django.conf import settings
from django.db import migrations, models


def copy_events(apps, schema_editor):
    Legacy = apps.get_model("notifications", "LegacyOutboxEvent")
    OutboxEvent = apps.get_model("notifications", "OutboxEvent")
    batch = []
    for old in Legacy.objects.order_by("created_at", "id").iterator(chunk_size=500):
        batch.append(
            OutboxEvent(
                id=old.id,
                event=old.event,
                user_id=old.user_id,
                data=old.data,
                created_at=old.created_at,
                dispatched_at=old.dispatched_at,
            )
        )
        if len(batch) == 500:
            OutboxEvent.objects.bulk_create(batch)
            batch = []
    OutboxEvent.objects.bulk_create(batch)


class Migration(migrations.Migration):

    dependencies = [
        ("notifications", "0005_drop_count_index"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(model_name="outboxevent", name="outbox_pending_idx"),
        migrations.RenameModel(old_name="OutboxEvent", new_name="LegacyOutboxEvent"),
        migrations.AlterField(
            model_name="legacyoutboxevent",
            name="user",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.CreateModel(
            name="OutboxEvent",
            fields=[
                ("sequence", models.BigAutoField(primary_key=True, serialize=False)),
                ("id", models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                ("event", models.CharField(max_length=64)),
                ("data", models.JSONField(default=dict)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("dispatched_at", models.DateTimeField(blank=True, null=True)),
                (
                    "user",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="outbox_events",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ("sequence",),
                "indexes": [
                    models.Index(fields=["user", "sequence"], name="outbox_user_sequence_idx"),
                    models.Index(fields=["created_at"], name="outbox_created_idx"),
                    models.Index(
                        condition=models.Q(("dispatched_at__isnull", True)),
                        fields=["created_at"],
                        name="outbox_undispatched_idx",
                    ),
                ],
            },
        ),
        migrations.RunPython(copy_events, migrations.RunPython.noop),
        migrations.DeleteModel(name="LegacyOutboxEvent"),
        migrations.CreateModel(
            name="OutboxConsumption",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("consumer", models.CharField(max_length=32)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("running", "Running"),
                            ("done", "Done"),
                            ("failed", "Failed"),
                        ],
                        default="pending",
                        max_length=16,
                    ),
                ),
                ("attempts", models.PositiveSmallIntegerField(default=0)),
                ("next_attempt_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("claimed_at", models.DateTimeField(blank=True, null=True)),
                ("last_error", models.CharField(blank=True, default="", max_length=500)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("done_at", models.DateTimeField(blank=True, null=True)),
                (
                    "event",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="consumptions",
                        to="notifications.outboxevent",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(
                        condition=models.Q(("status__in", ["pending", "running"])),
                        fields=["next_attempt_at"],
                        name="outbox_consumption_due_idx",
                    )
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("event", "consumer"), name="outbox_consumed_once"
                    )
                ],
            },
        ),
    ]
