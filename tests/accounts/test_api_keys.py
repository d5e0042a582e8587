"""API keys through HTTP: created, listed and revoked with a session; used with either header
within their scopes; refused (and nothing done) outside them, when revoked, expired or unknown."""

import hashlib
import re
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiKey, Workspace
from accounts.services.sessions import session_issue
from notifications.models import Notification
from social.models import Post
from tests.factories import api_key_for, client_with_key

pytestmark = pytest.mark.django_db

KEY_SHAPE = re.compile(r"fgp_[A-Za-z0-9_-]{40}")
HEADERS = ("X-API-Key", "Authorization")
INVALID = {
    "success": False,
    "message": "Unauthorized: Session expired or invalid",
    "error": {"code": "invalid_token", "details": {}},
}
REFUSED = {
    "success": False,
    "message": "API keys cannot be used here; sign in instead.",
    "error": {"code": "permission_denied", "details": {}},
}


def iso(moment: Any) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None


def create(client: APIClient, **body: Any) -> Any:
    return client.post("/api/auth/api-keys", {"name": "Zapier", "scopes": ["posts:read"], **body})


def test_a_key_is_shown_once_and_stored_as_its_hash(ada_client, ada):
    response = create(
        ada_client, name="Zapier: Notion to posts", scopes=["posts:write", "posts:read"]
    )
    assert response.status_code == 200, response.content
    body = response.json()
    key = ApiKey.objects.get()
    secret = body["data"]["key"]
    assert KEY_SHAPE.fullmatch(secret)
    assert (
        body
        == {
            "success": True,
            "message": "API key created. Copy it now: it is not shown again.",
            "data": {
                "id": str(key.pk),
                "workspaceId": str(Workspace.objects.get(personal_user=ada).pk),  # the default
                "name": "Zapier: Notion to posts",
                "prefix": secret[:12],
                "scopes": ["posts:read", "posts:write"],  # one order, whatever the request's
                "created_at": iso(key.created_at),
                "expires_at": None,
                "last_used_at": None,
                "key": secret,
            },
        }
    )
    assert key.key_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in str(ApiKey.objects.values().get())
    listed = ada_client.get("/api/auth/api-keys").json()
    assert listed == {
        "success": True,
        "data": [{k: v for k, v in body["data"].items() if k != "key"}],
    }


def test_creation_notifies_the_owner(ada_client, ada):
    create(ada_client, name="Make scenario", scopes=["ai:write"])
    key = ApiKey.objects.get()
    notification = Notification.objects.get(user=ada)
    assert (notification.type, notification.category) == ("system_alert", "System")
    assert notification.title == "New API key created"
    assert '"Make scenario"' in notification.message
    assert key.prefix in notification.message
    assert 'in the workspace "Personal"' in notification.message
    assert notification.metadata == {
        "apiKeyId": str(key.pk),
        "workspaceId": str(key.workspace_id),
        "name": "Make scenario",
        "prefix": key.prefix,
        "scopes": ["ai:write"],
    }


@pytest.mark.parametrize(
    ("body", "details"),
    [
        ({"scopes": []}, {"scopes": ["Ensure this field has at least 1 elements."]}),
        ({"scopes": ["posts:admin"]}, {"scopes": {"0": ['"posts:admin" is not a valid choice.']}}),
        ({"name": ""}, {"name": ["This field may not be blank."]}),
        ({"name": "x" * 81}, {"name": ["Ensure this field has no more than 80 characters."]}),
        ({"name": "<b>me</b>"}, {"name": ["Use plain text: no < or > and no control characters."]}),
        ({"expiresAt": "2001-01-01T00:00:00Z"}, {"expiresAt": ["Must be in the future."]}),
        ({"expiresAt": "soon"}, {"expiresAt": [
            "Datetime has wrong format. Use one of these formats instead: "
            "YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."]}),
    ],
)  # fmt: skip
def test_bad_requests_are_400_and_create_nothing(ada_client, body, details):
    response = create(ada_client, **body)
    assert response.status_code == 400
    assert response.json()["error"] == {"code": "validation_error", "details": details}
    assert not ApiKey.objects.exists()
    assert not Notification.objects.exists()


def test_an_expiry_is_kept_and_shown(ada_client):
    when = timezone.now() + timedelta(days=30)
    response = create(ada_client, expiresAt=when.isoformat())
    assert response.json()["data"]["expires_at"] == iso(when)


def test_at_most_twenty_live_keys(ada_client, ada):
    for number in range(20):
        assert create(ada_client, name=f"key {number}").status_code == 200
    refused = create(ada_client, name="one too many")
    assert refused.status_code == 409
    assert refused.json()["error"] == {"code": "api_key_limit_reached", "details": {"limit": 20}}
    assert ApiKey.objects.count() == 20
    # A revoked key, or an expired one, frees its place.
    first = ApiKey.objects.order_by("created_at").first()
    assert first is not None
    assert ada_client.delete(f"/api/auth/api-keys/{first.pk}").status_code == 200
    assert create(ada_client, name="in its place").status_code == 200
    live = ApiKey.objects.filter(revoked_at=None).values_list("pk", flat=True)[:1]
    ApiKey.objects.filter(pk__in=list(live)).update(
        created_at=timezone.now() - timedelta(days=2), expires_at=timezone.now() - timedelta(days=1)
    )
    assert create(ada_client, name="after an expiry").status_code == 200


@pytest.mark.parametrize("header", HEADERS)
def test_a_key_creates_a_post_and_reads_analytics_within_its_scopes(ada, header):
    client = client_with_key(api_key_for(ada, "posts:read", "posts:write"), header=header)
    created = client.post("/api/social/posts", {"title": "From Zapier", "content": "Hello"})
    assert created.status_code == 200, created.content
    post = Post.objects.get()
    assert (post.user_id, post.title) == (ada.pk, "From Zapier")
    analytics = client.get("/api/social/analytics")
    assert analytics.status_code == 200
    assert analytics.json() == {"success": True, "data": []}
    assert client.get("/api/v1/social/posts").json()["data"][0]["id"] == str(post.pk)


@pytest.mark.parametrize("header", HEADERS)
def test_a_missing_scope_is_403_naming_it_and_changes_nothing(ada, header):
    client = client_with_key(api_key_for(ada, "posts:read"), header=header)
    response = client.post("/api/social/posts", {"content": "Hello"})
    assert response.status_code == 403
    assert response.json() == {
        "success": False,
        "message": "This API key lacks the scope this operation needs.",
        "error": {
            "code": "insufficient_scope",
            "details": {"required": "posts:write", "granted": ["posts:read"]},
        },
    }
    assert not Post.objects.exists()
    assert client.get("/api/notifications").json()["error"]["details"]["required"] == (
        "notifications:read"
    )


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", "/api/auth/api-keys", None),
        ("post", "/api/auth/api-keys", {"name": "escalate", "scopes": ["ai:write"]}),
        ("patch", "/api/auth/me", {"fullName": "Mallory"}),
        ("delete", "/api/auth/me", {}),
        ("post", "/api/auth/login", {"email": "ada@example.com"}),
        ("post", "/api/auth/logout", {"refreshToken": "x"}),
        ("get", "/api/credits/transactions", None),
        ("post", "/api/social/connect", {"provider": "devto", "code": "k"}),
        ("post", "/api/social/disconnect", {"accountId": "0c4b1e9e-8d8f-4f0e-9c83-2f7d9d3b5a61"}),
        ("get", "/api/social/settings", None),
        ("post", "/api/events/ticket", None),
    ],
)
def test_routes_outside_every_scope_refuse_any_key(ada, method, path, body):
    every = ("posts:read", "posts:write", "accounts:read", "ai:write", "notifications:read",
             "notifications:write", "webhooks:write")  # fmt: skip
    client = client_with_key(api_key_for(ada, *every))
    response = getattr(client, method)(path, body, format="json")
    assert (response.status_code, response.json()) == (403, REFUSED)
    ada.refresh_from_db()
    assert (ada.full_name, ada.is_active, ApiKey.objects.count()) == ("Ada", True, 1)


def test_any_key_reads_its_owner_profile(ada):
    response = client_with_key(api_key_for(ada, "notifications:read")).get("/api/auth/me")
    assert response.status_code == 200
    assert response.json()["data"]["email"] == "ada@example.com"


def test_a_key_sees_only_its_owner_data(ada, bob):
    bob_post = client_with_key(api_key_for(bob, "posts:write")).post(
        "/api/social/posts", {"content": "Bob's"}
    )
    ada_key = client_with_key(api_key_for(ada, "posts:read"))
    assert ada_key.get(f"/api/social/posts/{bob_post.json()['data']['id']}").status_code == 404
    assert ada_key.get("/api/social/posts").json()["data"] == []


def test_revoked_at_once_and_only_by_its_owner(ada_client, bob_client, ada):
    secret = create(ada_client, scopes=["posts:read"]).json()["data"]["key"]
    key = ApiKey.objects.get()
    client = client_with_key(secret)
    assert client.get("/api/social/posts").status_code == 200
    # Another user cannot revoke it (nor learn it exists); a key cannot revoke itself.
    assert bob_client.delete(f"/api/auth/api-keys/{key.pk}").status_code == 404
    assert client.delete(f"/api/auth/api-keys/{key.pk}").status_code == 403
    assert client.get("/api/social/posts").status_code == 200
    revoked = ada_client.delete(f"/api/auth/api-keys/{key.pk}")
    assert revoked.json() == {
        "success": True,
        "message": "API key revoked",
        "data": {"success": True},
    }
    for header in HEADERS:
        response = client_with_key(secret, header=header).get("/api/social/posts")
        assert (response.status_code, response.json()) == (401, INVALID)
    assert ada_client.get("/api/auth/api-keys").json()["data"] == []
    assert ada_client.delete(f"/api/auth/api-keys/{key.pk}").status_code == 404  # once


@pytest.mark.parametrize(
    "credentials",
    [
        {"HTTP_X_API_KEY": "fgp_" + "A" * 40},  # well formed, unknown
        {"HTTP_X_API_KEY": "fgp_short"},
        {"HTTP_X_API_KEY": ""},
        {"HTTP_AUTHORIZATION": "Bearer fgp_" + "A" * 40},
    ],
)
def test_an_unknown_or_malformed_key_is_401(db, credentials):
    client = APIClient()
    client.credentials(**credentials)
    response = client.get("/api/social/posts")
    assert (response.status_code, response.json()) == (401, INVALID)
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


def test_an_expired_key_or_an_inactive_owner_is_401(ada, bob):
    expiring = api_key_for(ada, "posts:read")
    ApiKey.objects.update(
        created_at=timezone.now() - timedelta(days=2), expires_at=timezone.now() - timedelta(1)
    )
    assert client_with_key(expiring).get("/api/social/posts").status_code == 401
    bobs = api_key_for(bob, "posts:read")
    bob.is_active = False
    bob.save(update_fields=["is_active"])
    assert client_with_key(bobs).get("/api/social/posts").status_code == 401


def test_a_key_and_a_session_together_are_401(ada):
    client = APIClient()
    client.credentials(
        HTTP_AUTHORIZATION=f"Bearer {session_issue(user=ada).token}",
        HTTP_X_API_KEY=api_key_for(ada, "posts:read"),
    )
    assert (client.get("/api/social/posts").status_code, Post.objects.count()) == (401, 0)


def _key_writes(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if q["sql"].startswith("UPDATE")]


def test_last_use_is_written_at_most_once_a_minute(ada, ada_client):
    client = client_with_key(api_key_for(ada, "posts:read"))
    with CaptureQueriesContext(connection) as first:
        assert client.get("/api/social/posts").status_code == 200
    assert len(_key_writes(first)) == 1
    used = ApiKey.objects.get().last_used_at
    assert used is not None
    assert ada_client.get("/api/auth/api-keys").json()["data"][0]["last_used_at"] == iso(used)
    with CaptureQueriesContext(connection) as again:
        for _ in range(5):
            assert client.get("/api/social/posts").status_code == 200
    assert _key_writes(again) == []  # the key's row is read with it: no write needed
    ApiKey.objects.update(last_used_at=used - timedelta(seconds=61))
    client.get("/api/social/posts")
    later = ApiKey.objects.get().last_used_at
    assert later is not None
    assert later > used


def test_each_key_has_its_own_rate_limit(ada, ada_client, settings):
    settings.API_KEY_RATE_LIMIT_PER_MINUTE = 2
    first = client_with_key(api_key_for(ada, "posts:read", "posts:write", name="first"))
    second = client_with_key(api_key_for(ada, "posts:read", name="second"))
    assert [first.get("/api/social/posts").status_code for _ in range(2)] == [200, 200]
    limited = first.post("/api/social/posts", {"content": "one too many"})
    assert limited.status_code == 429
    assert limited.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(limited["Retry-After"]) <= 60
    assert not Post.objects.exists()
    # Another key of the same user, and the user's session, count on their own.
    assert second.get("/api/social/posts").status_code == 200
    assert [ada_client.get("/api/social/posts").status_code for _ in range(3)] == [200] * 3


def test_a_key_repeats_a_post_safely_with_an_idempotency_key(ada):
    client = client_with_key(api_key_for(ada, "posts:write"), header="Authorization")
    first = client.post("/api/social/posts", {"content": "Once"}, HTTP_IDEMPOTENCY_KEY="zap-1")
    again = client.post("/api/social/posts", {"content": "Once"}, HTTP_IDEMPOTENCY_KEY="zap-1")
    assert (first.status_code, again.status_code) == (200, 200)
    assert again["Idempotent-Replayed"] == "true"
    assert Post.objects.count() == 1


def test_the_list_is_the_owner_s_sorted_and_paginated(ada_client, bob):
    api_key_for(bob, "posts:read", name="bob's")
    for name in ("b", "a", "c"):
        create(ada_client, name=name)
    names = [
        k["name"] for k in ada_client.get("/api/auth/api-keys?sort=name&order=asc").json()["data"]
    ]
    assert names == ["a", "b", "c"]
    page = ada_client.get("/api/auth/api-keys", {"page": 1, "limit": 2}).json()
    assert page["meta"] == {"total": 3, "page": 1, "limit": 2, "totalPages": 2, "hasMore": True}
