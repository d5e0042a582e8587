"""Outcomes users can act on, through HTTP (social.md section 12): the error object on records
and publish results, a record's history, retrying one failed record and every failed record a
filter matches, resolving an unconfirmed record three ways; each action refused in the wrong
state, done once, and seen by webhooks (the outbox) and the live feed."""

from typing import Any

import pytest

from core.times import iso
from notifications.models import LiveEvent, Notification, OutboxEvent
from social.models import ScheduledRecord, SocialAccount, SocialSettings
from tests.social.conftest import connect
from tests.social.test_scheduler import make_due, record, run, schedule

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]


def detail(client: Any, record_id: str) -> dict[str, Any]:
    response = client.get(f"/api/social/schedule/{record_id}")
    assert response.status_code == 200, response.content
    return dict(response.json()["data"])


def events_of(name: str) -> list[dict[str, Any]]:
    return [e.data for e in OutboxEvent.objects.filter(event=name).order_by("sequence")]


def live_types() -> list[str]:
    return [e.data["type"] for e in LiveEvent.objects.filter(kind="event").order_by("id")]


# --- The error object and the history ---------------------------------------------------------


def test_an_expired_token_says_what_happened_and_what_to_do(
    client, ada_client, ada_accounts, providers
):
    (record_id,) = schedule(ada_client, ada_accounts, "linkedin")
    providers.linkedin.expired = True
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]) == (
        "Failed",
        {
            "code": "account_expired",
            "category": "auth_expired",
            "message": "LinkedIn refused the access token: reconnect the account.",
            "remedy": "Reconnect your LinkedIn account, then retry the post.",
            "retryable": True,
            "platform": {"status": 401, "code": "65602",
                         "message": "The token used in the request has expired"},
        },
    )  # fmt: skip
    shown = detail(ada_client, record_id)
    assert shown["error"] == result["error"]
    (attempt,) = shown["history"]
    assert set(attempt) == {"attempt", "at", "outcome", "error"}
    assert (attempt["attempt"], attempt["outcome"]) == (1, "error")
    assert attempt["error"] == {**result["error"], "code": "account_expired"}
    # The event says it too, beside the specification's string.
    (failed,) = events_of("post.failed")
    assert failed["error"] == "LinkedIn refused the access token: reconnect the account."
    assert failed["errorDetail"] == result["error"]


def test_a_transient_failure_waits_and_says_nothing_is_to_be_done(
    ada_client, ada_accounts, providers
):
    providers.devto.fail = "down"
    response = ada_client.post(
        "/api/social/publish",
        {"title": "T", "content": "Hello", "accountIds": [ada_accounts["devto"]["id"]]},
        format="json",
    )
    (entry,) = response.json()["data"]
    error = entry["error"]
    assert (entry["success"], entry["status"]) == (False, "Scheduled")
    assert {k: error[k] for k in ("code", "category", "retryable", "remedy")} == {
        "code": "retry_scheduled",
        "category": "platform_outage",
        "retryable": True,
        "remedy": "Nothing to do: we try again shortly.",
    }
    assert error["platform"] == {"status": 503, "code": "ServiceUnavailable",
                                 "message": "ServiceUnavailable"}  # fmt: skip
    assert error["retryAt"] == iso(record(entry["recordId"]).next_attempt_at)
    assert detail(ada_client, entry["recordId"])["error"] == error


def test_a_rejected_post_must_change_before_it_is_published_again(
    client, ada_client, ada_accounts, providers
):
    providers.mastodon.max_characters = 10  # the instance refuses what our limits let through
    schedule(ada_client, ada_accounts, "mastodon", content="Short")
    providers.mastodon.scripted.append(
        ("POST", r"/api/v1/statuses",
         (422, {"error": "Validation failed: Text character limit of 10 exceeded"}, {}))
    )  # fmt: skip
    result = run(client).json()["data"]["results"][0]
    assert result["status"] == "Failed"
    assert result["error"] == {
        "code": "provider_rejected",
        "category": "content_rejected",
        "message": "The server rejected the request (HTTP 422).",
        "remedy": "Shorten the post to your instance's character limit.",
        "retryable": False,
        "platform": {"status": 422, "code": None,
                     "message": "Validation failed: Text character limit of 10 exceeded"},
    }  # fmt: skip


def test_a_record_with_nothing_wrong_has_no_error(ada_client, ada_accounts, providers, client):
    (record_id,) = schedule(ada_client, ada_accounts, "mastodon")
    assert detail(ada_client, record_id)["error"] is None
    run(client)
    shown = detail(ada_client, record_id)
    assert (shown["status"], shown["error"]) == ("Published", None)
    assert [(h["attempt"], h["outcome"], h["found"]) for h in shown["history"]] == [
        (1, "published", False)
    ]


def test_another_users_record_is_404(ada_client, bob_client, ada_accounts, providers):
    (record_id,) = schedule(ada_client, ada_accounts, "mastodon")
    for response in (
        bob_client.get(f"/api/social/schedule/{record_id}"),
        bob_client.post(f"/api/social/schedule/{record_id}/retry"),
        bob_client.post(f"/api/social/schedule/{record_id}/resolve", {"action": "abandon"},
                        format="json"),
    ):  # fmt: skip
        assert response.status_code == 404
    assert record(record_id).status == "Scheduled"


# --- Retry ----------------------------------------------------------------------------------------


def expired_failure(client: Any, ada_client: Any, ada_accounts: Any, providers: Any) -> str:
    (record_id,) = schedule(ada_client, ada_accounts, "linkedin")
    providers.linkedin.expired = True
    assert run(client).json()["data"]["results"][0]["status"] == "Failed"
    assert SocialAccount.objects.get(provider="linkedin").status == "expired"
    providers.linkedin.expired = False
    return record_id


def test_a_failed_record_is_retried_after_a_reconnect(client, ada_client, ada_accounts, providers):
    record_id = expired_failure(client, ada_client, ada_accounts, providers)
    refused = ada_client.post(f"/api/social/schedule/{record_id}/retry")
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "account_not_connected")
    assert record(record_id).status == "Failed"  # nothing changed
    assert connect(ada_client, "linkedin").status_code == 200
    scheduled_before = len(events_of("post.scheduled"))
    response = ada_client.post(f"/api/social/schedule/{record_id}/retry")
    assert response.status_code == 200, response.content
    shown = response.json()["data"]
    assert (shown["status"], shown["attempts"], shown["error"]) == ("Scheduled", 0, None)
    assert [h["outcome"] for h in shown["history"]] == ["error", "retried"]
    # Seen by webhooks (post.scheduled, due now) and by the live feed (the post's status).
    assert len(events_of("post.scheduled")) == scheduled_before + 1
    assert events_of("post.scheduled")[-1]["accountIds"] == [ada_accounts["linkedin"]["id"]]
    post = LiveEvent.objects.filter(kind="post").order_by("-id").first()
    assert post is not None
    assert post.data["scheduledRecords"][0]["status"] == "Scheduled"
    # A repeat finds it waiting: 409, nothing done twice.
    again = ada_client.post(f"/api/social/schedule/{record_id}/retry")
    assert (again.status_code, again.json()["error"]["code"]) == (409, "not_failed")
    assert len(events_of("post.scheduled")) == scheduled_before + 1
    result = run(client).json()["data"]["results"][0]
    assert (result["id"], result["status"]) == (record_id, "Published")
    assert len(providers.linkedin.posts) == 1


def test_a_retry_is_replayed_for_the_same_idempotency_key(
    client, ada_client, ada_accounts, providers
):
    record_id = expired_failure(client, ada_client, ada_accounts, providers)
    connect(ada_client, "linkedin")
    first = ada_client.post(f"/api/social/schedule/{record_id}/retry", HTTP_IDEMPOTENCY_KEY="k1")
    second = ada_client.post(f"/api/social/schedule/{record_id}/retry", HTTP_IDEMPOTENCY_KEY="k1")
    assert (first.status_code, second.status_code) == (200, 200)
    assert second.headers["Idempotent-Replayed"] == "true"
    assert second.json() == first.json()
    assert [h["outcome"] for h in record(record_id).history] == ["error", "retried"]


def test_only_a_failed_record_is_retried(client, ada_client, ada_accounts, providers):
    (waiting,) = schedule(ada_client, ada_accounts, "mastodon")
    response = ada_client.post(f"/api/social/schedule/{waiting}/retry")
    assert (response.status_code, response.json()["error"]) == (
        409,
        {"code": "not_failed", "details": {"status": "Scheduled"}},
    )
    run(client)
    response = ada_client.post(f"/api/social/schedule/{waiting}/retry")
    assert response.json()["error"]["details"] == {"status": "Published"}
    assert record(waiting).history[-1]["outcome"] == "published"


def test_retry_by_filter(client, ada_client, ada_accounts, providers):
    expired = expired_failure(client, ada_client, ada_accounts, providers)
    providers.mastodon.scripted.append(
        ("POST", r"/api/v1/statuses", (422, {"error": "Validation failed: Text can't be "
                                             "blank"}, {}))
    )  # fmt: skip
    (rejected,) = schedule(ada_client, ada_accounts, "mastodon")
    run(client)
    assert record(rejected).status == "Failed"
    # Before the reconnect the expired account's record is skipped, and named.
    response = ada_client.post(
        "/api/social/schedule/retry", {"category": "auth_expired"}, format="json"
    )
    assert response.json()["data"] == {
        "retriedCount": 0,
        "skipped": [{"recordId": expired, "reason": "account_not_connected"}],
    }
    connect(ada_client, "linkedin")
    response = ada_client.post(
        "/api/social/schedule/retry", {"category": "auth_expired"}, format="json"
    )
    assert response.json()["data"] == {"retriedCount": 1, "skipped": []}
    assert (record(expired).status, record(rejected).status) == ("Scheduled", "Failed")
    # The rest by account; then nothing is left to retry.
    response = ada_client.post(
        "/api/social/schedule/retry",
        {"accountId": ada_accounts["mastodon"]["id"]},
        format="json",
    )
    assert response.json()["data"] == {"retriedCount": 1, "skipped": []}
    again = ada_client.post("/api/social/schedule/retry", {}, format="json")
    assert again.json()["data"] == {"retriedCount": 0, "skipped": []}
    results = {r["id"]: r["status"] for r in run(client).json()["data"]["results"]}
    assert results == {expired: "Published", rejected: "Published"}


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"category": "bad_luck"}, 400, "category"),
        ({"accountId": "not-a-uuid"}, 400, "accountId"),
        ({"accountId": "00000000-0000-0000-0000-000000000000"}, 404, None),
        ({"postId": "00000000-0000-0000-0000-000000000000"}, 404, None),
    ],
)
def test_retry_by_filter_refuses_bad_input(
    client, ada_client, ada_accounts, providers, body, status, field
):
    record_id = expired_failure(client, ada_client, ada_accounts, providers)
    connect(ada_client, "linkedin")
    response = ada_client.post("/api/social/schedule/retry", body, format="json")
    assert response.status_code == status
    if field:
        assert field in response.json()["error"]["details"]
    assert record(record_id).status == "Failed"


# --- Resolve ------------------------------------------------------------------------------------


@pytest.fixture
def unconfirmed(client, ada_client, ada, ada_accounts, providers, settings) -> str:
    """A Dev.to record whose only attempt timed out after the platform did the work, with
    autoRetry off: Unconfirmed (the article exists at Dev.to)."""
    settings.SOCIAL_HTTP_TIMEOUT_SECONDS = 0.5
    accounts = ada_accounts
    SocialSettings.objects.create(workspace=ada.personal_workspace, auto_retry=False)
    (record_id,) = schedule(ada_client, accounts, "devto")
    providers.devto.fail, providers.devto.hang = "timeout", 0.8
    result = run(client).json()["data"]["results"][0]
    assert result["status"] == "Unconfirmed"
    assert result["error"]["category"] == "unconfirmed"
    assert providers.devto.wait_idle()
    providers.devto.fail = ""
    return record_id


def test_an_unconfirmed_record_resolved_as_published(ada_client, providers, unconfirmed):
    record_id = unconfirmed
    (event,) = events_of("post.unconfirmed")
    assert event["errorDetail"]["category"] == "unconfirmed"
    assert event["errorDetail"]["remedy"].startswith("Check your DEV Community profile")
    notices = Notification.objects.count()
    url = providers.devto.posts[0]["url"]
    response = ada_client.post(
        f"/api/social/schedule/{record_id}/resolve",
        {"action": "published", "url": url},
        format="json",
    )
    assert response.status_code == 200, response.content
    shown = response.json()["data"]
    assert (shown["status"], shown["url"], shown["error"]) == ("Published", url, None)
    assert shown["history"][-1] == {
        "attempt": None, "at": shown["history"][-1]["at"], "outcome": "resolved",
        "action": "published", "url": url, "by": "user",
    }  # fmt: skip
    assert ada_client.get(f"/api/social/posts/{shown['postId']}").json()["data"]["status"] == (
        "Published"
    )
    (published,) = events_of("post.published")
    assert (published["recordId"], published["postUrl"]) == (record_id, url)
    assert Notification.objects.count() == notices  # the user did it: no notification
    assert "post.published" in live_types()
    again = ada_client.post(
        f"/api/social/schedule/{record_id}/resolve",
        {"action": "published", "url": url},
        format="json",
    )
    assert (again.status_code, again.json()["error"]["code"]) == (409, "not_unconfirmed")
    assert len(events_of("post.published")) == 1


def test_an_unconfirmed_record_resolved_by_retry_is_found_not_sent_again(
    client, ada_client, providers, unconfirmed
):
    record_id = unconfirmed
    response = ada_client.post(
        f"/api/social/schedule/{record_id}/resolve", {"action": "retry"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert (response.json()["data"]["status"], response.json()["data"]["attempts"]) == (
        "Scheduled",
        0,
    )
    assert record(record_id).outcome_unknown is True
    make_due([record_id])
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["success"]) == ("Published", True)
    assert len(providers.devto.posts) == 1  # looked up and found: not created twice
    assert record(record_id).history[-1]["found"] is True


def test_an_unconfirmed_record_abandoned_then_retried(client, ada_client, providers, unconfirmed):
    record_id = unconfirmed
    missing = ada_client.post(
        f"/api/social/schedule/{record_id}/resolve", {"action": "published"}, format="json"
    )
    assert (missing.status_code, list(missing.json()["error"]["details"])) == (400, ["url"])
    response = ada_client.post(
        f"/api/social/schedule/{record_id}/resolve", {"action": "abandon"}, format="json"
    )
    shown = response.json()["data"]
    assert (shown["status"], shown["error"]["code"], shown["error"]["category"]) == (
        "Failed",
        "abandoned",
        "unconfirmed",
    )
    assert shown["error"]["message"] == "You marked the post as not published on DEV Community."
    assert events_of("post.failed")[-1]["errorDetail"]["code"] == "abandoned"
    wrong = ada_client.post(
        f"/api/social/schedule/{record_id}/resolve", {"action": "retry"}, format="json"
    )
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (409, "not_unconfirmed")
    # Abandoned, it can still be retried: looked up first, so never published twice.
    assert ada_client.post(f"/api/social/schedule/{record_id}/retry").status_code == 200
    assert record(record_id).outcome_unknown is True
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert len(providers.devto.posts) == 1


def test_resolve_refuses_an_unknown_action(client, ada_client, ada_accounts, providers):
    (record_id,) = schedule(ada_client, ada_accounts, "mastodon")
    response = ada_client.post(
        f"/api/social/schedule/{record_id}/resolve", {"action": "shrug"}, format="json"
    )
    assert (response.status_code, list(response.json()["error"]["details"])) == (400, ["action"])
    refused = ada_client.post(
        f"/api/social/schedule/{record_id}/resolve", {"action": "abandon"}, format="json"
    )
    assert (refused.status_code, refused.json()["error"]["details"]) == (
        409,
        {"status": "Scheduled"},
    )
    assert ScheduledRecord.objects.get(pk=record_id).status == "Scheduled"


# --- A platform's refusal of a duplicate --------------------------------------------------------


def test_a_refused_duplicate_is_rejected_not_adopted_from_another_post(
    ada_client, ada_accounts, providers
):
    """Two posts with the same text to one LinkedIn account: LinkedIn refuses the second
    (422 DUPLICATE_POST). The second record has made nothing, so it is a permanent refusal,
    never the first post's URL under the second record."""
    body = {"content": "Same words twice", "accountIds": [ada_accounts["linkedin"]["id"]]}
    first = ada_client.post("/api/social/publish", body, format="json").json()["data"][0]
    assert (first["success"], first["status"]) == (True, "Published")
    response = ada_client.post("/api/social/publish", body, format="json")
    assert response.status_code == 200, response.content
    (second,) = response.json()["data"]
    assert (second["success"], second["status"], second["url"]) == (False, "Failed", "")
    assert {k: second["error"][k] for k in ("code", "category", "retryable")} == {
        "code": "provider_rejected", "category": "content_rejected", "retryable": False,
    }  # fmt: skip
    assert second["error"]["platform"]["code"] == "DUPLICATE_POST"
    assert len(providers.linkedin.posts) == 1
    stored = record(second["recordId"])
    assert (stored.status, stored.provider_post_id, stored.url) == ("Failed", "", "")
    held = ScheduledRecord.objects.exclude(provider_post_id="").values_list(
        "provider_post_id", flat=True
    )
    assert list(held) == [providers.linkedin.posts[0]["id"]]  # one record claims the post
    assert [e["recordId"] for e in events_of("post.published")] == [first["recordId"]]


def test_a_lookup_never_adopts_a_post_another_record_holds(
    client, ada_client, ada_accounts, providers
):
    """The second record's create timed out (its outcome unknown) and LinkedIn then refuses
    the text as a duplicate: the only post with that text is the first record's, so the
    second is refused, not published under the first one's URL."""
    body = {"content": "Same words twice", "accountIds": [ada_accounts["linkedin"]["id"]]}
    first = ada_client.post("/api/social/publish", body, format="json").json()["data"][0]
    (record_id,) = schedule(ada_client, ada_accounts, "linkedin", content="Same words twice")
    ScheduledRecord.objects.filter(pk=record_id).update(outcome_unknown=True, attempts=1)
    result = run(client).json()["data"]["results"][0]
    assert (result["success"], result["status"]) == (False, "Failed")
    assert result["error"]["category"] == "content_rejected"
    assert len(providers.linkedin.posts) == 1
    assert record(record_id).provider_post_id == ""
    assert record(first["recordId"]).provider_post_id == providers.linkedin.posts[0]["id"]


@pytest.mark.parametrize(
    ("provider", "fields", "code"),
    [
        ("facebook", {"content": "Same words twice"}, "506"),
        ("devto", {"title": "Twice", "content": "Body", "url": "https://ada.dev/once"}, None),
    ],
)
def test_every_network_refusing_a_duplicate_rejects_it(
    ada_client, ada_accounts, providers, provider, fields, code
):
    """Graph's 506 and Forem's taken canonical URL: the same rule as LinkedIn's."""
    body = {**fields, "accountIds": [ada_accounts[provider]["id"]]}
    first = ada_client.post("/api/social/publish", body, format="json").json()["data"][0]
    assert first["success"] is True
    (second,) = ada_client.post("/api/social/publish", body, format="json").json()["data"]
    assert (second["success"], second["status"], second["url"]) == (False, "Failed", "")
    assert (second["error"]["category"], second["error"]["platform"]["code"]) == (
        "content_rejected", code,
    )  # fmt: skip
    assert len(providers.by_provider(provider).posts) == 1
    assert [e["recordId"] for e in events_of("post.published")] == [first["recordId"]]
