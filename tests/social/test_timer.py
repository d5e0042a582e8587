"""The timer (social.md section 5, "On time"): a scheduled record reaches the platform within a
second of its time, whatever the periodic interval; moving, cancelling and deleting take effect
on it; timers in many processes and the periodic run beside them publish each record once; a
timer's dead worker loses nothing."""

import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import connections
from django.utils import timezone

from notifications.models import Notification
from social.models import ScheduledRecord
from social.publishing.services.scheduler import records_claim, scheduler_run
from social.publishing.services.timer import SchedulerTimer, timer_pass

pytestmark = pytest.mark.django_db(transaction=True)

STATUSES = "/api/v1/statuses"


@pytest.fixture(autouse=True)
def _quick_timer(settings) -> None:
    settings.SCHEDULER_TICK_SECONDS = 0.5
    settings.SCHEDULER_INTERVAL_SECONDS = 3600  # the periodic run never helps here


@contextmanager
def timers(count: int = 1) -> Iterator[list[SchedulerTimer]]:
    """`count` timers running, as in `count` worker processes."""
    started = [SchedulerTimer() for _ in range(count)]
    for timer in started:
        timer.start()
    try:
        yield started
    finally:
        for timer in started:
            timer.stop()


def schedule_at(client: Any, account_ids: list[str], when: datetime, content: str) -> list[str]:
    response = client.post("/api/social/schedule", {
        "title": content, "content": content, "scheduledTime": when.isoformat(),
        "accountIds": account_ids,
    }, format="json")  # fmt: skip
    assert response.status_code == 200, response.content
    return [r["id"] for r in response.json()["data"]["scheduledRecords"]]


def wait_for(check: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return bool(check())


def test_a_record_reaches_the_platform_within_a_second_of_its_time(
    ada_client, ada_accounts, providers
):
    when = timezone.now().replace(microsecond=0) + timedelta(seconds=3)
    with timers():
        (record_id,) = schedule_at(ada_client, [ada_accounts["mastodon"]["id"]], when, "On time")
        assert wait_for(lambda: providers.mastodon.received("POST", STATUSES), timeout=6)
        (create,) = providers.mastodon.received("POST", STATUSES)
        assert wait_for(
            lambda: ScheduledRecord.objects.get(pk=record_id).status == "Published", timeout=3
        )
    lateness = create.received_at - when.timestamp()
    assert 0 <= lateness < 1.0, lateness
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.attempts == 1
    assert 0 <= record.history[0]["late"] < 1.0
    assert Notification.objects.filter(type="post_published").count() == 1


def test_a_retry_is_attempted_within_a_second_of_its_time(
    ada_client, ada_accounts, providers, settings
):
    settings.SCHEDULER_RETRY_BASE_SECONDS = 2
    providers.mastodon.scripted.append(("POST", STATUSES, (503, {"error": "Down"}, {})))
    when = timezone.now() + timedelta(seconds=1)
    with timers():
        (record_id,) = schedule_at(ada_client, [ada_accounts["mastodon"]["id"]], when, "Again")
        assert wait_for(lambda: len(providers.mastodon.received("POST", STATUSES)) == 2, 8)
        assert wait_for(
            lambda: ScheduledRecord.objects.get(pk=record_id).status == "Published", timeout=3
        )
    _, second = providers.mastodon.received("POST", STATUSES)
    record = ScheduledRecord.objects.get(pk=record_id)
    retry_due = datetime.fromisoformat(record.history[0]["at"]) + timedelta(seconds=2)
    assert 0 <= second.received_at - retry_due.timestamp() < 1.0
    assert [h.get("outcome") for h in record.history] == ["error", "published"]
    assert record.attempts == 2


def test_a_record_cancelled_after_the_timer_looked_is_never_published(
    ada_client, ada_accounts, providers
):
    when = timezone.now() + timedelta(seconds=1.5)
    with timers(2):
        (record_id,) = schedule_at(ada_client, [ada_accounts["mastodon"]["id"]], when, "Never")
        time.sleep(0.6)  # both timers have seen it and sleep until its time
        assert ada_client.delete(f"/api/social/schedule/{record_id}").status_code == 200
        time.sleep(2.0)  # past its time and another look
    assert providers.mastodon.received("POST", STATUSES) == []
    assert ScheduledRecord.objects.get(pk=record_id).status == "Cancelled"


def test_a_deleted_post_is_never_published_by_its_timer(ada_client, ada_accounts, providers):
    when = timezone.now() + timedelta(seconds=1.5)
    with timers():
        (record_id,) = schedule_at(ada_client, [ada_accounts["mastodon"]["id"]], when, "Gone")
        post_id = ScheduledRecord.objects.get(pk=record_id).post_id
        time.sleep(0.6)
        assert ada_client.delete(f"/api/social/posts/{post_id}").status_code in (200, 204)
        time.sleep(2.0)
    assert providers.mastodon.received("POST", STATUSES) == []


def test_a_moved_record_is_published_at_its_new_time_not_its_old_one(
    ada_client, ada_accounts, providers
):
    first = timezone.now() + timedelta(seconds=1.5)
    later = first + timedelta(seconds=2.5)
    with timers():
        (record_id,) = schedule_at(ada_client, [ada_accounts["mastodon"]["id"]], first, "Moved")
        time.sleep(0.6)
        moved = ada_client.patch(f"/api/social/schedule/{record_id}",
                                 {"scheduledTime": later.isoformat()}, format="json")  # fmt: skip
        assert moved.status_code == 200, moved.content
        assert wait_for(lambda: providers.mastodon.received("POST", STATUSES), timeout=6)
    (create,) = providers.mastodon.received("POST", STATUSES)
    assert 0 <= create.received_at - later.timestamp() < 1.0


def test_timers_and_periodic_runs_together_publish_each_record_once(
    ada_client, ada_accounts, providers, settings
):
    """Four timers (four worker processes) and two periodic runs hammering at once, 40 records
    due at the same moment: each published once, the work shared among the timers."""
    settings.SCHEDULER_CONCURRENCY = 2  # small batches: every timer gets some
    providers.mastodon.latency = providers.devto.latency = 0.05
    when = timezone.now() + timedelta(seconds=2)
    ids: list[str] = []
    targets = [ada_accounts["mastodon"]["id"], ada_accounts["devto"]["id"]]
    for number in range(20):
        ids += schedule_at(ada_client, targets, when, f"Launch {number}")
    stop = threading.Event()

    def periodic(_: int) -> int:
        try:
            total = 0
            while not stop.is_set():
                total += len(scheduler_run().outcomes)
                time.sleep(0.05)
            return total
        finally:
            connections.close_all()

    with timers(4), ThreadPoolExecutor(max_workers=2) as pool:
        runs = [pool.submit(periodic, n) for n in range(2)]
        published = wait_for(
            lambda: ScheduledRecord.objects.filter(status="Published").count() == 40, timeout=60
        )
        assert published, Counter(ScheduledRecord.objects.values_list("status", flat=True))
        stop.set()
        [run.result() for run in runs]
    assert len(providers.mastodon.received("POST", STATUSES)) == 20
    assert len(providers.devto.posts) == 20
    records = ScheduledRecord.objects.filter(pk__in=ids)
    assert {r.attempts for r in records} == {1}
    assert Notification.objects.filter(type="post_published").count() == 40


def test_a_timer_whose_worker_died_loses_nothing(ada_client, ada_accounts, providers, settings):
    """A worker claimed a due record and died before attempting it: another process's timer
    reaps it when its lease runs out, looks the post up, and publishes it once."""
    settings.SCHEDULER_LEASE_SECONDS = 1
    when = timezone.now() + timedelta(seconds=0.5)
    (record_id,) = schedule_at(ada_client, [ada_accounts["mastodon"]["id"]], when, "Survivor")
    time.sleep(0.6)
    (claimed,) = records_claim(limit=10)  # the worker that then dies
    assert claimed.pk.hex == record_id.replace("-", "")
    time.sleep(1.2)  # its lease runs out
    assert timer_pass() >= 0  # a live worker's timer: reaps, then attempts
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.status == "Published"
    assert [h["outcome"] for h in record.history] == ["lease_expired", "published"]
    assert len(providers.mastodon.received("POST", STATUSES)) == 1


def test_a_platform_whose_slots_are_all_busy_defers_without_counting_an_attempt(
    ada_client, ada_accounts, providers, settings, tmp_path
):
    """Every worker process together keeps SCHEDULER_PROVIDER_CONCURRENCY calls in flight to one
    platform at most; a record that found no slot in time waits again, uncounted."""
    from core import slots

    settings.RATE_LIMIT_FILE_DIR = str(tmp_path)  # the slots every process shares
    settings.SCHEDULER_PROVIDER_CONCURRENCY = 1
    settings.SCHEDULER_PROVIDER_WAIT_SECONDS = 0.2
    when = timezone.now() + timedelta(seconds=0.5)
    (record_id,) = schedule_at(ada_client, [ada_accounts["mastodon"]["id"]], when, "Busy")
    time.sleep(0.6)
    with slots.slot("provider:mastodon", limit=1, wait=1, hold_seconds=30) as held:
        assert held  # another worker's call to Mastodon is in flight
        (outcome,) = scheduler_run().outcomes
    assert (outcome.status, outcome.error_code) == ("Scheduled", "retry_scheduled")
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.attempts, [h["outcome"] for h in record.history]) == (0, ["deferred"])
    assert 1.0 <= (record.due_at - timezone.now()).total_seconds() <= 2.0
    assert providers.mastodon.received("POST", STATUSES) == []
    with timers():
        assert wait_for(
            lambda: ScheduledRecord.objects.get(pk=record_id).status == "Published", timeout=5
        )
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.attempts, [h["outcome"] for h in record.history]) == (
        1,
        ["deferred", "published"],
    )
    assert len(providers.mastodon.received("POST", STATUSES)) == 1


def test_timers_finish_a_published_threads_later_parts_once_and_on_time(
    ada_client, ada_accounts, providers, settings
):
    """A thread's second part fails once after the post is out: the record is Published at
    once, and the timers (four processes) send the second part at its retry's time, once."""
    settings.SCHEDULER_RETRY_BASE_SECONDS = 2
    providers.mastodon.scripted.append(("POST", STATUSES, (503, {"error": "Down"}, {}), "Two"))
    when = timezone.now() + timedelta(seconds=1)
    response = ada_client.post("/api/social/schedule", {
        "content": "One", "thread": [{"content": "Two"}], "scheduledTime": when.isoformat(),
        "accountIds": [ada_accounts["mastodon"]["id"]],
    }, format="json")  # fmt: skip
    assert response.status_code == 200, response.content
    record_id = response.json()["data"]["scheduledRecords"][0]["id"]
    with timers(4):
        assert wait_for(lambda: len(providers.mastodon.received("POST", STATUSES)) == 2, 6)
        assert wait_for(
            lambda: ScheduledRecord.objects.get(pk=record_id).status == "Published", timeout=3
        )
        record = ScheduledRecord.objects.get(pk=record_id)
        assert record.next_attempt_at is not None  # its second part waits, the post is out
        assert wait_for(lambda: len(providers.mastodon.received("POST", STATUSES)) == 3, 6)
        assert wait_for(
            lambda: ScheduledRecord.objects.get(pk=record_id).next_attempt_at is None, 3
        )
        time.sleep(1.0)  # more looks by every timer: nothing else is sent
    sent = [call.body["status"] for call in providers.mastodon.received("POST", STATUSES)]
    assert sent == ["One", "Two", "Two"]
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.attempts, record.warnings) == ("Published", 2, [])
    assert [part["index"] for part in record.parts] == [0, 1]
    retry_due = datetime.fromisoformat(record.history[0]["at"]) + timedelta(seconds=2)
    third = providers.mastodon.received("POST", STATUSES)[2]
    assert 0 <= third.received_at - retry_due.timestamp() < 1.0
    assert Notification.objects.filter(type="post_published").count() == 1
