"""Nothing that sends data out or acts elsewhere survives a takeover (the first magic-link
verification of an address someone registered before) or an erasure: webhook endpoints,
connected social accounts and their waiting posts, sessions, tickets; erasure also deletes the
user's posts and uploaded files, and revokes provider sessions where the platform allows."""

from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from notifications.models import Notification, WebhookDelivery, WebhookEndpoint
from social.models import MediaItem, ScheduledRecord, SocialAccount
from tests.social.conftest import connect

pytestmark = pytest.mark.django_db


def png() -> bytes:
    from io import BytesIO

    from PIL import Image

    out = BytesIO()
    Image.new("RGB", (4, 4), "red").save(out, format="PNG")
    return out.getvalue()


def signed_in(email: str, **body: Any) -> APIClient:
    response = APIClient().post("/api/auth/login", {"email": email, **body}, format="json")
    assert response.status_code == 200, response.content
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {response.json()['data']['token']}")
    return client


def magic_link(email: str, settings: Any) -> str:
    settings.MAGIC_LINK_EXPOSE_URL = True
    response = APIClient().post("/api/auth/magic-link", {"email": email}, format="json")
    url = response.json()["data"]["magicUrl"]
    return parse_qs(urlsplit(url).query)["token"][0]


def integrations(client: APIClient, providers: Any) -> str:
    """A webhook endpoint, a connected Dev.to account and a post scheduled to it."""
    hook = {"url": "https://127.0.0.1:9/hook", "events": ["generation.completed", "post.published"]}
    endpoint = client.post("/api/webhooks/endpoints", hook, format="json")
    assert endpoint.status_code == 200, endpoint.content
    account = connect(client, "devto").json()["data"]
    scheduled = client.post("/api/social/schedule", {
        "title": "Squat", "content": "Not the owner's words",
        "scheduledTime": (timezone.now() + timedelta(hours=1)).isoformat(),
        "accountIds": [account["id"]]}, format="json")  # fmt: skip
    assert scheduled.status_code == 200, scheduled.content
    return str(account["id"])


def test_a_squatters_integrations_do_not_survive_the_owners_first_magic_link(providers, settings):
    squatter = signed_in("victim@example.com", password="Squatter-pass-9")
    account_id = integrations(squatter, providers)

    verified = APIClient().post("/api/auth/magic-link/verify",
                                {"token": magic_link("victim@example.com", settings)})  # fmt: skip
    assert verified.status_code == 200
    owner = APIClient()
    owner.credentials(HTTP_AUTHORIZATION=f"Bearer {verified.json()['data']['token']}")

    assert squatter.get("/api/auth/me").status_code == 401
    assert not WebhookEndpoint.objects.exists()
    # The owner's next AI call reaches no receiver of the squatter's.
    ai = owner.post("/api/seo/audit", {"title": "Logo design", "description": "Logos for you."})
    assert ai.status_code == 200
    assert not WebhookDelivery.objects.exists()
    # The owner neither sees nor can publish to the squatter's Dev.to account.
    assert owner.get("/api/social/accounts").json()["data"] == []
    published = owner.post("/api/social/publish", {"content": "Mine", "title": "Mine",
                           "accountIds": [account_id]}, format="json")  # fmt: skip
    assert published.status_code == 400
    assert SocialAccount.objects.get().status == "disconnected"
    assert ScheduledRecord.objects.get().status == "Cancelled"
    assert providers.devto.posts == []
    told = Notification.objects.get(title="Your account is secured")
    removed = " ".join(told.metadata["removed"])
    assert "webhook endpoint" in removed
    assert "DEV Community" in removed
    assert "password" in removed


def test_erasure_stops_everything_the_user_set_going(
    providers, settings, media_root, django_capture_on_commit_callbacks
):
    ada = signed_in("ada@example.com", password="Quiet-lake-42")
    integrations(ada, providers)
    mastodon = connect(ada, "mastodon", instance=providers.mastodon.url).json()["data"]
    bluesky = connect(ada, "bluesky").json()["data"]
    assert mastodon["status"] == bluesky["status"] == "connected"
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = ada.post("/api/social/media", {"file": SimpleUploadedFile("a.png", png())},
                      format="multipart")  # fmt: skip
    assert upload.status_code == 200, upload.content
    media_url = upload.json()["data"]["url"]
    stored = MediaItem.objects.get().file.name

    with django_capture_on_commit_callbacks(execute=True):
        erased = ada.delete("/api/auth/me", {"password": "Quiet-lake-42"}, format="json")
    assert erased.status_code == 200, erased.content

    user = User.objects.get()
    assert not user.is_active
    assert ScheduledRecord.objects.count() == 0
    assert not WebhookEndpoint.objects.exists()
    # The accounts went with the personal workspace that held them (docs/workspaces.md):
    # disconnected first, their credentials with them.
    assert not SocialAccount.objects.exists()
    # Revoked at the platforms that allow it (after the commit).
    assert providers.mastodon.received("POST", "/oauth/revoke")
    assert providers.bluesky.received("POST", "/xrpc/com.atproto.server.deleteSession")
    # The uploaded file is gone from storage and no longer served.
    assert not MediaItem.objects.exists()
    from django.core.files.storage import default_storage

    assert not default_storage.exists(stored)
    assert APIClient().get(urlsplit(media_url).path).status_code == 404


def test_the_scheduler_and_webhooks_refuse_work_for_an_inactive_user(providers, settings):
    from social.publishing.services.scheduler import records_claim

    ada = signed_in("ada@example.com", password="Quiet-lake-42")
    integrations(ada, providers)
    ScheduledRecord.objects.update(due_at=timezone.now() - timedelta(seconds=1))
    User.objects.update(is_active=False)
    assert records_claim(limit=10) == []
    assert providers.devto.posts == []
