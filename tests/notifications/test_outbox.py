"""The outbox: sequence, one dispatcher fanning out to per-consumer rows, claims, retries, the
sweeper for lost queueings and dead workers, retention, and the typed payloads."""

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection, connections
from django.utils import timezone

from accounts.services.users import user_create
from notifications import events
from notifications.models import LiveEvent, OutboxConsumption, OutboxEvent
from notifications.services import outbox

pytestmark = pytest.mark.django_db


@pytest.fixture
def received(monkeypatch):
    """A registered test consumer; the events it was handed, in order."""
    seen: list[int] = []
    fail = {"times": 0}

    def handle(event: OutboxEvent) -> None:
        if fail["times"] > 0:
            fail["times"] -= 1
            raise RuntimeError("receiver down")
        seen.append(event.sequence)

    monkeypatch.setattr(outbox, "_consumers", {})
    outbox.outbox_consumer("test", handle)
    handle.fail = fail  # type: ignore[attr-defined]
    return seen


def record(user, *, committed) -> OutboxEvent:
    payload = events.credits_depleted(user_id=str(user.pk), remaining_credits=0)
    with committed():
        return events.emit(user=user, payload=payload)


def test_events_get_a_growing_sequence(ada):
    payload = events.credits_depleted(user_id=str(ada.pk), remaining_credits=0)
    first = events.emit(user=ada, payload=payload)
    second = events.emit(user=ada, payload=payload)
    assert second.sequence > first.sequence
    assert first.id != second.id  # the public identity, kept across deliveries


def test_the_outbox_and_the_live_feed_record_events_as_subscribers(ada, monkeypatch):
    """`emit` hands the event to its subscribers only: the outbox's and the live feed's writers
    are subscribers too, recording after the others (a reaction comes first in the feed), and
    every subscriber sees the identity the outbox and the live feed record."""
    seen: list[tuple[events.Event, bool]] = []

    def react(emitted: list[events.Event]) -> None:
        seen.extend((event, OutboxEvent.objects.exists()) for event in emitted)

    handlers = [*events._subscribers["credits.depleted"], react]
    monkeypatch.setitem(events._subscribers, "credits.depleted", handlers)
    payload = events.credits_depleted(user_id=str(ada.pk), remaining_credits=0)
    recorded = events.emit(user=ada, payload=payload)
    ((event, outbox_written_before),) = seen
    assert not outbox_written_before
    row = OutboxEvent.objects.get()
    assert (event.id, event.created_at, event.user_id) == (row.id, row.created_at, ada.pk)
    assert event.outbox is not None
    assert (event.live_id, event.outbox["sequence"]) == (row.live_id, row.sequence)
    assert (recorded.pk, recorded.live_id) == (row.pk, row.live_id)
    assert row.live_id is not None
    live = LiveEvent.objects.get(pk=row.live_id)
    assert live.data["eventId"] == str(row.id)


def test_a_committed_event_reaches_each_consumer_once(ada, received, committed):
    event = record(ada, committed=committed)
    assert received == [event.sequence]
    row = OutboxConsumption.objects.get()
    assert (row.consumer, row.status, row.attempts) == ("test", "done", 1)
    assert OutboxEvent.objects.get().dispatched_at is not None
    # A repeated dispatch and a repeated processing do nothing.
    assert outbox.outbox_dispatch(sequence=event.sequence) == 0
    assert outbox.outbox_process(consumption_id=row.pk) == "skipped"
    assert received == [event.sequence]
    assert OutboxConsumption.objects.count() == 1


def test_a_rolled_back_event_reaches_no_one(ada, received, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        events.emit(
            user=ada, payload=events.credits_depleted(user_id=str(ada.pk), remaining_credits=0)
        )
    # The callbacks of a transaction that rolls back are dropped, never run (the live feed's
    # announcement and the dispatch).
    assert len(callbacks) == 2
    assert received == []
    assert not OutboxConsumption.objects.exists()


def test_a_failing_consumer_is_retried_with_backoff_then_failed(ada, received, committed):
    outbox._consumers["test"].handle.fail["times"] = 100  # type: ignore[attr-defined]
    event = record(ada, committed=committed)
    row = OutboxConsumption.objects.get()
    assert (row.status, row.attempts, row.last_error) == (
        "pending",
        1,
        "RuntimeError: receiver down",
    )
    assert row.next_attempt_at > timezone.now()
    assert outbox.outbox_process(consumption_id=row.pk) == "skipped"  # not due yet
    for attempt in range(2, outbox.MAX_ATTEMPTS + 1):
        OutboxConsumption.objects.filter(pk=row.pk).update(next_attempt_at=timezone.now())
        status = outbox.outbox_process(consumption_id=row.pk)
        assert OutboxConsumption.objects.get(pk=row.pk).attempts == attempt
    assert status == "failed"
    assert received == []
    assert event.sequence  # kept for operators to inspect


def test_the_sweeper_dispatches_lost_events_and_reclaims_dead_workers(ada, received, committed):
    # Queueing lost: the event committed but its dispatch never ran.
    lost = events.emit(
        user=ada, payload=events.credits_depleted(user_id=str(ada.pk), remaining_credits=0)
    )
    OutboxEvent.objects.filter(pk=lost.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    with committed():
        assert outbox.outbox_sweep()["dispatched"] == 1
    assert received == [lost.sequence]

    # A worker claimed a row and died.
    outbox._consumers["test"].handle.fail["times"] = 0  # type: ignore[attr-defined]
    dead = record(ada, committed=committed)
    row = OutboxConsumption.objects.get(event=dead)
    OutboxConsumption.objects.filter(pk=row.pk).update(
        status="running", lease_expires_at=timezone.now() - timedelta(minutes=55)
    )
    result = outbox.outbox_sweep()
    assert (result["reclaimed"], result["queued"]) == (1, 1)
    assert OutboxConsumption.objects.get(pk=row.pk).status == "done"


def test_retention_purges_old_events_with_their_rows(ada, received, committed, settings):
    settings.OUTBOX_RETENTION_DAYS = 30
    old = record(ada, committed=committed)
    recent = record(ada, committed=committed)
    OutboxEvent.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=31))
    assert outbox.outbox_purge() == 1
    assert list(OutboxEvent.objects.values_list("sequence", flat=True)) == [recent.sequence]
    assert list(OutboxConsumption.objects.values_list("event_id", flat=True)) == [recent.sequence]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_dispatchers_create_each_row_once(received):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL); CI runs it")
    outbox.outbox_consumer("second", lambda event: None)
    user = user_create(email="race@example.com")
    event = events.emit(
        user=user, payload=events.credits_depleted(user_id=str(user.pk), remaining_credits=0)
    )
    barrier = threading.Barrier(6)

    def dispatch(_: int) -> int:
        try:
            barrier.wait()
            return outbox.outbox_dispatch(sequence=event.sequence)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(dispatch, range(6)))
    consumers = sorted(
        OutboxConsumption.objects.filter(event=event).values_list("consumer", flat=True)
    )
    assert consumers == ["second", "test"]


def test_each_payload_has_the_specified_shape():
    at = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)
    shapes = [
        (
            events.post_published(
                post_id="p",
                record_id="r",
                account_id="a",
                platform="bluesky",
                post_url="https://bsky.app/x",
                provider_post_id="at://x",
                published_at=at,
            ),
            {
                "postId",
                "recordId",
                "accountId",
                "platform",
                "postUrl",
                "providerPostId",
                "publishedAt",
                "parts",  # social.md section 9
            },
        ),
        (
            events.post_failed(
                post_id="p",
                record_id="r",
                account_id="a",
                platform="devto",
                error="e",
                retry_count=3,
            ),
            {"postId", "recordId", "accountId", "platform", "error", "retryCount", "errorDetail"},
        ),
        (
            events.post_failed(
                post_id="p",
                record_id="r",
                account_id="a",
                platform="devto",
                error="e",
                retry_count=3,
                unconfirmed=True,
            ),
            {"postId", "recordId", "accountId", "platform", "error", "retryCount", "errorDetail"},
        ),
        *(
            (
                events.post_saved(
                    created=created,
                    post_id="p",
                    title="t",
                    status="Draft",
                    platforms=[],
                    campaign_id=None,
                    updated_at=at,
                ),
                {"postId", "title", "status", "platforms", "campaignId", "updatedAt"},
            )
            for created in (True, False)
        ),
        (events.post_deleted(post_id="p", record_ids=["r"]), {"postId", "recordIds"}),
        (
            events.post_partially_published(post_id="p", published=[], not_published=[]),
            {"postId", "status", "published", "notPublished"},
        ),
        (
            events.schedule_moved(
                record_id="r",
                post_id="p",
                account_id="a",
                platform="devto",
                scheduled_at=at,
                previous=None,
                queued=False,
            ),
            {
                "recordId",
                "postId",
                "accountId",
                "platform",
                "scheduledAt",
                "previousScheduledAt",
                "queued",
            },
        ),
        (
            events.schedule_cancelled(
                record_id="r",
                post_id="p",
                account_id="a",
                platform="devto",
                scheduled_at=at,
                reason="cancelled",
            ),
            {"recordId", "postId", "accountId", "platform", "scheduledAt", "reason"},
        ),
        *(
            (
                events.account_connected(
                    account_id="a", platform="devto", username="u", reconnected=again
                ),
                {"accountId", "platform", "username", "status"},
            )
            for again in (True, False)
        ),
        (
            events.account_expiring(
                account_id="a", platform="devto", username="u", expires_at=at, days=7
            ),
            {"accountId", "platform", "username", "status", "expiresAt", "days"},
        ),
        (
            events.account_expired(account_id="a", platform="devto", username="u", reason="r"),
            {"accountId", "platform", "username", "status", "reason"},
        ),
        (
            events.post_at_risk(account_id="a", platform="devto", problems=[], records=[]),
            {"accountId", "platform", "problems", "records"},
        ),
        (
            events.post_scheduled(
                post_id="p", platforms=["devto"], account_ids=["a"], scheduled_at=at
            ),
            {"scheduleId", "postId", "platforms", "accountIds", "scheduledAt"},
        ),
        (
            events.generation_completed(
                generation_id="g", tool="seo_audit", output={}, tokens_used=1, seconds=0.1234
            ),
            {"generationId", "tool", "output", "tokensUsed", "durationSeconds"},
        ),
        (
            events.generation_failed(generation_id="g", tool="seo_audit", error="e", input_data={}),
            {"generationId", "tool", "error", "input"},
        ),
        (
            events.credits_depleted(user_id="u", remaining_credits=0),
            {"userId", "remainingCredits"},
        ),
        (
            events.approval_requested(
                request_id="q",
                post_id="p",
                version="v",
                approver_ids=[],
                client_count=1,
                message="",
                expires_at=at,
            ),
            {
                "approvalRequestId",
                "postId",
                "version",
                "approverIds",
                "clientCount",
                "message",
                "expiresAt",
            },
        ),
        (
            events.approval_decided(
                approved=True, request_id="q", post_id="p", version="v", comment=""
            ),
            {"approvalRequestId", "postId", "version", "comment"},
        ),
        (
            events.approval_decided(
                approved=False, request_id="q", post_id="p", version="v", comment="No"
            ),
            {"approvalRequestId", "postId", "version", "comment"},
        ),
        (
            events.approval_stale(request_id="q", post_id="p", version="v", current="w"),
            {"approvalRequestId", "postId", "version", "currentVersion"},
        ),
        (
            events.post_commented(
                post_id="p", comment_id="c", author={"type": "member", "name": "Ada"}, body="b"
            ),
            {"postId", "commentId", "author", "body"},
        ),
    ]
    assert {payload.event for payload, _ in shapes} == events.EVENTS
    for payload, keys in shapes:
        assert set(payload.data) == keys, payload.event
    scheduled = events.post_scheduled(post_id="p", platforms=[], account_ids=[], scheduled_at=at)
    assert scheduled.data["scheduledAt"] == "2026-11-22T10:00:00Z"
    assert scheduled.data["scheduleId"] == "p"


def test_an_unknown_event_is_refused(ada):
    with pytest.raises(ValueError, match="Unknown event"):
        events.emit(user=ada, payload=events.Payload("post.exploded", {}))


def test_a_batch_consumer_gets_a_pass_at_once_and_a_failed_batch_is_retried_alone(
    ada, monkeypatch, committed
):
    batches: list[list[int]] = []
    alone: list[int] = []
    broken = {"batch": False}

    def handle_many(events_: list[OutboxEvent]) -> None:
        if broken["batch"]:
            raise RuntimeError("batch refused")
        batches.append([event.sequence for event in events_])

    monkeypatch.setattr(outbox, "_consumers", {})
    outbox.outbox_consumer("batch", lambda event: alone.append(event.sequence),
                           handle_many=handle_many)  # fmt: skip
    payload = events.credits_depleted(user_id=str(ada.pk), remaining_credits=0)
    with committed():
        first = [events.emit(user=ada, payload=payload) for _ in range(3)]
    assert batches == [[event.sequence for event in first]]  # one pass, in sequence order
    assert alone == []

    broken["batch"] = True
    with committed():
        second = [events.emit(user=ada, payload=payload) for _ in range(2)]
    rows = OutboxConsumption.objects.filter(event__in=second)
    assert {(row.status, row.attempts) for row in rows} == {("pending", 1)}
    rows.update(next_attempt_at=timezone.now())
    for row in rows:
        assert outbox.outbox_process(consumption_id=row.pk) == "done"
    assert sorted(alone) == [event.sequence for event in second]


def test_events_recorded_together_are_each_dispatched_once(ada, received, committed):
    """emit_many: one INSERT, one dispatch queued per DISPATCH_BATCH events, and
    every event still reaches the consumer exactly once."""
    payload = events.credits_depleted(user_id=str(ada.pk), remaining_credits=0)
    count = 2 * outbox.DISPATCH_BATCH + 50
    with committed() as callbacks:
        recorded = events.emit_many(items=[(ada.pk, payload)] * count)
    assert len(callbacks) == 1 + 3  # the live feed's announcement, the dispatches on commit
    assert sorted(received) == sorted(recorded)  # the events' sequences
    assert not OutboxEvent.objects.filter(dispatched_at__isnull=True).exists()
    assert OutboxConsumption.objects.filter(status="done").count() == count
