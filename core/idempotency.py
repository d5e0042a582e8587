"""The idempotency store: the replies kept for repeated POSTs (core.api.idempotency is the
middleware that writes and replays them), their purge and a user's erasure."""

import hashlib
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from core.models import IdempotencyRecord


def request_fingerprint(method: str, path: str, body: bytes) -> str:
    path = path.replace("/api/v1/", "/api/", 1)  # both prefixes: one operation
    digest = hashlib.sha256(f"{method} {path}\n".encode())
    digest.update(body)
    return digest.hexdigest()


def idempotency_forget(user: Any) -> list[str]:
    """The user-data registry's cleanup (takeover, erasure): the stored replies of the user's
    repeated POSTs go (they are answers to whoever sent those requests)."""
    IdempotencyRecord.objects.filter(user_id=user.pk).delete()
    return []


def idempotency_purge() -> int:
    """Delete the records older than IDEMPOTENCY_RETENTION_HOURS."""
    cutoff = timezone.now() - timedelta(hours=settings.IDEMPOTENCY_RETENTION_HOURS)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
