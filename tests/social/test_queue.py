"""The posting queue, recurring posts and best times through the HTTP API, against the provider
stand-ins (social.md section 11): slots in a zone, posts queued next or last, cancelled and
moved records freeing their slots, reordering, pausing and resuming, re-slotting, weekly
series published by the scheduler, best times, the admin, and concurrent queueing."""

import cProfile
import pstats
import threading
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework import serializers

from core.times import iso
from notifications.models import Notification, OutboxEvent
from social.api.post_output import PostSerializer
from social.models import (
    WEEKDAYS,
    AccountQueue,
    AnalyticsRecord,
    Post,
    ScheduledRecord,
    Series,
    SocialAccount,
)
from social.publishing.services.scheduler import scheduler_run
from social.selectors import records_next_due, with_records
from tests.factories import client_for
from tests.social.conftest import connect

pytestmark = pytest.mark.django_db

DAILY_AT_NINE = [{"day": day, "time": "09:00"} for day in WEEKDAYS]


@pytest.fixture
def accounts(ada_client, providers) -> dict[str, str]:
    """Ada's Mastodon and Dev.to accounts, connected through the API: their ids."""
    found = {}
    for name in ("mastodon", "devto"):
        extra = {"instance": providers.mastodon.url} if name == "mastodon" else {}
        response = connect(ada_client, name, **extra)
        assert response.status_code == 200, response.content
        found[name] = response.json()["data"]["id"]
    return found


def slot_times(slots: list[dict[str, str]], zone: str, days: int = 15) -> list[datetime]:
    """The slots' moments from now on, worked out here independently of the code under test
    (no slot of these tests falls in a DST gap or overlap)."""
    tz, now = ZoneInfo(zone), timezone.now()
    today = now.astimezone(tz).date()
    found = []
    for offset in range(-1, days):
        day = today + timedelta(days=offset)
        for slot in slots:
            if WEEKDAYS[day.weekday()] == slot["day"]:
                local = datetime.combine(day, time.fromisoformat(slot["time"]), tzinfo=tz)
                if local > now:
                    found.append(local.astimezone(UTC))
    return sorted(found)


def set_queue(client: Any, account_id: str, **body: Any) -> dict[str, Any]:
    response = client.put(f"/api/social/queue/{account_id}", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()["data"]


def queue(client: Any, account_id: str, content: str, **body: Any) -> dict[str, Any]:
    """Queue a new post to the account; its one record."""
    response = client.post(
        "/api/social/queue", {"content": content, "accountIds": [account_id], **body}, format="json"
    )
    assert response.status_code == 200, response.content
    (record,) = response.json()["data"]["scheduledRecords"]
    return record


def held(client: Any, account_id: str) -> list[str | None]:
    """The queue's upcoming slots, as the record holding each (None: free)."""
    data = client.get(f"/api/social/queue/{account_id}").json()["data"]
    return [entry["recordId"] for entry in data["upcoming"]]


def make_due(*record_ids: str, at: datetime | None = None) -> None:
    moment = at or timezone.now() - timedelta(seconds=1)
    ScheduledRecord.objects.filter(pk__in=record_ids).update(due_at=moment, scheduled_time=moment)


def record(record_id: str) -> ScheduledRecord:
    return ScheduledRecord.objects.get(pk=record_id)


# --- Slots --------------------------------------------------------------------------------------


def test_a_new_account_has_an_empty_queue(ada_client, accounts):
    response = ada_client.get(f"/api/social/queue/{accounts['mastodon']}")
    assert response.status_code == 200
    assert response.json()["data"] == {
        "accountId": accounts["mastodon"],
        "timezone": "UTC",
        "paused": False,
        "slots": [],
        "upcoming": [],
    }
    assert not AccountQueue.objects.exists()


@pytest.mark.parametrize("prefix", ["/api", "/api/v1"])
def test_slots_in_a_zone_and_the_next_two_weeks(ada_client, accounts, prefix):
    slots = [{"day": "wed", "time": "18:30"}, {"day": "mon", "time": "09:00"}]
    response = ada_client.put(
        f"{prefix}/social/queue/{accounts['mastodon']}",
        {"timezone": "Europe/Paris", "slots": slots},
        format="json",
    )
    assert response.status_code == 200, response.content
    horizon = timezone.now() + timedelta(days=14)
    expected = {
        "accountId": accounts["mastodon"],
        "timezone": "Europe/Paris",
        "paused": False,
        "slots": [{"day": "mon", "time": "09:00"}, {"day": "wed", "time": "18:30"}],
        "upcoming": [
            {"at": iso(at), "recordId": None}
            for at in slot_times(slots, "Europe/Paris")
            if at <= horizon
        ],
    }
    assert response.json()["data"] == expected
    assert len(expected["upcoming"]) == 4
    assert (
        ada_client.get(f"{prefix}/social/queue/{accounts['mastodon']}").json()["data"] == expected
    )
    # Only what is sent changes.
    assert set_queue(ada_client, accounts["mastodon"], paused=True)["slots"] == expected["slots"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"timezone": "Mars/Olympus_Mons"}, "timezone"),
        ({"slots": [{"day": "funday", "time": "09:00"}]}, "slots"),
        ({"slots": [{"day": "mon", "time": "9:00"}]}, "slots"),
        ({"slots": [{"day": "mon", "time": "24:00"}]}, "slots"),
        ({"slots": [{"day": "mon"}]}, "slots"),
        ({"slots": [{"day": "mon", "time": "09:00"}, {"day": "mon", "time": "09:00"}]}, "slots"),
        ({"slots": [{"day": WEEKDAYS[i % 7], "time": f"{i // 7:02d}:00"} for i in range(51)]},
         "slots"),
        ({"paused": "sometimes"}, "paused"),
        ({"accountId": "00000000-0000-0000-0000-000000000000"}, "accountId"),
    ],
)  # fmt: skip
def test_a_bad_queue_is_refused_and_changes_nothing(ada_client, accounts, body, field):
    before = set_queue(ada_client, accounts["mastodon"], slots=DAILY_AT_NINE)
    response = ada_client.put(f"/api/social/queue/{accounts['mastodon']}", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "validation_error"
    assert field in response.json()["error"]["details"]
    assert ada_client.get(f"/api/social/queue/{accounts['mastodon']}").json()["data"] == before


def test_fifty_slots_are_taken(ada_client, accounts):
    slots = [{"day": WEEKDAYS[i % 7], "time": f"{i // 7:02d}:30"} for i in range(50)]
    assert len(set_queue(ada_client, accounts["mastodon"], slots=slots)["slots"]) == 50


def test_another_users_queue_is_not_found(ada_client, bob_client, accounts):
    account = accounts["mastodon"]
    set_queue(ada_client, account, slots=DAILY_AT_NINE)
    calls = [
        bob_client.get(f"/api/social/queue/{account}"),
        bob_client.put(f"/api/social/queue/{account}", {"paused": True}, format="json"),
        bob_client.post(f"/api/social/queue/{account}/reorder", {"recordIds": []}, format="json"),
        bob_client.post(f"/api/social/queue/{account}/slots/suggest"),
        bob_client.get("/api/social/best-times", {"accountId": account}),
    ]
    assert [call.status_code for call in calls] == [404] * 5
    queued = bob_client.post(
        "/api/social/queue", {"content": "Mine?", "accountIds": [account]}, format="json"
    )
    assert queued.status_code == 400
    assert AccountQueue.objects.get().paused is False
    assert not Post.objects.exists()


# --- Queueing -------------------------------------------------------------------------------------


def test_queueing_without_slots_is_refused_and_writes_nothing(ada_client, accounts):
    set_queue(ada_client, accounts["devto"], slots=DAILY_AT_NINE)
    response = ada_client.post(
        "/api/social/queue",
        {"title": "T", "content": "Hello", "accountIds": [accounts["devto"], accounts["mastodon"]]},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "queue_empty"
    assert response.json()["error"]["details"] == {"accountIds": [accounts["mastodon"]]}
    assert not Post.objects.exists()
    assert not ScheduledRecord.objects.exists()
    assert not OutboxEvent.objects.filter(event="post.scheduled").exists()


def test_three_posts_queued_one_cancelled_its_slot_reused_then_reordered(ada_client, accounts):
    account = accounts["mastodon"]
    set_queue(ada_client, account, slots=DAILY_AT_NINE)
    slots = [iso(at) for at in slot_times(DAILY_AT_NINE, "UTC")]
    one, two, three = (queue(ada_client, account, f"Post {n}") for n in ("one", "two", "three"))
    assert [r["scheduled_time"] for r in (one, two, three)] == slots[:3]
    assert all(r["queued"] and r["status"] == "Scheduled" for r in (one, two, three))
    assert held(ada_client, account)[:4] == [one["id"], two["id"], three["id"], None]
    # The calendar, the post and the webhooks see them as any scheduled record.
    calendar = ada_client.get("/api/social/schedule", {"accountId": account}).json()["data"]
    assert [r["id"] for r in calendar] == [one["id"], two["id"], three["id"]]
    assert OutboxEvent.objects.filter(event="post.scheduled").count() == 3
    post = ada_client.get(f"/api/social/posts/{one['postId']}").json()["data"]
    assert (post["status"], post["scheduledRecords"][0]["queued"]) == ("Scheduled", True)
    assert (post["recurrence"], post["nextOccurrences"]) == (None, [])

    cancelled = ada_client.delete(f"/api/social/schedule/{two['id']}")
    assert cancelled.json()["data"]["status"] == "Cancelled"
    assert held(ada_client, account)[:4] == [one["id"], None, three["id"], None]
    four = queue(ada_client, account, "Post four")  # last: after the last queued
    five = queue(ada_client, account, "Post five", position="next")  # the earliest free slot
    assert (four["scheduled_time"], five["scheduled_time"]) == (slots[3], slots[1])
    assert held(ada_client, account)[:5] == [one["id"], five["id"], three["id"], four["id"], None]

    order = [four["id"], three["id"], one["id"], five["id"]]
    response = ada_client.post(
        f"/api/social/queue/{account}/reorder", {"recordIds": order}, format="json"
    )
    assert response.status_code == 200, response.content
    assert [e["recordId"] for e in response.json()["data"]["upcoming"]][:5] == [*order, None]
    assert [record(pk).scheduled_time for pk in order] == slot_times(DAILY_AT_NINE, "UTC")[:4]
    assert [record(pk).due_at for pk in order] == slot_times(DAILY_AT_NINE, "UTC")[:4]


def test_a_reorder_must_name_every_waiting_record_once(ada_client, accounts):
    account = accounts["mastodon"]
    set_queue(ada_client, account, slots=DAILY_AT_NINE)
    one, two = queue(ada_client, account, "One"), queue(ada_client, account, "Two")
    three = queue(ada_client, account, "Three")
    before = held(ada_client, account)
    for ids in (
        [two["id"], one["id"]],  # one missing
        [two["id"], one["id"], three["id"], "00000000-0000-0000-0000-000000000000"],
        [two["id"], one["id"], one["id"], three["id"]],
        ["not-a-uuid"],
    ):
        response = ada_client.post(
            f"/api/social/queue/{account}/reorder", {"recordIds": ids}, format="json"
        )
        assert response.status_code == 400, ids
        assert "recordIds" in response.json()["error"]["details"]
    assert held(ada_client, account) == before


def test_moving_a_queued_record_takes_it_out_of_the_queue(ada_client, accounts):
    account = accounts["mastodon"]
    set_queue(ada_client, account, slots=DAILY_AT_NINE)
    one = queue(ada_client, account, "One")
    later = (timezone.now() + timedelta(days=3, hours=1)).replace(microsecond=0)
    moved = ada_client.patch(
        f"/api/social/schedule/{one['id']}", {"scheduledTime": later.isoformat()}, format="json"
    )
    assert moved.status_code == 200
    assert (moved.json()["data"]["queued"], moved.json()["data"]["scheduled_time"]) == (
        False,
        iso(later),
    )
    assert held(ada_client, account)[0] is None
    assert (
        queue(ada_client, account, "Two", position="next")["scheduled_time"]
        == one["scheduled_time"]
    )


def test_queueing_to_several_accounts_takes_each_ones_slot(ada_client, accounts):
    set_queue(ada_client, accounts["mastodon"], slots=DAILY_AT_NINE)
    evenings = [{"day": day, "time": "18:00"} for day in WEEKDAYS]
    set_queue(ada_client, accounts["devto"], slots=evenings, timezone="America/New_York")
    response = ada_client.post(
        "/api/social/queue",
        {"title": "Both", "content": "To both", "accountIds": list(accounts.values())},
        format="json",
    )
    assert response.status_code == 200, response.content
    records = {r["provider"]: r for r in response.json()["data"]["scheduledRecords"]}
    assert records["mastodon"]["scheduled_time"] == iso(slot_times(DAILY_AT_NINE, "UTC")[0])
    assert records["devto"]["scheduled_time"] == iso(slot_times(evenings, "America/New_York")[0])
    assert OutboxEvent.objects.filter(event="post.scheduled").count() == 1


def test_a_queued_record_is_published_by_the_scheduler(ada_client, accounts, providers):
    account = accounts["mastodon"]
    set_queue(ada_client, account, slots=DAILY_AT_NINE)
    one = queue(ada_client, account, "Queued and published #launch")
    make_due(one["id"])
    (outcome,) = scheduler_run().outcomes
    assert (outcome.record_id, outcome.status) == (one["id"], "Published")
    assert len(providers.mastodon.posts) == 1
    assert Notification.objects.filter(type="post_published").count() == 1
    assert OutboxEvent.objects.filter(event="post.published").count() == 1
    assert held(ada_client, account)[0] is None  # published: the queue moves on


# --- Pausing, resuming, re-slotting -------------------------------------------------------------


def test_a_paused_queue_holds_its_records_and_resuming_reslots_them_in_order(
    ada_client, accounts, providers
):
    account = accounts["mastodon"]
    set_queue(ada_client, account, slots=DAILY_AT_NINE)
    first, second, third = (queue(ada_client, account, f"Q{n}") for n in (1, 2, 3))
    soon = (timezone.now() + timedelta(hours=1)).isoformat()
    body = {"content": "Not queued", "accountIds": [account], "scheduledTime": soon}
    plain = ada_client.post("/api/social/schedule", body, format="json")
    (plain_record,) = plain.json()["data"]["scheduledRecords"]
    assert set_queue(ada_client, account, paused=True)["paused"] is True
    # Time passes: the first two slots go by while the queue is paused.
    now = timezone.now()
    make_due(first["id"], at=now - timedelta(hours=2))
    make_due(second["id"], at=now - timedelta(hours=1))
    make_due(plain_record["id"])
    outcomes = scheduler_run().outcomes
    assert [o.record_id for o in outcomes] == [plain_record["id"]]  # only the one not queued
    next_due = records_next_due()
    assert next_due is None or next_due > now  # the timer is not woken for them
    assert record(first["id"]).status == record(second["id"]).status == "Scheduled"

    resumed = set_queue(ada_client, account, paused=False)
    assert resumed["paused"] is False
    slots = slot_times(DAILY_AT_NINE, "UTC")
    times = [record(r["id"]).scheduled_time for r in (first, second, third)]
    # The two whose slot passed take the next free slots, in their order, before the third.
    assert times == slots[:3]
    assert scheduler_run().outcomes == []


def test_changing_the_slots_or_the_zone_reslots_keeping_the_order(ada_client, accounts):
    account = accounts["mastodon"]
    set_queue(ada_client, account, slots=DAILY_AT_NINE)
    ids = [queue(ada_client, account, f"R{n}")["id"] for n in range(4)]
    twice = [{"day": "mon", "time": "10:00"}, {"day": "thu", "time": "10:00"}]
    set_queue(ada_client, account, slots=twice)
    expected = slot_times(twice, "UTC", days=22)[:4]
    assert [record(pk).scheduled_time for pk in ids] == expected
    set_queue(ada_client, account, timezone="Asia/Tokyo")
    assert [record(pk).scheduled_time for pk in ids] == slot_times(twice, "Asia/Tokyo", 22)[:4]
    # Adding a slot moves nothing already on one; it is free for the next post.
    before = [record(pk).scheduled_time for pk in ids]
    set_queue(ada_client, account, slots=[*twice, {"day": "sat", "time": "07:00"}])
    assert [record(pk).scheduled_time for pk in ids] == before


# --- Recurring posts -----------------------------------------------------------------------------


def schedule_series(client: Any, account_id: str, **recurrence: Any) -> tuple[str, str]:
    """A weekly post scheduled two hours ahead (shape A); (post id, record id)."""
    response = client.post("/api/social/schedule", {
        "content": "Office hours every week", "accountIds": [account_id],
        "scheduledTime": (timezone.now() + timedelta(hours=2)).replace(microsecond=0).isoformat(),
        "recurrence": {"rule": "FREQ=WEEKLY", **recurrence}}, format="json")  # fmt: skip
    assert response.status_code == 200, response.content
    data = response.json()["data"]
    return data["post"]["id"], data["scheduledRecords"][0]["id"]


def test_a_weekly_series_publishes_its_first_occurrence_and_creates_the_next(
    ada_client, accounts, providers
):
    post_id, first = schedule_series(ada_client, accounts["mastodon"])
    start = record(first).scheduled_time
    post = ada_client.get(f"/api/social/posts/{post_id}").json()["data"]
    assert post["recurrence"] == {"rule": "FREQ=WEEKLY", "until": None, "count": None}
    assert post["nextOccurrences"] == [iso(start + timedelta(weeks=n)) for n in range(5)]
    ScheduledRecord.objects.filter(pk=first).update(due_at=timezone.now())
    (outcome,) = scheduler_run().outcomes
    assert outcome.status == "Published"
    following = ScheduledRecord.objects.exclude(pk=first).get()
    assert (following.status, following.scheduled_time, following.series_id) == (
        "Scheduled",
        start + timedelta(weeks=1),
        record(first).series_id,
    )
    post = ada_client.get(f"/api/social/posts/{post_id}").json()["data"]
    assert post["status"] == "Scheduled"
    assert post["nextOccurrences"] == [iso(start + timedelta(weeks=n)) for n in range(1, 6)]
    assert [r["status"] for r in post["scheduledRecords"]] == ["Published", "Scheduled"]
    assert OutboxEvent.objects.filter(event="post.scheduled").count() == 2
    assert OutboxEvent.objects.filter(event="post.published").count() == 1
    assert len(providers.mastodon.posts) == 1


@pytest.mark.parametrize(
    ("recurrence", "field"),
    [
        ({"rule": "FREQ=HOURLY"}, "recurrence.rule"),
        ({"rule": "FREQ=DAILY;BYHOUR=9,17"}, "recurrence.rule"),
        ({"rule": "FREQ=WEEKLY;BYDAY=XX"}, "recurrence.rule"),
        ({"rule": "FREQ=WEEKLY", "until": "2001-01-01"}, "recurrence.until"),
        ({"rule": "FREQ=WEEKLY", "until": "soon"}, "recurrence.until"),
        ({"rule": "FREQ=WEEKLY", "count": 0}, "recurrence"),
        ({"until": "2030-01-01"}, "recurrence"),
    ],
)
def test_a_bad_recurrence_is_refused_and_nothing_is_written(
    ada_client, accounts, recurrence, field
):
    response = ada_client.post("/api/social/schedule", {
        "content": "Again", "accountIds": [accounts["mastodon"]],
        "scheduledTime": (timezone.now() + timedelta(hours=2)).isoformat(),
        "recurrence": recurrence}, format="json")  # fmt: skip
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["details"]
    assert not Post.objects.exists()
    assert not Series.objects.exists()


def next_february_tenth() -> datetime:
    """February 10 at 09:00 UTC, within the next year: a start that a rule of the 30th of
    every twelfth month never matches again."""
    now = timezone.now()
    when = datetime(now.year, 2, 10, 9, tzinfo=UTC)
    return when if when > now + timedelta(hours=1) else when.replace(year=now.year + 1)


NEVER_AGAIN = "FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=30"  # Februaries only, never a 30th


@pytest.mark.parametrize("path", ["/api/social/schedule", "/api/social/queue"])
def test_a_rule_with_no_occurrence_within_the_horizon_is_refused_and_nothing_is_written(
    ada_client, accounts, path
):
    set_queue(ada_client, accounts["mastodon"], slots=[{"day": "wed", "time": "09:00"}])
    body: dict[str, Any] = {"content": "Every 30th", "accountIds": [accounts["mastodon"]],
                            "recurrence": {"rule": NEVER_AGAIN}}  # fmt: skip
    if path.endswith("schedule"):
        body["scheduledTime"] = iso(next_february_tenth())
    else:  # starts at the queue's next slot: a rule that matches no day at all
        body["recurrence"] = {"rule": "FREQ=MONTHLY;BYDAY=5MO;BYMONTHDAY=1"}
    events = OutboxEvent.objects.count()
    response = ada_client.post(path, body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    (message,) = error["details"]["recurrence.rule"]
    assert "no occurrence within 5 years" in message
    assert not Post.objects.exists()
    assert not Series.objects.exists()
    assert not ScheduledRecord.objects.exists()
    assert OutboxEvent.objects.count() == events


def test_a_list_of_posts_whose_rules_never_match_again_stays_bounded(ada_client, accounts):
    """Series written before rules were checked against a horizon: each read walks at most
    the horizon (counted in function calls, not time) and shows the waiting occurrence."""
    start = next_february_tenth()
    waiting = []
    for n in range(20):
        response = ada_client.post("/api/social/schedule", {
            "content": f"Every 30th, {n}", "accountIds": [accounts["mastodon"]],
            "scheduledTime": iso(start), "recurrence": {"rule": "FREQ=MONTHLY"}},
            format="json")  # fmt: skip
        assert response.status_code == 200, response.content
        waiting.append(response.json()["data"]["post"]["id"])
    Series.objects.update(rule=NEVER_AGAIN)
    profile = cProfile.Profile()
    response = profile.runcall(ada_client.get, "/api/social/posts")
    assert response.status_code == 200
    assert {post["id"]: post["nextOccurrences"] for post in response.json()["data"]} == {
        post_id: [iso(start)] for post_id in waiting
    }
    assert pstats.Stats(profile).total_calls < 100_000  # type: ignore[attr-defined]


def test_count_ends_a_series(ada_client, accounts, providers):
    post_id, first = schedule_series(ada_client, accounts["mastodon"], count=2)
    start = record(first).scheduled_time
    post = ada_client.get(f"/api/social/posts/{post_id}").json()["data"]
    assert post["nextOccurrences"] == [iso(start), iso(start + timedelta(weeks=1))]
    ScheduledRecord.objects.filter(pk=first).update(due_at=timezone.now())
    scheduler_run()
    second = ScheduledRecord.objects.get(status="Scheduled")
    ScheduledRecord.objects.filter(pk=second.pk).update(due_at=timezone.now())
    scheduler_run()
    assert list(ScheduledRecord.objects.values_list("status", flat=True)) == ["Published"] * 2
    assert Series.objects.get().ended_at is not None
    post = ada_client.get(f"/api/social/posts/{post_id}").json()["data"]
    assert (post["status"], post["nextOccurrences"]) == ("Published", [])


def test_until_ends_a_series(ada_client, accounts):
    until = (timezone.now() + timedelta(days=10)).date().isoformat()
    post_id, first = schedule_series(ada_client, accounts["mastodon"], until=until)
    start = record(first).scheduled_time
    post = ada_client.get(f"/api/social/posts/{post_id}").json()["data"]
    within = [iso(start + timedelta(weeks=n)) for n in range(3)]
    assert post["nextOccurrences"] == [at for at in within if at <= f"{until}T23:59:59Z"]
    assert post["recurrence"]["until"] == f"{until}T23:59:59Z"


def test_a_refused_duplicate_fails_and_the_series_goes_on_until_it_is_ended(ada_client, providers):
    linkedin = connect(ada_client, "linkedin").json()["data"]["id"]
    post_id, first = schedule_series(ada_client, linkedin)
    ScheduledRecord.objects.filter(pk=first).update(due_at=timezone.now())
    assert scheduler_run().outcomes[0].status == "Published"
    second = ScheduledRecord.objects.get(status="Scheduled")
    ScheduledRecord.objects.filter(pk=second.pk).update(due_at=timezone.now())
    (outcome,) = scheduler_run().outcomes
    # LinkedIn refuses the same text twice: a permanent failure with LinkedIn's reason.
    assert (outcome.status, outcome.error_code) == ("Failed", "provider_rejected")
    assert outcome.error.startswith("LinkedIn refuses the same text twice (DUPLICATE_POST)")
    third = ScheduledRecord.objects.get(status="Scheduled")
    assert third.scheduled_time == second.scheduled_time + timedelta(weeks=1)
    assert Notification.objects.filter(type="post_failed").count() == 1
    # Cancelling one occurrence skips it; ?series=true ends the series.
    skipped = ada_client.delete(f"/api/social/schedule/{third.pk}")
    assert skipped.json()["data"]["status"] == "Cancelled"
    fourth = ScheduledRecord.objects.get(status="Scheduled")
    assert fourth.scheduled_time == third.scheduled_time + timedelta(weeks=1)
    ended = ada_client.delete(f"/api/social/schedule/{fourth.pk}?series=true")
    assert ended.status_code == 200
    assert ended.json()["data"]["status"] == "Cancelled"
    assert not ScheduledRecord.objects.filter(status="Scheduled").exists()
    assert Series.objects.get().ended_at is not None
    post = ada_client.get(f"/api/social/posts/{post_id}").json()["data"]
    assert (post["status"], post["nextOccurrences"]) == ("PartiallyPublished", [])
    # Ending it again, from any of its records, changes nothing.
    again = ada_client.delete(f"/api/social/schedule/{first}?series=true")
    assert again.json()["data"]["status"] == "Published"


def test_a_recurring_post_queued_takes_a_slot_then_follows_its_rule(ada_client, accounts):
    account = accounts["mastodon"]
    set_queue(ada_client, account, slots=DAILY_AT_NINE, timezone="Europe/Paris")
    response = ada_client.post("/api/social/queue", {
        "content": "Tip of the day", "accountIds": [account],
        "recurrence": {"rule": "FREQ=DAILY;INTERVAL=2", "count": 3}}, format="json")  # fmt: skip
    assert response.status_code == 200, response.content
    data = response.json()["data"]
    (first,) = data["scheduledRecords"]
    slot = slot_times(DAILY_AT_NINE, "Europe/Paris")[0]
    assert (first["queued"], first["scheduled_time"]) == (True, iso(slot))
    paris = slot.astimezone(ZoneInfo("Europe/Paris"))
    expected = [paris + timedelta(days=2 * n) for n in range(3)]  # 09:00 in Paris each time
    assert data["post"]["nextOccurrences"] == [
        iso(at.replace(tzinfo=None).replace(tzinfo=ZoneInfo("Europe/Paris"))) for at in expected
    ]


def test_a_recurring_post_as_the_lists_show_it(ada_client, accounts):
    """The hand-written post shape says what the serializer's fields say (test_shapes)."""
    post_id, _ = schedule_series(ada_client, accounts["mastodon"], count=3, until="2099-01-01")
    post = with_records(Post.objects.filter(pk=post_id)).get()
    fast = PostSerializer(post, context={"media_urls": {}}).data
    generic = serializers.Serializer.to_representation(
        PostSerializer(context={"media_urls": {}}), post
    )
    assert dict(fast) == generic
    assert len(fast["nextOccurrences"]) == 3
    assert fast["recurrence"] == {"rule": "FREQ=WEEKLY", "until": "2099-01-01T23:59:59Z",
                                  "count": 3}  # fmt: skip


def test_an_unknown_series_flag_is_refused(ada_client, accounts):
    _, first = schedule_series(ada_client, accounts["mastodon"])
    response = ada_client.delete(f"/api/social/schedule/{first}?series=perhaps")
    assert response.status_code == 400
    assert record(first).status == "Scheduled"


# --- Best times ---------------------------------------------------------------------------------


def test_best_times_of_an_account_without_analytics_are_the_platforms(ada_client, accounts):
    response = ada_client.get("/api/social/best-times", {"accountId": accounts["mastodon"]})
    assert response.status_code == 200
    assert response.json()["data"] == {
        "accountId": accounts["mastodon"],
        "timezone": "UTC",
        "source": "default",
        "times": [
            {"day": "tue", "time": "09:00", "score": 1.0},
            {"day": "wed", "time": "09:00", "score": 0.9},
            {"day": "thu", "time": "09:00", "score": 0.8},
            {"day": "tue", "time": "17:00", "score": 0.7},
            {"day": "wed", "time": "17:00", "score": 0.6},
        ],
    }
    missing = ada_client.get("/api/social/best-times")
    assert missing.status_code == 400


def published(account: SocialAccount, when: datetime, seen: int, engaged: int) -> None:
    """A post published on the account at `when` with its counters (an older, lower row
    first: the latest counts)."""
    post = Post.objects.create(
        user=account.user, workspace=account.user.personal_workspace, content=f"At {when}"
    )
    row = ScheduledRecord.objects.create(
        post=post, user=account.user, workspace=post.workspace, account=account,
        provider=account.provider,
        scheduled_time=when, due_at=when, status="Published", published_at=when,
    )  # fmt: skip
    for offset, factor in ((1, 2), (3, 1)):
        AnalyticsRecord.objects.create(
            record=row, workspace=post.workspace, post=post, account=account,
            provider=account.provider,
            date=when.date() + timedelta(days=offset), impressions=seen // factor,
            engagement=engaged // factor,
        )  # fmt: skip


def test_best_times_from_the_accounts_own_analytics_in_its_queue_zone(ada_client, accounts):
    account = SocialAccount.objects.get(pk=accounts["mastodon"])
    set_queue(ada_client, str(account.pk), timezone="Europe/Paris")
    monday, friday, sunday = date(2026, 1, 5), date(2026, 1, 9), date(2026, 1, 11)
    for week in range(6):
        published(account, datetime.combine(monday, time(10), UTC) + timedelta(weeks=week),
                  100, 10)  # fmt: skip
    for week in range(3):
        published(account, datetime.combine(friday, time(15), UTC) + timedelta(weeks=week),
                  100, 20)  # fmt: skip
    assert (
        ada_client.get("/api/social/best-times", {"accountId": account.pk}).json()["data"]["source"]
        == "default"
    )  # 9 posts with metrics: not enough yet
    published(account, datetime.combine(sunday, time(20), UTC), 0, 0)
    response = ada_client.get("/api/social/best-times", {"accountId": account.pk})
    assert response.json()["data"] == {
        "accountId": str(account.pk),
        "timezone": "Europe/Paris",
        "source": "analytics",
        "times": [  # in Paris (UTC+1 in January); the platform's defaults complete the five
            {"day": "fri", "time": "16:00", "score": 0.2},
            {"day": "mon", "time": "11:00", "score": 0.1},
            {"day": "sun", "time": "21:00", "score": 0.0},
            {"day": "tue", "time": "09:00", "score": 0.0},
            {"day": "wed", "time": "09:00", "score": 0.0},
        ],
    }


def test_suggest_fills_an_empty_queue_only(ada_client, accounts):
    account = accounts["devto"]
    response = ada_client.post(f"/api/social/queue/{account}/slots/suggest")
    assert response.status_code == 200, response.content
    assert response.json()["data"]["slots"] == [
        {"day": "mon", "time": "08:00"},
        {"day": "tue", "time": "08:00"},
        {"day": "tue", "time": "14:00"},
        {"day": "wed", "time": "08:00"},
        {"day": "thu", "time": "08:00"},
    ]
    again = ada_client.post(f"/api/social/queue/{account}/slots/suggest")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "queue_not_empty"
    assert len(queue(ada_client, account, "Suggested", title="T")["scheduled_time"]) == 20


# --- Admin ---------------------------------------------------------------------------------------


def test_the_admin_shows_an_accounts_queue_and_its_series(admin_client, ada_client, accounts):
    account = accounts["mastodon"]
    set_queue(ada_client, account, slots=DAILY_AT_NINE)
    one = queue(ada_client, account, "Admin sees me")
    post_id, _ = schedule_series(ada_client, account)
    series = Series.objects.get()
    pages = {
        "queues": admin_client.get("/admin/social/accountqueue/"),
        "queue": admin_client.get(f"/admin/social/accountqueue/{account}/change/"),
        "series list": admin_client.get("/admin/social/series/"),
        "series": admin_client.get(f"/admin/social/series/{series.pk}/change/"),
        "records": admin_client.get("/admin/social/scheduledrecord/?queued__exact=1"),
    }
    assert {name: page.status_code for name, page in pages.items()} == dict.fromkeys(pages, 200)
    assert one["id"] in pages["queue"].content.decode()
    assert "Admin sees me" in pages["queue"].content.decode()
    assert "FREQ=WEEKLY" in pages["series"].content.decode()
    response = admin_client.post(
        "/admin/social/series/", {"action": "end", "_selected_action": [str(series.pk)]},
        follow=True,
    )  # fmt: skip
    assert "1 series ended; 1 waiting occurrence(s) cancelled." in response.content.decode()
    assert ScheduledRecord.objects.get(post_id=post_id).status == "Cancelled"


# --- Concurrency -------------------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("position", ["last", "next"])
def test_concurrent_queueing_never_takes_a_slot_twice(ada, accounts, position):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL); CI runs it")
    account = accounts["mastodon"]
    set_queue(client_for(ada), account, slots=DAILY_AT_NINE)
    requests = 6
    barrier = threading.Barrier(requests)
    statuses: list[int] = []

    def add(number: int) -> None:
        client = client_for(ada)
        try:
            barrier.wait()
            response = client.post(
                "/api/social/queue",
                {"content": f"Race {number}", "accountIds": [account], "position": position},
                format="json",
            )
            statuses.append(response.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=add, args=(n,)) for n in range(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [200] * requests
    times = sorted(ScheduledRecord.objects.values_list("scheduled_time", flat=True))
    assert times == slot_times(DAILY_AT_NINE, "UTC")[:requests]
