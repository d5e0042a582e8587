"""The scheduler against the provider stand-ins: every due record published exactly once, with
the contract's retries and delays, honest outcomes for lost answers and dead workers, and the
cron endpoint's secret (social.md section 5)."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection, connections
from django.utils import timezone

from notifications.models import Notification, OutboxEvent
from social.connections.services.credentials import credentials_of
from social.content.services.composition import compose
from social.content.services.posts import draft_of
from social.models import Post, ScheduledRecord, SocialAccount, SocialSettings
from social.networks import NETWORKS
from social.planning.services.record_changes import record_retry
from social.providers.base import Attempt
from social.publishing.services.attempts import records_attempt
from social.publishing.services.scheduler import records_claim, scheduler_run
from tests.social.conftest import CRON_SECRET
from tests.social.standins import FACEBOOK_PAGES, LINKEDIN_PERSON, stamp

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]


def schedule(client: Any, ada_accounts: dict[str, Any], *providers: str, **body: Any) -> list[str]:
    """Schedule a post to the providers' ada_accounts, then make it due; the record ids."""
    request = {"title": "Scheduled", "content": body.pop("content", "Scheduled post #launch"),
               "scheduledTime": (timezone.now() + timedelta(hours=1)).isoformat(),
               "accountIds": [ada_accounts[p]["id"] for p in providers], **body}  # fmt: skip
    response = client.post("/api/social/schedule", request, format="json")
    assert response.status_code == 200, response.content
    ids = [r["id"] for r in response.json()["data"]["scheduledRecords"]]
    make_due(ids)
    return ids


def make_due(ids: list[str]) -> None:
    ScheduledRecord.objects.filter(pk__in=ids).update(due_at=timezone.now() - timedelta(seconds=1))


def run(client: Any, secret: str | None = CRON_SECRET) -> Any:
    headers = {"HTTP_X_CRON_SECRET": secret} if secret is not None else {}
    return client.post("/api/social/scheduler/run", content_type="application/json", **headers)


def record(record_id: str) -> ScheduledRecord:
    return ScheduledRecord.objects.get(pk=record_id)


def test_the_cron_secret_is_required(client, ada_client, ada_accounts, settings):
    (record_id,) = schedule(ada_client, ada_accounts, "mastodon")
    for secret in (None, "", "wrong"):
        response = run(client, secret)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "invalid_cron_secret"
    settings.CRON_SECRET = ""
    assert run(client, "").status_code == 401  # no secret configured: nobody
    assert record(record_id).status == "Scheduled"


@pytest.mark.parametrize("prefix", ["/api", "/api/v1"])
def test_a_run_publishes_what_is_due_and_nothing_else(
    client, ada_client, ada_accounts, providers, prefix
):
    due = schedule(ada_client, ada_accounts, "mastodon", "bluesky", "linkedin", "devto", "facebook")
    response = ada_client.post("/api/social/schedule", {
        "content": "Later", "scheduledTime": (timezone.now() + timedelta(days=1)).isoformat(),
        "accountIds": [ada_accounts["mastodon"]["id"]]}, format="json")  # fmt: skip
    later = response.json()["data"]["scheduledRecords"][0]["id"]
    answer = client.post(
        f"{prefix}/social/scheduler/run", content_type="application/json",
        HTTP_X_CRON_SECRET=CRON_SECRET,
    )  # fmt: skip
    assert answer.status_code == 200
    data = answer.json()["data"]
    assert (data["processedCount"], data["successfulCount"], data["failedCount"]) == (5, 5, 0)
    assert data["executedAt"].endswith("Z")
    assert {r["id"] for r in data["results"]} == set(due)
    assert all(r["success"] and r["status"] == "Published" for r in data["results"])
    assert record(later).status == "Scheduled"
    post = Post.objects.get(records__id=due[0])
    assert post.status == "Published"
    published = Notification.objects.filter(type="post_published")
    assert published.count() == 5
    assert set(published.first().metadata) >= {"postId", "platform", "url"}  # type: ignore[union-attr]
    assert OutboxEvent.objects.filter(event="post.published").count() == 5
    # Nothing is published twice by a second run.
    again = run(client).json()["data"]
    assert again["processedCount"] == 0
    assert len(providers.mastodon.posts) == 1


def test_retries_wait_base_times_two_to_the_attempts_then_fail(
    client, ada_client, ada_accounts, providers, settings
):
    settings.SCHEDULER_RETRY_BASE_SECONDS = 60
    providers.devto.fail = "down"  # 503 without Retry-After
    (record_id,) = schedule(ada_client, ada_accounts, "devto")
    delays = []
    for _ in range(2):
        started = timezone.now()
        result = run(client).json()["data"]["results"][0]
        assert (result["success"], result["status"]) == (False, "Scheduled")
        assert result["error"]["code"] == "retry_scheduled"
        current = record(record_id)
        assert current.next_attempt_at is not None
        delays.append(round((current.next_attempt_at - started).total_seconds() / 10) * 10)
        make_due([record_id])
    assert delays == [60, 120]
    final = run(client).json()["data"]["results"][0]
    # A 503 is the platform saying it did not act: the third one fails the record (nothing
    # was in doubt, nothing is looked up).
    assert (final["success"], final["status"], final["error"]["code"]) == (
        False,
        "Failed",
        "provider_unavailable",
    )
    current = record(record_id)
    assert current.attempts == 3
    assert [(h["attempt"], h["status"], h["maybeDelivered"]) for h in current.history] == [
        (1, 503, False),
        (2, 503, False),
        (3, 503, False),
    ]
    assert providers.devto.received("GET", "/api/articles/me/all") == []
    assert Post.objects.get().status == "Failed"
    failed = Notification.objects.get(type="post_failed")
    assert failed.metadata["attempts"] == 3
    assert failed.metadata["platform"] == "devto"
    assert failed.metadata["unconfirmed"] is False
    assert OutboxEvent.objects.get(event="post.failed").data["retryCount"] == 3
    assert not OutboxEvent.objects.filter(event="post.unconfirmed").exists()


def test_retry_after_is_honoured_when_later(client, ada_client, ada_accounts, providers, settings):
    settings.SCHEDULER_RETRY_BASE_SECONDS = 5
    providers.devto.fail = "busy"  # 429 with Retry-After: 30
    (record_id,) = schedule(ada_client, ada_accounts, "devto")
    started = timezone.now()
    run(client)
    current = record(record_id)
    assert current.next_attempt_at is not None
    assert 28 <= (current.next_attempt_at - started).total_seconds() <= 35
    assert current.outcome_unknown is False  # a 429 refused before doing anything


def test_a_permanent_rejection_fails_at_once(client, ada_client, ada_accounts, providers):
    (record_id,) = schedule(ada_client, ada_accounts, "mastodon", content="x" * 900)
    providers.mastodon.max_characters = 500  # the instance lowered its limit meanwhile
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Failed", "provider_rejected")
    assert record(record_id).attempts == 1


def test_without_auto_retry_a_transient_failure_is_final(
    client, ada_client, ada, ada_accounts, providers
):
    SocialSettings.objects.create(workspace=ada.personal_workspace, auto_retry=False)
    providers.linkedin.fail = "busy"
    (record_id,) = schedule(ada_client, ada_accounts, "linkedin")
    assert run(client).json()["data"]["results"][0]["status"] == "Failed"
    assert record(record_id).attempts == 1


def test_an_authentication_failure_fails_and_expires_the_account(
    client, ada_client, ada_accounts, providers
):
    schedule(ada_client, ada_accounts, "bluesky")
    providers.bluesky.expired = True
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Failed", "account_expired")
    assert SocialAccount.objects.get(provider="bluesky").status == "expired"


PROVIDERS = ["linkedin", "facebook", "instagram", "bluesky", "mastodon", "devto"]
# What a create call made when its answer was lost. Instagram publishes in two calls and the
# first (the media container) is the one held back: the post itself was never made, so the
# next attempt finds nothing and publishes. Every other platform's one call made the post.
MADE_BY_THE_LOST_CALL = {p: int(p != "instagram") for p in PROVIDERS}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_lost_answer_is_looked_up_not_published_again(
    client, ada_client, ada_accounts, providers, settings, provider
):
    """The platform did the work, the answer never came (a timeout after sending): the next
    attempt finds the post instead of creating a second one."""
    settings.SOCIAL_HTTP_TIMEOUT_SECONDS = 0.5
    standin = providers.by_provider(provider)
    media = {"mediaUrls": [providers.image()]} if provider == "instagram" else {}
    (record_id,) = schedule(ada_client, ada_accounts, provider, **media)
    standin.fail, standin.hang = "timeout", 0.8
    first = run(client).json()["data"]["results"][0]
    assert first["status"] == "Scheduled"
    assert record(record_id).outcome_unknown is True
    assert standin.wait_idle()  # the stand-in has finished the call it was holding back
    standin.fail = ""
    assert len(standin.posts) == MADE_BY_THE_LOST_CALL[provider]
    make_due([record_id])
    second = run(client).json()["data"]["results"][0]
    assert (second["success"], second["status"]) == (True, "Published")
    assert len(standin.posts) == 1  # the one the lost call made, or Instagram's made now
    current = record(record_id)
    assert current.attempts == 2
    # Found by the lookup where the lost call made it, not made a second time.
    assert current.history[-1]["found"] is bool(MADE_BY_THE_LOST_CALL[provider])


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_dead_worker_is_resolved_without_a_duplicate(
    client, ada_client, ada_accounts, providers, provider
):
    """A worker claimed the record, the platform created the post, the worker died before
    recording it. After the lease the record is reclaimed, the post found, nothing repeated."""
    media = {"mediaUrls": [providers.image()]} if provider == "instagram" else {}
    (record_id,) = schedule(ada_client, ada_accounts, provider, **media)
    (claimed,) = records_claim(limit=10)
    adapter = NETWORKS[provider].adapter
    credentials = credentials_of(claimed.account)
    content = compose(draft_of(claimed.post), provider)
    adapter.publish(credentials, content, Attempt(key=str(claimed.id), since=claimed.created_at))
    created = len(providers.by_provider(provider).posts)
    assert created >= 1
    # The worker is gone; its lease runs out.
    ScheduledRecord.objects.filter(pk=record_id).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    result = run(client).json()["data"]["results"][0]
    assert (result["success"], result["status"]) == (True, "Published")
    assert len(providers.by_provider(provider).posts) == created
    current = record(record_id)
    assert current.attempts == 2
    assert [h["outcome"] for h in current.history] == ["lease_expired", "published"]


def published_meanwhile(providers: Any, provider: str, count: int) -> None:
    """`count` other posts of the account, newer than anything before, as each platform lists
    them (what a busy account or another app published while a worker was dead)."""
    standin = providers.by_provider(provider)
    now = time.time()
    for number in range(count):
        text, at = f"Another post {number}", stamp(now + number / 1000)
        if provider == "linkedin":
            standin.posts.append({"id": f"urn:li:share:{90000 + number}", "commentary": text,
                                  "author": LINKEDIN_PERSON,
                                  "createdAt": int((now + 1) * 1000) + number})  # fmt: skip
        elif provider == "facebook":
            standin.posts.append({"id": f"1001_{90000 + number}", "page": "1001",
                                  "message": text, "kind": "feed",
                                  "created_time": at})  # fmt: skip
        elif provider == "instagram":
            standin.posts.append({"id": str(90000 + number), "ig": FACEBOOK_PAGES[0]["ig"],
                                  "caption": text, "timestamp": at})  # fmt: skip
        elif provider == "mastodon":
            status = str(900000 + number)
            standin.posts.append({"id": status, "url": f"{standin.url}/@ada/{status}",
                                  "created_at": at, "in_reply_to_id": None,
                                  "content": f"<p>{text}</p>"})  # fmt: skip
        else:
            standin.posts.append({"id": 9_900_000 + number, "title": text,
                                  "body_markdown": text, "published_at": at,
                                  "url": f"https://dev.to/ada/other-{number}"})  # fmt: skip


def die_after_publishing(providers: Any, provider: str, record_id: str) -> int:
    """A worker claims the record, the platform makes the post, the worker dies before
    recording it; its lease runs out. How many posts the platform holds."""
    (claimed,) = records_claim(limit=10)
    adapter = NETWORKS[provider].adapter
    credentials = credentials_of(claimed.account)
    content = compose(draft_of(claimed.post), provider)
    adapter.publish(credentials, content, Attempt(key=str(claimed.id), since=claimed.created_at))
    ScheduledRecord.objects.filter(pk=record_id).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    return len(providers.by_provider(provider).posts)


LISTED = ["linkedin", "facebook", "instagram", "mastodon", "devto"]  # found by their lists


@pytest.mark.parametrize("provider", LISTED)
def test_a_dead_worker_is_resolved_past_the_newest_pages(
    client, ada_client, ada_accounts, providers, provider
):
    """Many posts were published while the worker was dead: the reclaimed record pages back
    to its own attempt and finds its post there, not only among the newest ones."""
    media = {"mediaUrls": [providers.image()]} if provider == "instagram" else {}
    (record_id,) = schedule(ada_client, ada_accounts, provider, **media)
    die_after_publishing(providers, provider, record_id)
    published_meanwhile(providers, provider, 150)
    created = len(providers.by_provider(provider).posts)
    result = run(client).json()["data"]["results"][0]
    assert (result["success"], result["status"]) == (True, "Published")
    assert len(providers.by_provider(provider).posts) == created  # found, not made again
    assert record(record_id).history[-1]["found"] is True


@pytest.mark.parametrize("provider", ["linkedin", "mastodon"])
def test_a_lookup_that_cannot_reach_the_attempt_is_unknown_not_absent(
    client, ada_client, ada_accounts, providers, provider, settings
):
    """More posts since the attempt than a lookup's pages hold: the outcome stays unknown and
    nothing is created again; after the last attempt the record is Unconfirmed."""
    settings.SCHEDULER_RETRY_BASE_SECONDS = 60
    (record_id,) = schedule(ada_client, ada_accounts, provider)
    die_after_publishing(providers, provider, record_id)
    published_meanwhile(providers, provider, 450)  # past 10 pages of 40
    created = len(providers.by_provider(provider).posts)
    result = run(client).json()["data"]["results"][0]
    assert (result["success"], result["status"]) == (False, "Scheduled")
    assert record(record_id).outcome_unknown is True
    make_due([record_id])
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["category"]) == ("Unconfirmed", "unconfirmed")
    assert len(providers.by_provider(provider).posts) == created  # never created again
    assert record(record_id).attempts == 3


def test_a_dead_last_attempt_is_unconfirmed_never_repeated(
    client, ada_client, ada_accounts, providers
):
    (record_id,) = schedule(ada_client, ada_accounts, "linkedin")
    ScheduledRecord.objects.filter(pk=record_id).update(
        status="Publishing", attempts=2, claim=None,
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )  # fmt: skip
    providers.linkedin.fail = "down"  # the lookup cannot tell either
    result = run(client).json()["data"]["results"][0]
    assert result["status"] == "Unconfirmed"
    assert providers.linkedin.received("POST", "/rest/posts") == []
    notice = Notification.objects.get(type="post_failed")
    assert notice.metadata["unconfirmed"] is True


def test_a_post_deleted_while_publishing_is_not_published_again(
    ada_client, ada_accounts, providers
):
    schedule(ada_client, ada_accounts, "mastodon")
    claimed = records_claim(limit=10)
    Post.objects.all().delete()
    (outcome,) = records_attempt(claimed, concurrency=1)
    assert (outcome.success, outcome.status) == (False, "Lost")
    assert not ScheduledRecord.objects.exists()
    assert not Notification.objects.filter(type__startswith="post_").exists()
    assert scheduler_run().outcomes == []


def test_dry_run_lists_and_retry_revives_a_failed_record(
    ada_client, ada_accounts, providers, capsys
):
    (record_id,) = schedule(ada_client, ada_accounts, "mastodon")
    call_command("run_scheduler", "--dry-run")
    assert f"{record_id}" in capsys.readouterr().out
    assert record(record_id).status == "Scheduled"
    ScheduledRecord.objects.filter(pk=record_id).update(status="Failed", attempts=3)
    assert record_retry(record=record(record_id)) is True
    assert (record(record_id).status, record(record_id).attempts) == ("Scheduled", 0)
    call_command("run_scheduler")
    assert record(record_id).status == "Published"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_runs_publish_each_record_once(ada_client, ada_accounts, providers, settings):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL); CI runs it")
    settings.SCHEDULER_BATCH_SIZE = 10
    providers.mastodon.latency = 0.02
    ids = []
    for number in range(12):
        ids += schedule(ada_client, ada_accounts, "mastodon", "bluesky", content=f"Race {number}")
    barrier = threading.Barrier(4)

    def one_run(_: int) -> int:
        try:
            barrier.wait()
            total = 0
            while True:
                report = scheduler_run()
                total += len(report.outcomes)
                if not report.outcomes:
                    return total
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=4) as pool:
        processed = sum(pool.map(one_run, range(4)))
    assert processed == len(ids) == 24
    assert set(ScheduledRecord.objects.values_list("status", flat=True)) == {"Published"}
    assert len(providers.mastodon.posts) == 12
    assert len(providers.bluesky.posts) == 12
    assert Notification.objects.filter(type="post_published").count() == 24


def test_a_failed_batch_is_settled_record_by_record(
    ada_client, ada_accounts, providers, monkeypatch, settings
):
    """Results that end together are written in one transaction; when it fails, each record
    is written on its own from its stored state (no attempt counted twice)."""
    from django.db import DatabaseError

    import social.publishing.services.settle as settlement

    ids = schedule(ada_client, ada_accounts, "mastodon", "bluesky", "devto")
    real, failed = settlement._announce, list[Any]()

    def announce_failing_once(jobs: Any) -> None:
        if not failed:
            failed.append(jobs[0].record.pk)
            raise DatabaseError("simulated")
        real(jobs)

    monkeypatch.setattr(settlement, "_announce", announce_failing_once)
    settings.SCHEDULER_SETTLE_BATCH = 10
    outcomes = scheduler_run().outcomes
    assert failed
    assert sorted(o.record_id for o in outcomes) == sorted(ids)
    assert all(o.success for o in outcomes)
    for record_id in ids:
        current = record(record_id)
        assert (current.status, current.attempts, len(current.history)) == ("Published", 1, 1)
    assert Notification.objects.filter(type="post_published").count() == 3


def test_an_account_is_refreshed_once_for_all_its_records_in_a_run(
    client, ada_client, ada_accounts, providers
):
    """Bluesky refresh tokens are good once: two records of one account in one run must not
    each refresh it (the second refresh would be refused and the account marked expired)."""
    # An access token that is no JWT has no known expiry: the run refreshes the session.
    SocialAccount.objects.filter(provider="bluesky").update(access_token="expired-access")
    first = schedule(ada_client, ada_accounts, "bluesky", content="First")
    second = schedule(ada_client, ada_accounts, "bluesky", content="Second")
    results = run(client).json()["data"]["results"]
    assert {r["id"]: r["status"] for r in results} == {
        first[0]: "Published", second[0]: "Published"
    }  # fmt: skip
    assert len(providers.bluesky.received("POST", "/xrpc/com.atproto.server.refreshSession")) == 1
    assert SocialAccount.objects.get(provider="bluesky").status == "connected"


def test_the_live_feed_sees_each_record_status_change(client, ada_client, ada_accounts, providers):
    """The stream's `post` events: scheduled, claimed (Publishing), then Published, each with
    the post's status and its records (social.md section 8)."""
    from notifications.models import LiveEvent

    (record_id,) = schedule(ada_client, ada_accounts, "mastodon")
    run(client)
    posts = [e.data for e in LiveEvent.objects.filter(kind="post").order_by("id")]
    assert [(p["status"], [r["status"] for r in p["scheduledRecords"]]) for p in posts] == [
        ("Scheduled", ["Scheduled"]),
        ("Scheduled", ["Publishing"]),
        ("Published", ["Published"]),
    ]
    published = posts[-1]["scheduledRecords"][0]
    assert (published["id"], published["url"]) == (record_id, record(record_id).url)
    user_ids = set(LiveEvent.objects.values_list("user_id", flat=True))
    assert user_ids == {record(record_id).user_id}
    kinds = set(LiveEvent.objects.values_list("kind", flat=True))
    assert kinds >= {"post", "notification"}  # the post_published notification too
