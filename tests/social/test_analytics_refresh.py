"""A collection of metrics asked for now (social.md section 13): `POST
/api/social/analytics/refresh {accountId?, postId?}` queues the workspace's published records'
counters (202 `{queuedCount}`), each account at most once per 15 minutes (429 with
`Retry-After` when every account concerned was refreshed sooner)."""

from typing import Any

import pytest
from rest_framework.test import APIClient

from core import ratelimit
from social.models import AnalyticsRecord, ScheduledRecord
from tests.social.test_workspace_scoping import client_in

pytestmark = pytest.mark.django_db

PROVIDERS = {"linkedin", "facebook", "instagram", "bluesky", "mastodon", "devto"}


@pytest.fixture
def published(ada_client, providers, connect_all) -> dict[str, Any]:
    accounts = connect_all()
    response = ada_client.post(
        "/api/social/publish",
        {"content": "We shipped.", "title": "Launch", "mediaUrls": [providers.image()],
         "accountIds": [account["id"] for account in accounts.values()]},
        format="json",
    )  # fmt: skip
    assert all(entry["success"] for entry in response.json()["data"]), response.content
    return accounts


def refresh(client: Any, capture: Any, **body: Any) -> Any:
    with capture(execute=True):  # the task runs once the request's work is committed
        return client.post("/api/social/analytics/refresh", body, format="json")


def collected() -> dict[str, int]:
    return dict(AnalyticsRecord.objects.values_list("provider", "impressions"))


def test_a_refresh_collects_every_published_record_now_then_waits_15_minutes(
    ada_client, providers, published, django_capture_on_commit_callbacks
):
    response = refresh(ada_client, django_capture_on_commit_callbacks)
    assert response.status_code == 202, response.content
    assert response.json()["data"] == {"queuedCount": 6}
    assert set(collected()) == PROVIDERS
    assert collected()["linkedin"] == 120
    # Again at once: every account was refreshed less than 15 minutes ago.
    again = refresh(ada_client, django_capture_on_commit_callbacks)
    assert again.status_code == 429
    assert again.json()["error"]["code"] == "rate_limited"
    wait = int(again["Retry-After"])
    assert 0 < wait <= 900
    assert again.json()["error"]["details"] == {"retryAfter": wait}
    calls = len(providers.linkedin.received("GET", "/rest/memberCreatorPostAnalytics"))
    assert calls == 4  # the one refresh's reads; the refused one read nothing


def test_an_account_or_a_post_is_refreshed_on_its_own(
    ada_client, providers, published, django_capture_on_commit_callbacks
):
    linkedin = published["linkedin"]["id"]
    only = refresh(ada_client, django_capture_on_commit_callbacks, accountId=linkedin)
    assert (only.status_code, only.json()["data"]) == (202, {"queuedCount": 1})
    assert set(collected()) == {"linkedin"}
    assert (
        refresh(ada_client, django_capture_on_commit_callbacks, accountId=linkedin).status_code
        == 429
    )
    # The others were not refreshed: asking for all queues theirs and leaves LinkedIn's out.
    rest = refresh(ada_client, django_capture_on_commit_callbacks)
    assert (rest.status_code, rest.json()["data"]) == (202, {"queuedCount": 5})
    assert set(collected()) == PROVIDERS
    # A post of two accounts, once their 15 minutes have passed.
    post = ada_client.post(
        "/api/social/publish",
        {"content": "Second post.", "accountIds": [linkedin, published["mastodon"]["id"]]},
        format="json",
    ).json()["data"][0]["recordId"]
    post_id = str(ScheduledRecord.objects.get(pk=post).post_id)
    for provider in ("linkedin", "mastodon"):
        ratelimit.reset(f"metrics-refresh:{published[provider]['id']}")
    one_post = refresh(ada_client, django_capture_on_commit_callbacks, postId=post_id)
    assert (one_post.status_code, one_post.json()["data"]) == (202, {"queuedCount": 2})
    assert AnalyticsRecord.objects.filter(post_id=post_id).count() == 2


def test_nothing_published_queues_nothing(ada_client, providers, connect_all):
    accounts = connect_all()
    response = ada_client.post(
        "/api/social/analytics/refresh", {"accountId": accounts["bluesky"]["id"]}, format="json"
    )
    assert (response.status_code, response.json()["data"]) == (202, {"queuedCount": 0})
    assert ada_client.post("/api/social/analytics/refresh", {}, format="json").status_code == 202


def test_another_workspaces_account_or_post_is_404(
    ada_client, bob_client, providers, published, django_capture_on_commit_callbacks
):
    record = ScheduledRecord.objects.filter(provider="devto").get()
    for body in ({"accountId": published["devto"]["id"]}, {"postId": str(record.post_id)}):
        response = bob_client.post("/api/social/analytics/refresh", body, format="json")
        assert response.status_code == 404, body
    assert bob_client.post("/api/social/analytics/refresh", {"accountId": "x"}).status_code == 400
    assert not AnalyticsRecord.objects.exists()
    # Bob asking did not use up Ada's 15 minutes.
    assert refresh(ada_client, django_capture_on_commit_callbacks).status_code == 202


def test_an_api_key_needs_posts_write(ada_client, providers, published):
    def key(scopes: list[str]) -> APIClient:
        created = ada_client.post(
            "/api/auth/api-keys", {"name": "Refresh", "scopes": scopes}, format="json"
        )
        assert created.status_code in (200, 201), created.content
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {created.json()['data']['key']}")
        return client

    refused = key(["posts:read"]).post("/api/social/analytics/refresh", {}, format="json")
    assert refused.status_code == 403
    allowed = key(["posts:write"]).post("/api/social/analytics/refresh", {}, format="json")
    assert (allowed.status_code, allowed.json()["data"]) == (202, {"queuedCount": 6})


def test_a_member_who_may_only_read_cannot_ask(ada, bob, providers, published):
    from accounts.models import Membership, Workspace

    workspace = Workspace.objects.get(personal_user=ada)
    Membership.objects.create(workspace=workspace, user=bob, role="viewer")
    viewer = client_in(bob, workspace.pk)
    response = viewer.post("/api/social/analytics/refresh", {}, format="json")
    assert (response.status_code, response.json()["error"]["code"]) == (403, "permission_denied")
