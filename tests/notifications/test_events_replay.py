"""`GET /api/events?after=&limit=` (social.md section 12): the user's domain events for 30 days,
in order, under the live feed's ids, whichever consumers wanted them; and the same events on
the live feed, named by their type."""

import json
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import Workspace
from accounts.scopes import Scope
from notifications.api.stream import event_text
from notifications.models import LiveEvent, OutboxEvent
from notifications.services.livefeed import events_since, message_of
from tests.factories import api_key_for, client_with_key

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def settled(settings) -> None:
    settings.EVENTS_REPLAY_SETTLE_SECONDS = 0


def save(client: Any, **body: Any) -> str:
    response = client.post("/api/social/posts", {"content": "Hello", **body}, format="json")
    assert response.status_code == 200, response.content
    return str(response.json()["data"]["id"])


def replay(client: Any, **query: Any) -> Any:
    response = client.get("/api/events", query)
    assert response.status_code == 200, response.content
    return response.json()


def test_the_users_events_in_order_under_the_live_feeds_ids(ada_client, bob_client):
    first = save(ada_client, title="One")
    save(ada_client, id=first, title="One, edited")
    second = save(ada_client, title="Two")
    assert ada_client.delete(f"/api/social/posts/{second}").status_code == 200
    save(bob_client, title="Bob's")
    body = replay(ada_client)
    events = body["data"]
    assert [(e["type"], e["data"]["postId"]) for e in events] == [
        ("post.created", first),
        ("post.updated", first),
        ("post.created", second),
        ("post.deleted", second),
    ]
    rows = list(OutboxEvent.objects.filter(user__email="ada@example.com").order_by("sequence"))
    lives = list(LiveEvent.objects.filter(kind="event", user__email="ada@example.com"))
    assert [e["id"] for e in events] == [row.live_id for row in rows] == [live.id for live in lives]
    assert events[1] == {
        "id": rows[1].live_id,
        "type": "post.updated",
        "created_at": rows[1].created_at.isoformat().replace("+00:00", "Z"),
        "data": rows[1].data,
        "eventId": str(rows[1].id),
        # workspaces.md section 1: its workspace (Ada's personal one), and who did it
        "workspaceId": str(Workspace.objects.get(personal_user_id=rows[1].user_id).pk),
        "actor": {"type": "user", "id": str(rows[1].user_id)},
    }
    assert events[1]["data"]["title"] == "One, edited"
    assert body["meta"] == {"nextCursor": str(events[-1]["id"]), "hasMore": False}


def test_pages_resume_after_a_cursor_an_id_or_a_webhook_id(ada_client):
    for number in range(5):
        save(ada_client, title=f"Post {number}")
    everything = replay(ada_client)["data"]
    page = replay(ada_client, limit=2)
    assert [e["id"] for e in page["data"]] == [e["id"] for e in everything[:2]]
    assert page["meta"] == {"nextCursor": str(everything[1]["id"]), "hasMore": True}
    rest = replay(ada_client, after=page["meta"]["nextCursor"])
    assert [e["id"] for e in rest["data"]] == [e["id"] for e in everything[2:]]
    # A webhook consumer resumes after the last delivery it saw (its webhook-id).
    by_webhook_id = replay(ada_client, after=everything[1]["eventId"])
    assert by_webhook_id["data"] == rest["data"]
    # Nothing new: the cursor stays where it was, to poll again later.
    done = replay(ada_client, after=rest["meta"]["nextCursor"])
    meta = {"nextCursor": rest["meta"]["nextCursor"], "hasMore": False}
    assert done == {"success": True, "data": [], "meta": meta}


@pytest.mark.parametrize("cursor", ["yesterday", "00000000-0000-0000-0000-000000000000", "-1"])
def test_a_cursor_that_names_no_event_of_the_user_is_400(ada_client, bob_client, cursor):
    response = ada_client.get("/api/events", {"after": cursor})
    assert (response.status_code, response.json()["error"]["code"]) == (400, "invalid_cursor")


def test_another_users_event_id_is_no_cursor(ada_client, bob_client):
    save(bob_client)
    bobs = replay(bob_client)["data"][0]["eventId"]
    response = ada_client.get("/api/events", {"after": bobs})
    assert (response.status_code, response.json()["error"]["code"]) == (400, "invalid_cursor")


@pytest.mark.parametrize("limit", [0, 501, "many"])
def test_a_bad_limit_is_400(ada_client, limit):
    response = ada_client.get("/api/events", {"limit": limit})
    assert (response.status_code, list(response.json()["error"]["details"])) == (400, ["limit"])


def test_thirty_days_are_kept_and_the_newest_seconds_held_back(ada_client, settings):
    old, kept = save(ada_client, title="Old"), save(ada_client, title="Kept")
    OutboxEvent.objects.filter(data__postId=old).update(
        created_at=timezone.now() - timedelta(days=30, minutes=1)
    )
    OutboxEvent.objects.filter(data__postId=kept).update(
        created_at=timezone.now() - timedelta(days=29)
    )
    settings.EVENTS_REPLAY_SETTLE_SECONDS = 2
    fresh = save(ada_client, title="Fresh")
    assert [e["data"]["postId"] for e in replay(ada_client)["data"]] == [kept]
    OutboxEvent.objects.filter(data__postId=fresh).update(
        created_at=timezone.now() - timedelta(seconds=3)
    )
    assert [e["data"]["postId"] for e in replay(ada_client)["data"]] == [kept, fresh]


def test_events_no_webhook_wanted_are_replayed(ada_client):
    """No endpoint: the outbox records the event dispatched already, and keeps it."""
    post_id = save(ada_client)
    row = OutboxEvent.objects.get()
    assert row.dispatched_at is not None
    assert [e["data"]["postId"] for e in replay(ada_client)["data"]] == [post_id]


def test_a_key_with_the_webhooks_scope_reads_the_replay(ada, ada_client):
    save(ada_client)
    reader = client_with_key(api_key_for(ada, Scope.WEBHOOKS_WRITE))
    assert len(reader.get("/api/events").json()["data"]) == 1
    other = client_with_key(api_key_for(ada, Scope.POSTS_READ, Scope.POSTS_WRITE))
    assert other.get("/api/events").status_code == 403


def test_the_live_feed_sends_each_event_named_by_its_type_with_the_same_id(ada, ada_client):
    post_id = save(ada_client)
    (replayed,) = replay(ada_client)["data"]
    (live,) = LiveEvent.objects.filter(kind="event")
    text = event_text(json.loads(message_of(live))).decode()
    head, data = text.split("data: ", 1)
    assert head == f"id: {live.id}\nevent: post.created\n"
    assert json.loads(data) == replayed
    assert replayed["data"]["postId"] == post_id
    # A reconnect's backlog (Last-Event-ID) includes it.
    workspaces = [replayed["workspaceId"]]
    backlog = events_since(user_id=ada.pk, workspaces=workspaces, after=live.id - 1)
    assert [row.id for row in backlog] == [live.id]
