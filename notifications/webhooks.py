"""Outgoing webhooks: users' endpoints, their signing secrets, and the signatures
(social.md section 7).

Every delivery carries `X-Service-Signature` (hex HMAC-SHA256 of the raw body keyed with the
newest whole secret string) and the Standard Webhooks headers `webhook-id` (the event id, the
same on every retry), `webhook-timestamp` and `webhook-signature` (`v1,` + base64 HMAC-SHA256
of `{id}.{timestamp}.{body}` keyed with the base64-decoded part after `whsec_`; one entry per
active secret: after a rotation the previous secret signs beside the new one for 24 hours).
"""

import base64
import hashlib
import hmac
import json
import secrets as random
import time
import uuid
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from config import outbound
from config.errors import ValidationFailed
from config.tasks import enqueue_on_commit
from notifications.errors import (
    InvalidWebhookUrl,
    WebhookEndpointNotFound,
)
from notifications.events import EVENTS
from notifications.models import (
    DeliveryStatus,
    OutboxEvent,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookSecret,
)
from notifications.selectors import delivery_get
from notifications.services import system_alert_send

SECRET_PREFIX = "whsec_"  # noqa: S105 (the format's prefix, not a secret)
ROTATION_OVERLAP = timedelta(hours=24)
TEST_EVENT = "webhook.test"


def secret_new() -> str:
    return SECRET_PREFIX + base64.b64encode(random.token_bytes(32)).decode()


def signature_headers(
    *, body: bytes, event_id: str, event: str, timestamp: int, secrets: list[str]
) -> dict[str, str]:
    """The headers of one delivery attempt; `secrets` newest first."""
    signed = f"{event_id}.{timestamp}.".encode() + body
    signatures = [
        "v1,"
        + base64.b64encode(
            hmac.new(
                base64.b64decode(secret.removeprefix(SECRET_PREFIX)), signed, hashlib.sha256
            ).digest()
        ).decode()
        for secret in secrets
    ]
    return {
        "Content-Type": "application/json",
        "X-Service-Signature": hmac.new(secrets[0].encode(), body, hashlib.sha256).hexdigest(),
        "X-Service-Event": event,
        "webhook-id": event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(signatures),
    }


def url_check(url: str) -> None:
    """https and public addresses only (the outbound guard), unless OUTBOUND_ALLOW_PRIVATE."""
    try:
        outbound.guard_url(url)
    except outbound.UnsafeURL as error:
        raise InvalidWebhookUrl(details={"url": [error.message]}) from None


def events_check(events: Iterable[str]) -> list[str]:
    chosen = list(dict.fromkeys(events))
    unknown = sorted(set(chosen) - EVENTS)
    if not chosen or unknown:
        raise ValidationFailed(
            details={"events": [f"Choose one or more of: {', '.join(sorted(EVENTS))}."]
                     + [f"Unknown event: {name}." for name in unknown]}
        )  # fmt: skip
    return chosen


def active_secrets(endpoint: WebhookEndpoint) -> list[str]:
    """The secrets that sign now, newest first."""
    now = timezone.now()
    return [
        str(found.secret)
        for found in endpoint.secrets.all()
        if found.expires_at is None or found.expires_at > now
    ]


def endpoint_get(*, user: User, endpoint_id: Any, lock: bool = False) -> WebhookEndpoint:
    endpoints = WebhookEndpoint.objects.select_for_update() if lock else WebhookEndpoint.objects
    found = endpoints.filter(pk=endpoint_id, user=user).first()
    if found is None:
        raise WebhookEndpointNotFound()
    return found


def endpoint_create(
    *, user: User, url: str, events: list[str], description: str = "", active: bool = True
) -> tuple[WebhookEndpoint, str]:
    """A new endpoint and its secret (shown to the user this once)."""
    url_check(url)
    chosen = events_check(events)
    secret = secret_new()
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.create(
            user=user, url=url, events=chosen, description=description, active=active
        )
        WebhookSecret.objects.create(endpoint=endpoint, secret=secret)
    return endpoint, secret


def endpoint_update(*, user: User, endpoint_id: Any, changes: dict[str, Any]) -> WebhookEndpoint:
    """Change url, events, description or active; re-activating clears the reason it was
    disabled (and its failure count)."""
    changes = dict(changes)  # the caller's mapping is not ours to change
    if "url" in changes:
        url_check(changes["url"])
    if "events" in changes:
        changes["events"] = events_check(changes["events"])
    with transaction.atomic():
        endpoint = endpoint_get(user=user, endpoint_id=endpoint_id, lock=True)
        for name in ("url", "events", "description"):
            if name in changes:
                setattr(endpoint, name, changes[name])
        if "active" in changes:
            if changes["active"] and not endpoint.active:
                endpoint.disabled_reason = ""
                endpoint.consecutive_failures = 0
            endpoint.active = changes["active"]
        endpoint.save()
    return endpoint


def endpoint_delete(*, user: User, endpoint_id: Any) -> None:
    with transaction.atomic():
        endpoint_get(user=user, endpoint_id=endpoint_id, lock=True).delete()


def endpoint_rotate(*, user: User, endpoint_id: Any) -> tuple[WebhookEndpoint, str]:
    """A new secret; the ones signing now keep signing beside it for 24 hours."""
    secret = secret_new()
    now = timezone.now()
    with transaction.atomic():
        endpoint = endpoint_get(user=user, endpoint_id=endpoint_id, lock=True)
        WebhookSecret.objects.filter(endpoint=endpoint, expires_at__isnull=True).update(
            expires_at=now + ROTATION_OVERLAP
        )
        WebhookSecret.objects.filter(endpoint=endpoint, expires_at__lte=now).delete()
        WebhookSecret.objects.create(endpoint=endpoint, secret=secret, created_at=now)
    return endpoint, secret


# --- Deliveries -------------------------------------------------------------------------------

_client = outbound.Client("webhooks", read_timeout=5.0, retries=0)
DELIVERY_LEASE_SECONDS = 60  # a claimed delivery not finished by then is due again


def _body(*, event_id: str, event: str, created_at: Any, data: Any, user: User) -> str:
    return json.dumps(
        {
            "id": event_id,
            "event": event,
            "created_at": created_at.isoformat().replace("+00:00", "Z"),
            "data": data,
            "user": {"id": str(user.pk), "email": user.email},
        },
        separators=(",", ":"),
        ensure_ascii=False,
    )


def deliveries_create(event: OutboxEvent) -> int:
    """The outbox consumer: one delivery of `event` to each of its user's active endpoints
    subscribed to it (once per (event, endpoint), whatever runs it twice), queued on commit."""
    if event.user_id is None:
        return 0
    endpoints = [
        endpoint
        for endpoint in WebhookEndpoint.objects.filter(user_id=event.user_id, active=True)
        if event.event in endpoint.events
    ]
    if not endpoints:
        return 0
    user = User.objects.get(pk=event.user_id)
    body = _body(event_id=str(event.id), event=event.event, created_at=event.created_at,
                 data=event.data, user=user)  # fmt: skip
    now = timezone.now()
    with transaction.atomic():
        created = WebhookDelivery.objects.bulk_create(
            [
                WebhookDelivery(endpoint=endpoint, event_id=event.id, event=event.event,
                                body=body, next_attempt_at=now, created_at=now)
                for endpoint in endpoints
            ],
            ignore_conflicts=True,
        )  # fmt: skip
        for delivery in WebhookDelivery.objects.filter(
            event_id=event.id, endpoint__in=endpoints, status=DeliveryStatus.PENDING, attempts=0
        ).values_list("pk", flat=True):
            _queue(delivery)
    return len(created)


def _queue(delivery_id: Any) -> None:
    from notifications.tasks import webhook_deliver_task

    enqueue_on_commit(webhook_deliver_task, delivery_id=str(delivery_id))


def _claim(delivery_id: Any) -> WebhookDelivery | None:
    now = timezone.now()
    claimed = (
        WebhookDelivery.objects.filter(
            pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
        )
        .filter(Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now))
        .update(lease_expires_at=now + timedelta(seconds=DELIVERY_LEASE_SECONDS))
    )
    if not claimed:
        return None
    return WebhookDelivery.objects.select_related("endpoint", "endpoint__user").get(pk=delivery_id)


def delivery_send(*, delivery_id: Any) -> str:
    """One attempt of a due delivery (claimed by one worker); its status afterwards."""
    delivery = _claim(delivery_id)
    if delivery is None:
        return "skipped"
    endpoint = delivery.endpoint
    body = delivery.body.encode()
    started = time.monotonic()
    status_code: int | None = None
    excerpt = error = ""
    gone = False
    try:
        if not endpoint.active:
            raise outbound.PermanentError("The endpoint is disabled.")
        headers = signature_headers(
            body=body, event_id=str(delivery.event_id), event=delivery.event,
            timestamp=int(time.time()), secrets=active_secrets(endpoint),
        )  # fmt: skip
        response = _client.request(
            "POST", endpoint.url, guarded=True, idempotent=False, data=body, headers=headers,
            timeout=settings.WEBHOOK_TIMEOUT_SECONDS,
        )  # fmt: skip
        status_code, excerpt = response.status_code, outbound.excerpt(response)
    except outbound.OutboundError as failure:
        status_code, excerpt, error = failure.status, failure.excerpt, failure.message
        gone = failure.status == 410
    duration = int((time.monotonic() - started) * 1000)
    return _record(delivery, status_code=status_code, excerpt=excerpt, error=error,
                   duration_ms=duration, gone=gone)  # fmt: skip


def _record(
    delivery: WebhookDelivery,
    *,
    status_code: int | None,
    excerpt: str,
    error: str,
    duration_ms: int,
    gone: bool,
) -> str:
    now = timezone.now()
    succeeded = not error and status_code is not None and 200 <= status_code < 300
    attempts = delivery.attempts + 1
    schedule = settings.WEBHOOK_RETRY_SCHEDULE
    retry = (
        not succeeded and not gone and attempts <= len(schedule) and delivery.event != TEST_EVENT
    )
    status = (
        DeliveryStatus.SUCCEEDED
        if succeeded
        else DeliveryStatus.PENDING
        if retry
        else DeliveryStatus.FAILED
    )
    endpoint = delivery.endpoint
    with transaction.atomic():
        WebhookAttempt.objects.create(
            delivery=delivery, at=now, status_code=status_code, duration_ms=duration_ms,
            response=excerpt[:1024], error=error[:500],
        )  # fmt: skip
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            status=status,
            attempts=attempts,
            last_status_code=status_code,
            last_error=error[:500],
            lease_expires_at=None,
            next_attempt_at=now + timedelta(seconds=schedule[attempts - 1]) if retry else None,
            delivered_at=now if succeeded else None,
        )
        # A test event says nothing of the endpoint's health: it counts neither way.
        if delivery.event != TEST_EVENT and succeeded:
            WebhookEndpoint.objects.filter(pk=endpoint.pk).update(consecutive_failures=0)
        elif delivery.event != TEST_EVENT and status == DeliveryStatus.FAILED:
            _endpoint_failed(endpoint, gone=gone)
    return status


def _endpoint_failed(endpoint: WebhookEndpoint, *, gone: bool) -> None:
    """A delivery failed for good: count it; disable the endpoint after
    WEBHOOK_DISABLE_AFTER_FAILURES in a row, or at once on a 410, and tell its owner."""
    locked = WebhookEndpoint.objects.select_for_update().get(pk=endpoint.pk)
    locked.consecutive_failures += 1
    limit = settings.WEBHOOK_DISABLE_AFTER_FAILURES
    if locked.active and (gone or locked.consecutive_failures >= limit):
        locked.active = False
        locked.disabled_reason = (
            "The endpoint answered 410 Gone."
            if gone
            else f"{locked.consecutive_failures} deliveries in a row failed."
        )
        system_alert_send(
            title="Webhook endpoint disabled",
            message=f"{locked.url} was disabled: {locked.disabled_reason} Fix it, then "
            "re-activate it; events from now on will be delivered again.",
            user_ids=[locked.user_id],
        )
    locked.save(update_fields=["consecutive_failures", "active", "disabled_reason", "updated_at"])


def deliveries_sweep() -> int:
    """Queue the deliveries that are due (retries, lost queueings, dead workers' leases)."""
    now = timezone.now()
    due = (
        WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
        .filter(Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now))
        .values_list("pk", flat=True)[:1000]
    )
    queued = 0
    for delivery_id in due:
        _queue(delivery_id)
        queued += 1
    return queued


def delivery_redeliver(*, user: User, delivery_id: Any) -> WebhookDelivery:
    """A fresh attempt now, with the same event id and body."""
    with transaction.atomic():
        delivery = delivery_get(user=user, delivery_id=delivery_id)
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            status=DeliveryStatus.PENDING, next_attempt_at=timezone.now(), lease_expires_at=None
        )
        _queue(delivery.pk)
    delivery.refresh_from_db()
    return delivery


def endpoint_test(*, user: User, endpoint_id: Any) -> WebhookDelivery:
    """Send `webhook.test` to this endpoint only (one attempt, no retries)."""
    endpoint = endpoint_get(user=user, endpoint_id=endpoint_id)
    event_id, now = uuid.uuid4(), timezone.now()
    body = _body(event_id=str(event_id), event=TEST_EVENT, created_at=now,
                 data={"message": "A test event from the Freelancer Growth Platform."},
                 user=user)  # fmt: skip
    with transaction.atomic():
        delivery = WebhookDelivery.objects.create(
            endpoint=endpoint, event_id=event_id, event=TEST_EVENT, body=body,
            next_attempt_at=now, created_at=now,
        )  # fmt: skip
        _queue(delivery.pk)
    return delivery


def deliveries_purge() -> int:
    cutoff = timezone.now() - timedelta(days=settings.WEBHOOK_RETENTION_DAYS)
    deleted, _ = WebhookDelivery.objects.filter(created_at__lt=cutoff).delete()
    return deleted
