"""Account health, the pre-flight check and daily caps, against the stand-ins (social.md section
12): one cheap identity call, kept 5 minutes; `post.at_risk` once per problem while there is
time to reconnect; a record over its account's daily cap waits for the next window instead of
being attempted and refused."""

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, connections
from django.utils import timezone

from core.times import iso
from notifications.models import LiveEvent, Notification, OutboxEvent
from social import beat
from social.models import AccountHealth, ScheduledRecord, SocialAccount
from social.planning.services.caps import records_admit
from social.publishing.services.scheduler import records_claim
from social.tasks import preflight_run_task
from tests.social.conftest import connect
from tests.social.test_scheduler import make_due, record, run, schedule

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]


def health(client: Any, account_id: str) -> dict[str, Any]:
    response = client.get(f"/api/social/accounts/{account_id}/health")
    assert response.status_code == 200, response.content
    return dict(response.json()["data"])


def events_of(name: str) -> list[dict[str, Any]]:
    return [e.data for e in OutboxEvent.objects.filter(event=name).order_by("sequence")]


# --- Health ---------------------------------------------------------------------------------


def test_a_healthy_account_in_one_call_kept_five_minutes(ada_client, ada_accounts, providers):
    account_id = ada_accounts["linkedin"]["id"]
    asked = len(providers.linkedin.received("GET", "/v2/userinfo"))
    report = health(ada_client, account_id)
    account = SocialAccount.objects.get(pk=account_id)
    assert report == {
        "status": "connected",
        "checkedAt": report["checkedAt"],
        "tokenExpiresAt": iso(account.credentials_expire_at),
        "renewable": False,  # LinkedIn gives apps no refresh token: the user reconnects
        "scopesMissing": [],
        "reachable": True,
        "dailyCap": {"limit": 100, "used": 0, "resetsAt": None},
        "problems": [],
    }
    assert len(providers.linkedin.received("GET", "/v2/userinfo")) == asked + 1
    assert health(ada_client, account_id) == report  # from the last check: no call
    assert len(providers.linkedin.received("GET", "/v2/userinfo")) == asked + 1
    AccountHealth.objects.filter(account_id=account_id).update(
        checked_at=timezone.now() - timedelta(seconds=301)
    )
    assert health(ada_client, account_id)["checkedAt"] != report["checkedAt"]
    assert len(providers.linkedin.received("GET", "/v2/userinfo")) == asked + 2
    # Bluesky renews itself and has no daily cap here.
    bluesky = health(ada_client, ada_accounts["bluesky"]["id"])
    assert (bluesky["renewable"], bluesky["dailyCap"], bluesky["problems"]) == (True, None, [])


def test_a_revoked_token_is_found_and_the_account_marked_expired(
    ada_client, ada_accounts, providers
):
    account_id = ada_accounts["mastodon"]["id"]
    providers.mastodon.expired = True
    report = health(ada_client, account_id)
    assert (report["status"], report["reachable"]) == ("expired", True)
    assert report["problems"] == [
        {
            "code": "account_expired",
            "message": "Mastodon no longer accepts the connection of ada.",
            "remedy": "Reconnect your Mastodon account.",
        }
    ]
    assert SocialAccount.objects.get(pk=account_id).status == "expired"
    assert [e["accountId"] for e in events_of("account.expired")] == [account_id]


def test_a_missing_permission_names_it(ada_client, ada_accounts, providers):
    providers.meta.scripted.append(
        ("GET", r"/v24.0/1001",
         (400, {"error": {"message": "(#200) Requires pages_manage_posts permission",
                          "type": "OAuthException", "code": 200}}, {}))
    )  # fmt: skip
    report = health(ada_client, ada_accounts["facebook"]["id"])
    assert (report["status"], report["scopesMissing"]) == ("connected", ["pages_manage_posts"])
    assert [p["code"] for p in report["problems"]] == ["permission_missing"]


def test_a_platform_that_does_not_answer(ada_client, ada_accounts, providers):
    providers.devto.fail = "down"
    report = health(ada_client, ada_accounts["devto"]["id"])
    assert (report["status"], report["reachable"]) == ("connected", False)
    assert [p["code"] for p in report["problems"]] == ["platform_unreachable"]
    assert SocialAccount.objects.get(pk=ada_accounts["devto"]["id"]).status == "connected"


def test_another_users_account_is_404(bob_client, ada_accounts, providers):
    response = bob_client.get(f"/api/social/accounts/{ada_accounts['devto']['id']}/health")
    assert response.status_code == 404
    assert not AccountHealth.objects.exists()


# --- The pre-flight -------------------------------------------------------------------------


def scheduled_in(client: Any, accounts: Any, provider: str, hours: float) -> str:
    when = (timezone.now() + timedelta(hours=hours)).isoformat()
    response = client.post(
        "/api/social/schedule",
        {"content": "Launch day", "scheduledTime": when, "accountIds": [accounts[provider]["id"]]},
        format="json",
    )
    assert response.status_code == 200, response.content
    return str(response.json()["data"]["scheduledRecords"][0]["id"])


def test_a_revoked_token_is_announced_once_before_the_post_is_due(
    client, ada_client, ada_accounts, providers
):
    record_id = scheduled_in(ada_client, ada_accounts, "linkedin", hours=2)
    scheduled_in(ada_client, ada_accounts, "mastodon", hours=30)  # not due soon: not checked
    providers.linkedin.expired = True
    masto_calls = len(providers.mastodon.calls)
    assert preflight_run_task.delay().get() == {"checked": 1, "announced": 1}
    assert len(providers.mastodon.calls) == masto_calls
    account_id = ada_accounts["linkedin"]["id"]
    (risk,) = events_of("post.at_risk")
    assert risk == {
        "accountId": account_id,
        "platform": "linkedin",
        "problems": [
            {
                "code": "account_expired",
                "message": "LinkedIn no longer accepts the connection of ada@example.com.",
                "remedy": "Reconnect your LinkedIn account.",
            }
        ],
        "records": [
            {
                "recordId": record_id,
                "postId": str(record(record_id).post_id),
                "scheduledAt": iso(record(record_id).scheduled_time),
            }
        ],
    }
    notice = Notification.objects.get(type="post_at_risk")
    assert (notice.title, notice.metadata["recordIds"]) == (
        "1 scheduled post on LinkedIn at risk",
        [record_id],
    )
    assert "post.at_risk" in [e.data["type"] for e in LiveEvent.objects.filter(kind="event")]
    # Once per account per 6 hours, and once per problem after that.
    assert preflight_run_task.delay().get() == {"checked": 0, "announced": 0}
    AccountHealth.objects.update(preflight_at=timezone.now() - timedelta(hours=7))
    assert preflight_run_task.delay().get() == {"checked": 1, "announced": 0}
    assert len(events_of("post.at_risk")) == 1
    # The user reconnects: checked afresh, nothing wrong, and the post publishes on time.
    providers.linkedin.expired = False
    assert connect(ada_client, "linkedin").status_code == 200
    assert [e["accountId"] for e in events_of("account.reconnected")] == [account_id]
    assert preflight_run_task.delay().get() == {"checked": 1, "announced": 0}
    make_due([record_id])
    result = run(client).json()["data"]["results"][0]
    assert (result["id"], result["status"]) == (record_id, "Published")


def test_a_connection_ending_before_the_post_is_due(ada_client, ada_accounts, providers):
    record_id = scheduled_in(ada_client, ada_accounts, "linkedin", hours=20)
    SocialAccount.objects.filter(pk=ada_accounts["linkedin"]["id"]).update(
        expires_at=timezone.now() + timedelta(hours=10)
    )
    preflight_run_task.delay()
    (risk,) = events_of("post.at_risk")
    assert [p["code"] for p in risk["problems"]] == ["token_expiring"]
    assert [r["recordId"] for r in risk["records"]] == [record_id]


def test_the_pre_flight_is_a_periodic_task(settings):
    settings.PREFLIGHT_INTERVAL_SECONDS = 600
    entry = beat.entries(settings)["social-preflight-run"]
    assert (entry["task"], entry["schedule"]) == ("social.tasks.preflight_run_task", 600.0)
    settings.PREFLIGHT_INTERVAL_SECONDS = 0
    assert "social-preflight-run" not in beat.entries(settings)


# --- Daily caps -----------------------------------------------------------------------------


@pytest.fixture
def cap_of_three(settings) -> None:
    settings.SOCIAL_DAILY_CAPS = {"instagram": 3}


def instagram_post(client: Any, accounts: Any, providers: Any, number: int) -> str:
    (record_id,) = schedule(
        client, accounts, "instagram", content=f"Post {number}", mediaUrls=[providers.image()]
    )
    return record_id


@pytest.mark.usefixtures("cap_of_three")
def test_the_post_over_the_cap_waits_for_the_next_window(
    client, ada_client, ada_accounts, providers
):
    published = [instagram_post(ada_client, ada_accounts, providers, n) for n in range(3)]
    assert [r["status"] for r in run(client).json()["data"]["results"]] == ["Published"] * 3
    publishes = len(providers.meta.received("POST", "/v24.0/17841400000000001/media_publish"))
    fourth = instagram_post(ada_client, ada_accounts, providers, 4)
    assert run(client).json()["data"]["results"] == []  # claimed, then put back: not attempted
    waiting = record(fourth)
    oldest = min(at for pk in published if (at := record(pk).published_at) is not None)
    assert waiting.status == "Scheduled"
    assert waiting.attempts == 0
    assert waiting.due_at == oldest + timedelta(hours=24, seconds=1)
    assert len(providers.meta.received("POST", "/v24.0/17841400000000001/media_publish")) == (
        publishes
    )
    shown = ada_client.get(f"/api/social/schedule/{fourth}").json()["data"]
    assert {k: shown["error"][k] for k in ("code", "category", "retryable", "retryAt")} == {
        "code": "daily_cap_reached",
        "category": "account_limit",
        "retryable": True,
        "retryAt": iso(waiting.due_at),
    }
    assert shown["error"]["remedy"] == (
        "Nothing to do: the post waits for Instagram's next daily window."
    )
    (entry,) = shown["history"]
    assert (entry["outcome"], entry["until"]) == ("deferred", waiting.due_at.isoformat())
    report = health(ada_client, ada_accounts["instagram"]["id"])
    assert report["dailyCap"] == {
        "limit": 3,
        "used": 3,
        "resetsAt": iso(oldest + timedelta(hours=24)),
    }
    assert [p["code"] for p in report["problems"]] == ["daily_cap_reached"]
    # A day later the oldest has left the window: the post goes.
    ScheduledRecord.objects.filter(pk=published[0]).update(
        published_at=timezone.now() - timedelta(hours=24, minutes=1)
    )
    make_due([fourth])
    result = run(client).json()["data"]["results"][0]
    assert (result["id"], result["status"]) == (fourth, "Published")


@pytest.mark.usefixtures("cap_of_three")
def test_publishing_now_over_the_cap_waits_too(client, ada_client, ada_accounts, providers):
    for number in range(3):
        instagram_post(ada_client, ada_accounts, providers, number)
    run(client)
    response = ada_client.post(
        "/api/social/publish",
        {"content": "Now", "mediaUrls": [providers.image()],
         "accountIds": [ada_accounts["instagram"]["id"], ada_accounts["mastodon"]["id"]]},
        format="json",
    )  # fmt: skip
    instagram, mastodon = response.json()["data"]
    assert (mastodon["success"], instagram["success"], instagram["status"]) == (
        True,
        False,
        "Scheduled",
    )
    assert (instagram["error"]["code"], instagram["error"]["category"]) == (
        "daily_cap_reached",
        "account_limit",
    )
    assert instagram["error"]["retryAt"] == iso(record(instagram["recordId"]).due_at)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("cap_of_three")
def test_two_runs_never_admit_more_than_the_cap_together(
    client, ada_client, ada_accounts, providers
):
    for number in range(2):
        instagram_post(ada_client, ada_accounts, providers, number)
    run(client)
    instagram_post(ada_client, ada_accounts, providers, 3)
    instagram_post(ada_client, ada_accounts, providers, 4)
    batches = [records_claim(limit=1), records_claim(limit=1)]
    barrier = threading.Barrier(2)
    admitted: list[int] = []

    def admit(batch: list[ScheduledRecord]) -> None:
        try:
            barrier.wait()
            admitted.append(len(records_admit(batch)))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=admit, args=(batch,)) for batch in batches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(admitted) == [0, 1]
    assert ScheduledRecord.objects.filter(status="Publishing").count() == 1
