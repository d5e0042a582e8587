"""Core tables: the idempotency store, the workers' heartbeats (and the lease engine's abstract
model, core.leases)."""

from django.conf import settings
from django.db import models
from django.utils import timezone


class IdempotencyRecord(models.Model):
    """The first response to a user's POST carrying an `Idempotency-Key`, replayed for a
    repeat with the same body for 24 hours (core/idempotency.py). `status` is null while
    the first request is still running."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)  # SHA-256 of the path and body
    status = models.PositiveSmallIntegerField(null=True, blank=True)
    content_type = models.CharField(max_length=100, blank=True, default="")
    body = models.BinaryField(blank=True, default=b"")
    location = models.CharField(max_length=2000, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "accounts_idempotencyrecord"  # created by accounts before it moved here
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_once_per_user")
        ]
        indexes = [models.Index(fields=["created_at"], name="idempotency_created_idx")]

    def __str__(self) -> str:
        return f"{self.key} of {self.user_id}"


class WorkerHeartbeat(models.Model):
    """A Celery worker's last sign of life, written every few seconds by its main process
    (core/heartbeats.py): the status page and /metrics count the workers seen lately."""

    name = models.CharField(max_length=255, unique=True)  # the node name: celery@host
    pid = models.PositiveIntegerField()
    processes = models.PositiveSmallIntegerField(default=0)  # its pool's size
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["seen_at"], name="core_heartbeat_seen_idx")]

    def __str__(self) -> str:
        return f"{self.name} (seen {self.seen_at:%H:%M:%S})"
