"""Outgoing webhook endpoints through the API: the secret shown once, rotation with overlap,
URL and event checks, isolation between users; signatures verified by the Standard Webhooks
library, as a receiver would (social.md section 7)."""

import base64
import hashlib
import hmac
import json
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient
from standardwebhooks import Webhook

from accounts.services.users import user_create
from notifications.models import WebhookEndpoint, WebhookSecret
from notifications.services.webhooks import active_secrets, signature_headers
from tests.factories import client_for

pytestmark = pytest.mark.django_db

URL = "https://hooks.example.com/receiver"


@pytest.fixture(autouse=True)
def public_dns(monkeypatch):
    """hooks.example.com resolves to a public address; other names as the test says."""
    from core import outbound

    monkeypatch.setattr(outbound, "_resolve", lambda host, port: {
        "hooks.example.com": ["93.184.216.34"], "internal.example.com": ["10.0.0.8"],
    }.get(host, ["127.0.0.1"]))  # fmt: skip


def create(client: APIClient, **body: Any) -> Any:
    return client.post("/api/webhooks/endpoints",
                    {"url": URL, "events": ["post.published", "credits.depleted"], **body},
                    format="json")  # fmt: skip


@pytest.mark.parametrize("prefix", ["/api", "/api/v1"])
def test_create_shows_the_secret_once_then_list_get_patch_delete(ada_client, prefix, settings):
    settings.OUTBOUND_ALLOW_PRIVATE = False
    response = ada_client.post(f"{prefix}/webhooks/endpoints",
                        {"url": URL, "events": ["post.published"], "description": "CRM"},
                        format="json")  # fmt: skip
    assert response.status_code == 200, response.content
    endpoint = response.json()["data"]
    assert endpoint["secret"].startswith("whsec_")
    assert len(base64.b64decode(endpoint["secret"][6:])) == 32
    assert (endpoint["active"], endpoint["disabled_reason"]) == (True, None)
    listed = ada_client.get(f"{prefix}/webhooks/endpoints").json()["data"]
    assert [e["id"] for e in listed] == [endpoint["id"]]
    assert "secret" not in listed[0]
    fetched = ada_client.get(f"{prefix}/webhooks/endpoints/{endpoint['id']}").json()["data"]
    assert "secret" not in fetched
    patched = ada_client.patch(f"{prefix}/webhooks/endpoints/{endpoint['id']}",
                        {"events": ["post.failed", "post.published"], "active": False},
                        format="json").json()["data"]  # fmt: skip
    assert (patched["events"], patched["active"]) == (["post.failed", "post.published"], False)
    assert ada_client.delete(f"{prefix}/webhooks/endpoints/{endpoint['id']}").json()["data"] == {
        "success": True
    }
    assert not WebhookEndpoint.objects.exists()
    assert not WebhookSecret.objects.exists()


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("http://hooks.example.com/receiver", "invalid_webhook_url"),
        ("https://internal.example.com/hook", "invalid_webhook_url"),
        ("https://127.0.0.1/hook", "invalid_webhook_url"),
        ("not a url", "validation_error"),
    ],
)
def test_urls_must_be_https_and_public(ada_client, settings, url, code):
    settings.OUTBOUND_ALLOW_PRIVATE = False
    response = create(ada_client, url=url)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert not WebhookEndpoint.objects.exists()


@pytest.mark.parametrize("events", [[], ["post.exploded"], "post.published"])
def test_events_must_be_a_nonempty_subset(ada_client, events):
    response = create(ada_client, events=events)
    assert response.status_code == 400
    assert "events" in response.json()["error"]["details"]
    assert not WebhookEndpoint.objects.exists()


def test_another_users_endpoint_is_404(ada_client):
    endpoint = create(ada_client).json()["data"]
    mallory = client_for(user_create(email="mallory@example.com"))
    path = f"/api/webhooks/endpoints/{endpoint['id']}"
    assert mallory.get(path).status_code == 404
    assert mallory.patch(path, {"active": False}, format="json").status_code == 404
    assert mallory.delete(path).status_code == 404
    assert mallory.post(f"{path}/rotate-secret").status_code == 404
    assert mallory.get("/api/webhooks/endpoints").json()["data"] == []
    assert WebhookEndpoint.objects.get().active is True


def test_rotation_signs_with_both_secrets_for_24_hours(ada_client):
    first = create(ada_client).json()["data"]
    rotated = ada_client.post(f"/api/webhooks/endpoints/{first['id']}/rotate-secret").json()["data"]
    assert rotated["secret"] != first["secret"]
    endpoint = WebhookEndpoint.objects.get()
    assert active_secrets(endpoint) == [rotated["secret"], first["secret"]]
    WebhookSecret.objects.filter(expires_at__isnull=False).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert active_secrets(endpoint) == [rotated["secret"]]


def test_signatures_verify_with_the_standard_webhooks_library():
    secrets = ["whsec_" + base64.b64encode(b"n" * 32).decode(),
               "whsec_" + base64.b64encode(b"o" * 32).decode()]  # fmt: skip
    body = json.dumps({"id": "evt_1", "event": "post.published", "data": {}}).encode()
    timestamp = int(timezone.now().timestamp())
    headers = signature_headers(
        body=body, event_id="evt_1", event="post.published", timestamp=timestamp, secrets=secrets
    )
    assert len(headers["webhook-signature"].split(" ")) == 2
    for secret in secrets:  # a receiver holding either secret verifies the delivery
        assert Webhook(secret).verify(body, headers) == json.loads(body)
    with pytest.raises(Exception):  # noqa: B017, PT011 (the library's own error type)
        Webhook(secrets[0]).verify(body + b" ", headers)
    expected = hmac.new(secrets[0].encode(), body, hashlib.sha256).hexdigest()
    assert headers["X-Service-Signature"] == expected
    assert headers["X-Service-Event"] == "post.published"


def test_endpoints_are_capped_per_owner_and_past_the_cap_nothing_is_written(
    ada_client, bob_client, settings
):
    assert settings.WEBHOOK_ENDPOINTS_PER_USER == 10  # the default
    settings.WEBHOOK_ENDPOINTS_PER_USER = 2
    first, _ = (create(ada_client).json()["data"] for _ in range(2))
    refused = create(ada_client, description="one too many")
    assert refused.status_code == 409, refused.content
    assert refused.json()["error"] == {"code": "webhook_endpoint_limit_reached",
                                       "details": {"limit": 2}}  # fmt: skip
    assert "Delete one" in refused.json()["message"]
    assert WebhookEndpoint.objects.count() == 2
    assert WebhookSecret.objects.count() == 2
    assert not WebhookEndpoint.objects.filter(description="one too many").exists()
    # Another owner has a cap of their own; a deleted endpoint frees its place.
    assert create(bob_client).status_code == 200
    assert ada_client.delete(f"/api/webhooks/endpoints/{first['id']}").status_code == 200
    assert create(ada_client).status_code == 200
