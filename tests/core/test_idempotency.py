"""Idempotency-Key on every authenticated POST: the first response replayed, the same key with
another body refused, a repeat in flight refused, nothing done twice (social.md section 4)."""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiKey
from accounts.scopes import Scope
from accounts.services.users import user_create
from aitools.models import Generation
from billing.models import CreditTransaction
from core.idempotency import request_fingerprint
from core.models import IdempotencyRecord
from core.tasks import purge_idempotency_records_task
from notifications.models import WebhookEndpoint
from social.models import Post
from tests.factories import api_key_for, client_for, client_with_key

pytestmark = pytest.mark.django_db


def post(client: APIClient, path: str, body: dict[str, Any], key: str, **extra: Any) -> Any:
    return client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY=key, **extra)


def test_a_repeat_is_replayed_without_doing_the_work_again(ada_client):
    first = post(ada_client, "/api/social/posts", {"content": "Once"}, "key-1")
    again = post(ada_client, "/api/social/posts", {"content": "Once"}, "key-1")
    other_prefix = post(ada_client, "/api/v1/social/posts", {"content": "Once"}, "key-1")
    assert first.status_code == again.status_code == other_prefix.status_code == 200
    assert again.content == first.content == other_prefix.content
    assert "Idempotent-Replayed" not in first
    assert again["Idempotent-Replayed"] == "true"
    assert Post.objects.count() == 1


def test_the_same_key_with_another_body_is_422(ada_client):
    post(ada_client, "/api/social/posts", {"content": "Once"}, "key-1")
    response = post(ada_client, "/api/social/posts", {"content": "Twice"}, "key-1")
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "idempotency_key_reused"
    assert Post.objects.count() == 1


def test_a_repeat_while_the_first_runs_is_409_until_it_is_abandoned(ada_client, ada):
    fingerprint = request_fingerprint("POST", "/api/social/posts", b'{"content":"Once"}')
    IdempotencyRecord.objects.create(user=ada, key="key-1", fingerprint=fingerprint)
    response = post(ada_client, "/api/social/posts", {"content": "Once"}, "key-1")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "idempotency_key_in_progress"
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(hours=1))
    taken_over = post(ada_client, "/api/social/posts", {"content": "Once"}, "key-1")
    assert taken_over.status_code == 200
    assert Post.objects.count() == 1


def test_errors_are_replayed_too_and_keys_are_per_user(ada_client):
    bad = post(ada_client, "/api/social/posts", {"content": ""}, "key-1")
    assert bad.status_code == 400
    assert post(ada_client, "/api/social/posts", {"content": ""}, "key-1")[
        "Idempotent-Replayed"
    ] == ("true")
    grace = client_for(user_create(email="grace@example.com"))
    assert post(grace, "/api/social/posts", {"content": "Hers"}, "key-1").status_code == 200
    assert Post.objects.count() == 1


def test_a_bad_key_is_400_and_no_key_changes_nothing(ada_client):
    response = post(ada_client, "/api/social/posts", {"content": "x"}, "k" * 256)
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["error"]["details"]
    ada_client.post("/api/social/posts", {"content": "x"}, format="json")
    ada_client.post("/api/social/posts", {"content": "x"}, format="json")
    assert Post.objects.count() == 2
    assert not IdempotencyRecord.objects.exists()


def test_an_ai_call_repeated_with_its_key_is_charged_once(ada_client, ada):
    body = {"title": "Logo design", "description": "I design logos for bakeries."}
    first = post(ada_client, "/api/seo/audit", body, "audit-1")
    again = post(ada_client, "/api/seo/audit", body, "audit-1")
    assert first.status_code == 200
    assert again.content == first.content
    assert Generation.objects.count() == 1
    assert CreditTransaction.objects.filter(user=ada, delta__lt=0).count() == 1


def test_unauthenticated_requests_are_left_to_the_view(client):
    response = client.post(
        "/api/social/posts", {"content": "x"}, content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="key-1",
    )  # fmt: skip
    assert response.status_code == 401
    assert not IdempotencyRecord.objects.exists()


def test_records_are_purged_after_a_day(ada_client):
    post(ada_client, "/api/social/posts", {"content": "x"}, "key-1")
    purge_idempotency_records_task.delay()
    assert IdempotencyRecord.objects.count() == 1
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(hours=25))
    assert purge_idempotency_records_task.delay().get() == 1
    assert not IdempotencyRecord.objects.exists()


def test_a_revoked_session_gets_no_replay(ada):
    from accounts.services.sessions import session_issue

    session = session_issue(user=ada)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {session.token}")
    assert post(client, "/api/social/posts", {"content": "Once"}, "key-r").status_code == 200
    everywhere = client.post("/api/auth/logout", {"refreshToken": session.refresh_token,
                             "everywhere": True}, format="json")  # fmt: skip
    assert everywhere.status_code == 200
    again = post(client, "/api/social/posts", {"content": "Once"}, "key-r")
    assert again.status_code == 401
    assert "Idempotent-Replayed" not in again


def test_a_stored_answer_carrying_a_secret_is_encrypted_at_rest(ada_client, settings):
    settings.OUTBOUND_ALLOW_PRIVATE = True
    body = {"url": "https://127.0.0.1:9/hook", "events": ["post.published"]}
    first = post(ada_client, "/api/webhooks/endpoints", body, "key-s")
    secret = first.json()["data"]["secret"]
    stored = bytes(IdempotencyRecord.objects.get(key="key-s").body)
    assert secret.encode() not in stored
    assert b"whsec_" not in stored
    again = post(ada_client, "/api/webhooks/endpoints", body, "key-s")
    assert again["Idempotent-Replayed"] == "true"
    assert again.json()["data"]["secret"] == secret


def test_an_upload_over_a_megabyte_takes_an_idempotency_key(ada_client, settings, tmp_path):
    import io

    from django.core.files.uploadedfile import SimpleUploadedFile
    from PIL import Image

    from social.models import MediaItem

    settings.MEDIA_ROOT = str(tmp_path)
    buffer = io.BytesIO()
    Image.effect_noise((700, 700), 90).convert("RGB").save(buffer, "PNG")  # noise: no compression
    data = buffer.getvalue()
    assert len(data) > settings.API_MAX_BODY_BYTES

    def upload() -> Any:
        return ada_client.post("/api/social/media", {"file": SimpleUploadedFile("n.png", data)},
                               format="multipart", HTTP_IDEMPOTENCY_KEY="key-u")  # fmt: skip

    first = upload()
    assert first.status_code == 200, first.content
    again = upload()
    assert again["Idempotent-Replayed"] == "true"
    assert again.json()["data"]["id"] == first.json()["data"]["id"]
    assert MediaItem.objects.count() == 1


# A stored answer is replayed only to a caller the route itself would let in now: the same
# authentication, permissions and API-key scopes as the view applies, checked first.
WEBHOOK = {"url": "https://127.0.0.1:9/hook", "events": ["post.published"]}


def test_a_key_without_the_route_s_scope_gets_its_refusal_not_a_webhook_secret(ada, settings):
    settings.OUTBOUND_ALLOW_PRIVATE = True
    full = client_with_key(api_key_for(ada, *Scope.values))
    first = post(full, "/api/webhooks/endpoints", WEBHOOK, "key-w")
    assert first.status_code == 200
    reader = client_with_key(api_key_for(ada, "posts:read"), header="Authorization")
    replayed = post(reader, "/api/webhooks/endpoints", WEBHOOK, "key-w")
    assert replayed.status_code == 403
    assert replayed.json()["error"]["code"] == "insufficient_scope"
    assert "Idempotent-Replayed" not in replayed
    assert b"whsec_" not in replayed.content
    assert WebhookEndpoint.objects.count() == 1


def test_a_key_gets_no_replay_of_a_new_key_made_by_a_session(ada, ada_client):
    body = {"name": "Zapier", "scopes": ["posts:read"]}
    first = post(ada_client, "/api/auth/api-keys", body, "key-k")
    assert first.status_code == 200
    reader = client_with_key(api_key_for(ada, "posts:read"))
    replayed = post(reader, "/api/auth/api-keys", body, "key-k")
    assert replayed.status_code == 403
    assert replayed.json()["error"]["code"] == "permission_denied"
    assert first.json()["data"]["key"].encode() not in replayed.content
    assert ApiKey.objects.filter(user=ada).count() == 2  # the session's and the reader


def test_a_key_gets_no_replay_of_a_session_s_tokens(ada, ada_client):
    first = post(ada_client, "/api/auth/login", {"email": ada.email}, "key-t")
    assert first.status_code == 200
    tokens = first.json()["data"]
    reader = client_with_key(api_key_for(ada, *Scope.values))
    replayed = post(reader, "/api/auth/login", {"email": ada.email}, "key-t")
    assert replayed.status_code == 403
    assert tokens["token"].encode() not in replayed.content
    assert tokens["refreshToken"].encode() not in replayed.content


def test_another_user_s_key_never_gets_a_replay(ada, bob, settings):
    settings.OUTBOUND_ALLOW_PRIVATE = True
    first = post(client_with_key(api_key_for(ada, "webhooks:write")),
                 "/api/webhooks/endpoints", WEBHOOK, "key-o")  # fmt: skip
    bobs = post(client_with_key(api_key_for(bob, "webhooks:write")),
                "/api/webhooks/endpoints", WEBHOOK, "key-o")  # fmt: skip
    assert (first.status_code, bobs.status_code) == (200, 200)
    assert "Idempotent-Replayed" not in bobs
    assert bobs.json()["data"]["secret"] != first.json()["data"]["secret"]
    assert set(WebhookEndpoint.objects.values_list("user__email", flat=True)) == {
        "ada@example.com", "bob@example.com"
    }  # fmt: skip


def test_a_key_with_the_route_s_scope_is_replayed_its_owner_s_answer(ada, settings):
    settings.OUTBOUND_ALLOW_PRIVATE = True
    first = post(client_with_key(api_key_for(ada, "webhooks:write")),
                 "/api/webhooks/endpoints", WEBHOOK, "key-a")  # fmt: skip
    again = post(client_with_key(api_key_for(ada, "webhooks:write", name="second")),
                 "/api/webhooks/endpoints", WEBHOOK, "key-a")  # fmt: skip
    assert again["Idempotent-Replayed"] == "true"
    assert again.content == first.content
    assert WebhookEndpoint.objects.count() == 1
