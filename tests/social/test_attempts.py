"""An attempt is one create call per part (social.md section 5): a create is never retried
inside an attempt; the retry is the next attempt, counted, in the record's history, subject to
the user's `autoRetry` and the platform's `Retry-After`."""

import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from notifications.models import Notification, OutboxEvent
from social.models import ScheduledRecord
from tests.social.standins import MASTODON_ACCOUNT_ID as MASTODON
from tests.social.test_scheduler import make_due, run, schedule

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

CREATES = {
    "mastodon": ("POST", r"/api/v1/statuses"),
    "bluesky": ("POST", r"/xrpc/com\.atproto\.repo\.createRecord"),
}
DOWN: tuple[int, Any, dict[str, str]] = (503, {"error": "ServiceUnavailable"}, {})


def creates(providers: Any, provider: str) -> int:
    method, path = CREATES[provider]
    standin = providers.by_provider(provider)
    return len(standin.received(method, path.replace("\\", "")))


@pytest.mark.parametrize("provider", sorted(CREATES))
def test_a_failed_create_is_sent_once_and_retried_by_the_next_attempt(
    client, ada_client, ada_accounts, providers, provider, settings
):
    settings.SCHEDULER_RETRY_BASE_SECONDS = 60
    standin = providers.by_provider(provider)
    standin.scripted.append((*CREATES[provider], DOWN))
    (record_id,) = schedule(ada_client, ada_accounts, provider)

    result = run(client).json()["data"]["results"][0]
    assert (result["success"], result["status"]) == (False, "Scheduled")
    assert result["error"]["code"] == "retry_scheduled"
    assert creates(providers, provider) == 1  # one create in the attempt, not three
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.attempts == 1
    assert [entry["outcome"] for entry in record.history] == ["error"]

    make_due([record_id])
    result = run(client).json()["data"]["results"][0]
    assert (result["success"], result["status"]) == (True, "Published")
    assert creates(providers, provider) == 2
    assert len(standin.posts) == 1  # the platform holds the post once
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.attempts == 2
    assert [entry["outcome"] for entry in record.history] == ["error", "published"]


def test_auto_retry_off_ends_the_record_after_one_create(
    client, ada_client, ada_accounts, providers
):
    off = ada_client.put("/api/social/settings", {"autoRetry": False}, format="json")
    assert off.status_code == 200, off.content
    providers.mastodon.scripted.append((*CREATES["mastodon"], DOWN))
    (record_id,) = schedule(ada_client, ada_accounts, "mastodon")

    result = run(client).json()["data"]["results"][0]
    # A 503 is the platform saying it did not act: a failure, not an outcome in doubt.
    assert (result["success"], result["status"]) == (False, "Failed")
    assert result["error"]["code"] == "provider_unavailable"
    assert creates(providers, "mastodon") == 1
    assert providers.mastodon.posts == []
    # Nothing was in doubt, so nothing was looked up.
    assert providers.mastodon.received("GET", f"/api/v1/accounts/{MASTODON}/statuses") == []
    make_due([record_id])
    assert run(client).json()["data"]["processedCount"] == 0  # no further attempt
    assert creates(providers, "mastodon") == 1


def test_retry_after_on_a_create_sets_the_next_attempt_instead_of_waiting(
    client, ada_client, ada_accounts, providers, settings
):
    settings.SCHEDULER_RETRY_BASE_SECONDS = 1
    busy = (429, {"error": "Too many requests"}, {"Retry-After": "3"})
    providers.mastodon.scripted.append((*CREATES["mastodon"], busy))
    (record_id,) = schedule(ada_client, ada_accounts, "mastodon")

    started = time.monotonic()
    before = timezone.now()
    result = run(client).json()["data"]["results"][0]
    assert time.monotonic() - started < 2.5  # not slept through inline
    assert (result["success"], result["status"]) == (False, "Scheduled")
    assert creates(providers, "mastodon") == 1
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.next_attempt_at is not None
    assert record.next_attempt_at >= before + timedelta(seconds=3)


@pytest.mark.parametrize("provider", sorted(CREATES))
def test_publish_now_answers_retry_scheduled_for_a_transient_failure(
    ada_client, ada_accounts, providers, provider
):
    providers.by_provider(provider).scripted.append((*CREATES[provider], DOWN))
    response = ada_client.post(
        "/api/social/publish",
        {"content": "Launch day", "accountIds": [ada_accounts[provider]["id"]]},
        format="json",
    )
    assert response.status_code == 200, response.content
    (entry,) = response.json()["data"]
    assert entry["success"] is False
    assert entry["error"]["code"] == "retry_scheduled"
    assert entry["error"]["retryAt"]
    assert creates(providers, provider) == 1
    record = ScheduledRecord.objects.get(pk=entry["recordId"])
    assert record.status == "Scheduled"
    assert record.next_attempt_at is not None
    assert record.next_attempt_at.isoformat().startswith(entry["error"]["retryAt"][:16])


# --- A 5xx that may come after the work: the platform is asked before the record ends ----------

BAD_GATEWAY: tuple[int, Any, dict[str, str]] = (502, {"error": "Bad Gateway"}, {})


def publish_once(ada_client: Any, ada_accounts: dict[str, Any]) -> dict[str, Any]:
    """Publish now to Mastodon with autoRetry off: this attempt is the record's last."""
    off = ada_client.put("/api/social/settings", {"autoRetry": False}, format="json")
    assert off.status_code == 200, off.content
    response = ada_client.post(
        "/api/social/publish",
        {"content": "Launch day", "accountIds": [ada_accounts["mastodon"]["id"]]},
        format="json",
    )
    assert response.status_code == 200, response.content
    (entry,) = response.json()["data"]
    return dict(entry)


def test_a_502_after_the_post_was_made_is_found_and_published(ada_client, ada_accounts, providers):
    providers.mastodon.acted.append((*CREATES["mastodon"], BAD_GATEWAY))
    entry = publish_once(ada_client, ada_accounts)
    (status,) = providers.mastodon.posts  # made once, by the create whose answer was a 502
    assert (entry["success"], entry["status"], entry["url"]) == (True, "Published", status["url"])
    assert creates(providers, "mastodon") == 1
    record = ScheduledRecord.objects.get(pk=entry["recordId"])
    assert (record.status, record.provider_post_id, record.attempts) == (
        "Published", status["id"], 1,
    )  # fmt: skip
    assert [(h["outcome"], h["found"]) for h in record.history] == [("published", True)]
    assert OutboxEvent.objects.filter(event="post.published").count() == 1


def test_a_502_before_anything_was_made_is_asked_then_failed(ada_client, ada_accounts, providers):
    providers.mastodon.scripted.append((*CREATES["mastodon"], BAD_GATEWAY))
    entry = publish_once(ada_client, ada_accounts)
    assert (entry["success"], entry["status"]) == (False, "Failed")
    assert entry["error"]["code"] == "provider_unavailable"
    assert providers.mastodon.posts == []
    assert creates(providers, "mastodon") == 1  # asked by its lookup, never created again
    assert providers.mastodon.received("GET", f"/api/v1/accounts/{MASTODON}/statuses")
    record = ScheduledRecord.objects.get(pk=entry["recordId"])
    assert (record.status, record.outcome_unknown) == ("Failed", False)
    (attempt,) = record.history
    assert (attempt["outcome"], attempt["found"], attempt["maybeDelivered"]) == (
        "error",
        False,
        False,
    )
    assert OutboxEvent.objects.filter(event="post.failed").count() == 1
    assert not OutboxEvent.objects.filter(event="post.unconfirmed").exists()


def test_a_502_whose_lookup_gets_no_answer_is_unconfirmed(ada_client, ada_accounts, providers):
    providers.mastodon.scripted.append((*CREATES["mastodon"], BAD_GATEWAY))
    statuses = ("GET", rf"/api/v1/accounts/{MASTODON}/statuses")
    providers.mastodon.scripted += [(*statuses, BAD_GATEWAY)] * 3  # a read is tried 3 times
    entry = publish_once(ada_client, ada_accounts)
    assert (entry["success"], entry["status"]) == (False, "Unconfirmed")
    assert creates(providers, "mastodon") == 1
    notice = Notification.objects.get(type="post_failed")
    assert notice.metadata["unconfirmed"] is True


def test_a_record_whose_own_server_is_busy_waits_its_turn_with_no_attempt_counted(
    client, ada_client, ada_accounts, providers, settings
):
    """A user's Mastodon instance with all its calls from this process in flight (here one,
    held by a slow call to the same host): nothing is sent, the record is deferred as for a
    busy platform, no attempt counted, even with autoRetry off; its next turn publishes it."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from core import outbound

    class Slow(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            time.sleep(1.5)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    assert ada_client.put("/api/social/settings", {"autoRetry": False},
                          format="json").status_code == 200  # fmt: skip
    (record_id,) = schedule(ada_client, ada_accounts, "mastodon")
    settings.OUTBOUND_PER_HOST_CONCURRENCY = 1
    slow = ThreadingHTTPServer(("127.0.0.1", 0), Slow)  # the stand-in's host, another port
    threading.Thread(target=slow.serve_forever, daemon=True).start()
    held = threading.Thread(target=lambda: outbound.Client("other", read_timeout=5).request(
        "GET", f"http://127.0.0.1:{slow.server_address[1]}/", guarded=True))  # fmt: skip
    held.start()
    time.sleep(0.3)
    try:
        result = run(client).json()["data"]["results"][0]
    finally:
        held.join()
        slow.shutdown()
        slow.server_close()
    assert (result["success"], result["status"]) == (False, "Scheduled")
    assert creates(providers, "mastodon") == 0
    stored = ScheduledRecord.objects.get(pk=record_id)
    assert stored.attempts == 0
    assert [entry["outcome"] for entry in stored.history] == ["deferred"]

    make_due([record_id])
    result = run(client).json()["data"]["results"][0]
    assert (result["success"], result["status"]) == (True, "Published")
    assert ScheduledRecord.objects.get(pk=record_id).attempts == 1
