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
import secrets as random
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from config import outbound
from notifications.errors import InvalidWebhookUrl, WebhookEndpointNotFound
from notifications.events import EVENTS
from notifications.models import WebhookEndpoint, WebhookSecret

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
        from config.errors import ValidationFailed

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
