"""Idempotency-Key on every authenticated POST: the first response replayed, the same key with
another body refused, a repeat in flight refused, nothing done twice (social.md section 4)."""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.idempotency import request_fingerprint
from accounts.models import IdempotencyRecord
from accounts.services.users import user_create
from accounts.tasks import purge_idempotency_records_task
from aitools.models import Generation
from billing.models import CreditTransaction
from social.models import Post
from tests.factories import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada():
    return user_create(email="ada@example.com")


@pytest.fixture
def ada_client(ada):
    return client_for(ada)


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
