"""The lifecycle events of social.md section 12, each from the change it describes, through the
one outbox (webhooks) and the live feed: posts created, updated, deleted and partially
published, records moved, cancelled (by the user, a series' end, a disconnect, a queue's
reorder), accounts connected, reconnected, expiring and expired."""

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from notifications import events
from notifications.models import LiveEvent, Notification, OutboxEvent, WebhookDelivery
from social.models import SocialAccount, SocialSettings
from social.tasks import accounts_maintain_task
from tests.factories import client_for
from tests.social.conftest import connect
from tests.social.test_scheduler import run, schedule

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]


def events_of(name: str) -> list[dict[str, Any]]:
    return [e.data for e in OutboxEvent.objects.filter(event=name).order_by("sequence")]


def later(hours: float = 2) -> str:
    return (timezone.now() + timedelta(hours=hours)).isoformat()


def test_posts_created_updated_deleted(ada_client):
    created = ada_client.post(
        "/api/social/posts", {"title": "T", "content": "Hello", "platforms": ["devto"]},
        format="json",
    ).json()["data"]  # fmt: skip
    ada_client.post("/api/social/posts", {"id": created["id"], "title": "T2"}, format="json")
    ada_client.delete(f"/api/social/posts/{created['id']}")
    assert events_of("post.created") == [
        {
            "postId": created["id"],
            "title": "T",
            "status": "Draft",
            "platforms": ["devto"],
            "campaignId": None,
            "updatedAt": created["updated_at"],
        }
    ]
    (updated,) = events_of("post.updated")
    assert (updated["postId"], updated["title"]) == (created["id"], "T2")
    assert events_of("post.deleted") == [{"postId": created["id"], "recordIds": []}]


def test_a_post_published_now_is_created_too(ada_client, ada_accounts, providers):
    ada_client.post(
        "/api/social/publish",
        {"content": "Now", "accountIds": [ada_accounts["mastodon"]["id"]]},
        format="json",
    )
    (created,) = events_of("post.created")
    assert [e["postId"] for e in events_of("post.published")] == [created["postId"]]


def test_records_moved_and_cancelled(ada_client, ada_accounts, providers):
    (record_id,) = [
        r["id"]
        for r in ada_client.post(
            "/api/social/schedule",
            {"content": "Moving", "scheduledTime": later(2),
             "accountIds": [ada_accounts["devto"]["id"]], "title": "T"},
            format="json",
        ).json()["data"]["scheduledRecords"]
    ]  # fmt: skip
    before = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    moved = ada_client.patch(
        f"/api/social/schedule/{record_id}", {"scheduledTime": later(5)}, format="json"
    ).json()["data"]
    ada_client.delete(f"/api/social/schedule/{record_id}")
    assert events_of("schedule.moved") == [
        {
            "recordId": record_id,
            "postId": moved["postId"],
            "accountId": ada_accounts["devto"]["id"],
            "platform": "devto",
            "scheduledAt": moved["scheduled_time"],
            "previousScheduledAt": before["scheduled_time"],
            "queued": False,
        }
    ]
    assert events_of("schedule.cancelled") == [
        {
            "recordId": record_id,
            "postId": moved["postId"],
            "accountId": ada_accounts["devto"]["id"],
            "platform": "devto",
            "scheduledAt": moved["scheduled_time"],
            "reason": "cancelled",
        }
    ]
    live = [e.data["type"] for e in LiveEvent.objects.filter(kind="event").order_by("id")]
    assert live[-2:] == ["schedule.moved", "schedule.cancelled"]


def test_a_disconnect_cancels_with_its_reason(ada_client, ada_accounts, providers):
    schedule(ada_client, ada_accounts, "mastodon")
    ada_client.post(
        "/api/social/disconnect", {"accountId": ada_accounts["mastodon"]["id"]}, format="json"
    )
    assert [e["reason"] for e in events_of("schedule.cancelled")] == ["account_disconnected"]


def test_a_queue_reorder_moves_its_records(ada_client, ada_accounts, providers):
    account = ada_accounts["mastodon"]["id"]
    slots = [{"day": day, "time": "09:00"} for day in ("mon", "tue", "wed", "thu", "fri")]
    ada_client.put(f"/api/social/queue/{account}", {"slots": slots}, format="json")
    first, second = (
        ada_client.post(
            "/api/social/queue", {"content": text, "accountIds": [account]}, format="json"
        ).json()["data"]["scheduledRecords"][0]
        for text in ("First", "Second")
    )
    ada_client.post(
        f"/api/social/queue/{account}/reorder",
        {"recordIds": [second["id"], first["id"]]},
        format="json",
    )
    moved = {e["recordId"]: e for e in events_of("schedule.moved")}
    assert moved[second["id"]]["scheduledAt"] == first["scheduled_time"]
    assert moved[second["id"]]["previousScheduledAt"] == second["scheduled_time"]
    assert moved[first["id"]]["scheduledAt"] == second["scheduled_time"]
    assert moved[first["id"]]["queued"] is True


def test_a_post_partially_published(client, ada_client, ada_accounts, providers):
    providers.devto.expired = True
    schedule(ada_client, ada_accounts, "mastodon", "devto")
    run(client)
    (partial,) = events_of("post.partially_published")
    assert partial["status"] == "PartiallyPublished"
    assert [(p["platform"], p["postUrl"].startswith("http")) for p in partial["published"]] == [
        ("mastodon", True)
    ]
    (missing,) = partial["notPublished"]
    assert (missing["platform"], missing["status"], missing["error"]["category"]) == (
        "devto",
        "Failed",
        "auth_expired",
    )


def test_accounts_connected_reconnected_expiring_expired(ada_client, providers):
    first = connect(ada_client, "linkedin").json()["data"]
    again = connect(ada_client, "linkedin").json()["data"]
    assert first["id"] == again["id"]
    assert [e["accountId"] for e in events_of("account.connected")] == [first["id"]]
    assert events_of("account.reconnected") == [
        {"accountId": first["id"], "platform": "linkedin", "username": "ada@example.com",
         "status": "connected"}
    ]  # fmt: skip
    SocialAccount.objects.filter(pk=first["id"]).update(
        expires_at=timezone.now() + timedelta(days=6)
    )
    accounts_maintain_task.delay()
    (expiring,) = events_of("account.expiring")
    assert (expiring["accountId"], expiring["days"]) == (first["id"], 7)
    SocialAccount.objects.filter(pk=first["id"]).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    accounts_maintain_task.delay()
    assert [(e["accountId"], e["status"]) for e in events_of("account.expired")] == [
        (first["id"], "expired")
    ]


def test_the_account_notifications_come_from_the_account_events(ada):
    """The accounts' lifecycle events bring their notifications through the social hub's
    subscriber, whoever emits them (connecting or failing to, the daily upkeep, a refused
    token), as the user's settings say; the texts are those the writers always wrote."""
    account = str(uuid.uuid4())
    ends = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
    on = {"accountId": account, "platform": "mastodon"}
    events.emit_many(
        items=[
            (ada.pk, events.account_connected(account_id=account, platform="mastodon",
                                              username="ada", reconnected=False)),
            (ada.pk, events.account_expiring(account_id=account, platform="mastodon",
                                             username="", expires_at=ends, days=1)),
            (ada.pk, events.account_expired(account_id=account, platform="mastodon",
                                            username="ada", reason="token revoked")),
            (ada.pk, events.account_connect_failed(platform="mastodon",
                                                   reason="The instance refused.")),
        ],
        actor=events.SYSTEM,
    )  # fmt: skip
    rows = Notification.objects.filter(user=ada)
    assert sorted((n.title, n.type, n.message, n.metadata) for n in rows) == [
        ("Mastodon connected", "account_connected",
         "ada is connected: you can publish and schedule to it.", on),
        ("Mastodon could not be connected", "account_connect_failed", "The instance refused.",
         {"platform": "mastodon"}),
        ("Reconnect Mastodon", "token_expiring",
         "Mastodon no longer accepts the connection of ada: reconnect it to keep publishing. "
         "(token revoked)", {**on, "expired": True}),
        ("Reconnect Mastodon soon", "token_expiring",
         "The connection to Mastodon expires tomorrow. Reconnect it to keep your scheduled "
         "posts publishing.", {**on, "expiresAt": "2026-12-01T09:30:00+00:00"}),
    ]  # fmt: skip
    SocialSettings.objects.update_or_create(
        workspace=ada.personal_workspace,
        defaults={"notification_preferences": {"tokenExpiry": False}},
    )
    events.emit(user=ada, payload=events.account_expired(
        account_id=account, platform="mastodon", username="ada", reason=""))  # fmt: skip
    assert rows.count() == 4  # turned off: no new notification


def test_events_say_who_made_them_happen(ada, ada_client, providers, settings):
    """`actor` (workspaces.md section 1) beside each event's id, type and time, in the outbox,
    the live feed and the replay: the user who connected the account, the system whose upkeep
    warned of its expiry; an event recorded before actors were replays as its user's."""
    settings.EVENTS_REPLAY_SETTLE_SECONDS = 0  # replay what just committed
    account = connect(ada_client, "linkedin").json()["data"]
    SocialAccount.objects.filter(pk=account["id"]).update(
        expires_at=timezone.now() + timedelta(days=6)
    )
    accounts_maintain_task.delay()
    ada_did, system = {"type": "user", "id": str(ada.pk)}, {"type": "system"}
    wanted = ("account.connected", "account.expiring")

    def actors() -> list[tuple[str, Any]]:
        replayed = ada_client.get("/api/events").json()["data"]
        return [(e["type"], e["actor"]) for e in replayed if e["type"] in wanted]

    assert actors() == [("account.connected", ada_did), ("account.expiring", system)]
    stream = LiveEvent.objects.filter(kind="event", data__type__in=wanted).order_by("id")
    assert [live.data["actor"] for live in stream] == [ada_did, system]
    OutboxEvent.objects.filter(event="account.expiring").update(actor={})
    assert actors() == [("account.connected", ada_did), ("account.expiring", ada_did)]


def test_webhooks_subscribed_to_lifecycle_events_get_them(
    ada, ada_client, providers, django_capture_on_commit_callbacks, settings
):
    settings.OUTBOUND_ALLOW_PRIVATE = True
    endpoint = ada_client.post(
        "/api/webhooks/endpoints",
        {"url": f"{providers.cdn.url}/hook", "events": ["post.created", "account.connected"]},
        format="json",
    )
    assert endpoint.status_code == 200, endpoint.content
    with django_capture_on_commit_callbacks(execute=True):
        ada_client.post("/api/social/posts", {"content": "Hello"}, format="json")
    with django_capture_on_commit_callbacks(execute=True):
        connect(client_for(ada), "devto")
    deliveries = WebhookDelivery.objects.order_by("created_at")
    assert [d.event for d in deliveries] == ["post.created", "account.connected"]
    body = json.loads(deliveries[0].body)
    assert (body["event"], body["id"]) == ("post.created", str(deliveries[0].event_id))
