"""The idempotency store: the replies kept for repeated requests, one per (user, key) for 24
hours. Both ways in use it: core.api.idempotency (REST's `Idempotency-Key` middleware) and
the agents' tools (`idempotencyKey`, agents.mcp.calls), each under keys of its own."""

import enum
import hashlib
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.crypto import SecretUnreadable, decrypt_bytes, encrypt_bytes
from core.models import IdempotencyRecord


def request_fingerprint(method: str, path: str, body: bytes) -> str:
    path = path.replace("/api/v1/", "/api/", 1)  # both prefixes: one operation
    digest = hashlib.sha256(f"{method} {path}\n".encode())
    digest.update(body)
    return digest.hexdigest()


class Outcome(enum.Enum):
    """What a request with a key may do: run (the first, or one taking over an abandoned
    first), replay the stored answer, or be refused (another body; the first still running)."""

    RUN = "run"
    REPLAY = "replay"
    REUSED = "reused"
    IN_PROGRESS = "in_progress"


@dataclass(frozen=True, slots=True)
class Begun:
    record: IdempotencyRecord
    outcome: Outcome


def idempotency_begin(*, user_id: Any, key: str, fingerprint: str) -> Begun:
    """Claim (user, key) for a request with this fingerprint, or say why not (Outcome)."""
    now = timezone.now()
    try:
        with transaction.atomic():
            return Begun(
                IdempotencyRecord.objects.create(
                    user_id=user_id, key=key, fingerprint=fingerprint, created_at=now
                ),
                Outcome.RUN,
            )
    except IntegrityError:
        pass
    with transaction.atomic():
        existing = (
            IdempotencyRecord.objects.select_for_update().filter(user_id=user_id, key=key).first()
        )
        if existing is None:  # purged between the two statements: start afresh
            return Begun(
                IdempotencyRecord.objects.create(
                    user_id=user_id, key=key, fingerprint=fingerprint, created_at=now
                ),
                Outcome.RUN,
            )
        if existing.fingerprint != fingerprint:
            return Begun(existing, Outcome.REUSED)
        if existing.status is not None:
            return Begun(existing, Outcome.REPLAY)
        abandoned = now - timedelta(seconds=settings.IDEMPOTENCY_ABANDONED_SECONDS)
        if existing.created_at > abandoned:
            return Begun(existing, Outcome.IN_PROGRESS)
        existing.created_at = now  # its first request died: this one takes over
        existing.save(update_fields=["created_at"])
        return Begun(existing, Outcome.RUN)


def idempotency_finish(
    record: IdempotencyRecord,
    *,
    status: int,
    body: bytes,
    content_type: str = "application/json",
    location: str = "",
) -> None:
    """Keep the first request's answer for its repeats, encrypted at rest: a stored answer
    may carry a secret (a webhook endpoint's, a session's tokens), kept 24 hours."""
    IdempotencyRecord.objects.filter(pk=record.pk).update(
        status=status,
        content_type=content_type,
        body=encrypt_bytes(body),
        location=location[:2000],
        completed_at=timezone.now(),
    )


def idempotency_release(record: IdempotencyRecord) -> None:
    """Forget a first request whose answer is not kept (it failed in a way a retry may not
    meet again): the key is usable again."""
    IdempotencyRecord.objects.filter(pk=record.pk, status__isnull=True).delete()


def idempotency_stored(record: IdempotencyRecord) -> bytes:
    """The stored answer's body, in clear."""
    try:
        return decrypt_bytes(bytes(record.body))
    except SecretUnreadable:
        return bytes(record.body)  # stored in clear before bodies were encrypted


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
