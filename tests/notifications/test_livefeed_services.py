"""The live feed's services: tickets (single use, 60 seconds, only a digest kept), what a
reconnect reads (an hour back, the user's own), and the retention purge."""

import json
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.services.users import user_create
from notifications.events import credits_changed, emit
from notifications.models import LiveEvent, LiveTicket
from notifications.services.livefeed import (
    events_since,
    live_purge,
    ticket_issue,
    ticket_redeem,
)
from tests.factories import client_for

pytestmark = pytest.mark.django_db


def test_a_ticket_opens_one_stream_within_a_minute(ada):
    response = client_for(ada).post("/api/events/ticket")
    assert response.status_code == 200, response.content
    ticket = response.json()["data"]["ticket"]
    stored = LiveTicket.objects.get()
    assert ticket not in stored.digest  # only the digest is kept
    assert stored.expires_at - timezone.now() <= timedelta(seconds=60)
    redeemed = ticket_redeem(ticket=ticket)
    assert redeemed is not None
    assert redeemed[0] == ada.pk
    assert redeemed[1] == stored.session != ""  # bound to the sign-in that asked for it
    assert ticket_redeem(ticket=ticket) is None  # used


def test_an_expired_or_unknown_ticket_opens_nothing(ada):
    ticket, _ = ticket_issue(user=ada)
    LiveTicket.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert ticket_redeem(ticket=ticket) is None
    assert ticket_redeem(ticket="evt_" + "x" * 43) is None
    assert ticket_redeem(ticket="not-a-ticket") is None


def test_a_ticket_needs_a_signed_in_user(api):
    assert api.post("/api/events/ticket").status_code == 401


def test_a_reconnect_reads_its_own_last_hour(ada):
    bob = user_create(email="bob@example.com")
    LiveEvent.objects.all().delete()  # what signing up wrote (the starting credits)
    emit(user=ada.pk, payload=credits_changed(credits_remaining=5))
    emit(user=bob.pk, payload=credits_changed(credits_remaining=9))
    first = LiveEvent.objects.filter(user=ada).get()
    emit(user=ada.pk, payload=credits_changed(credits_remaining=4))
    assert [e.data for e in events_since(user_id=ada.pk, workspaces=[], after=0)] == [
        {"creditsRemaining": 5},
        {"creditsRemaining": 4},
    ]
    assert [e.data for e in events_since(user_id=ada.pk, workspaces=[], after=first.id)] == [
        {"creditsRemaining": 4}
    ]
    LiveEvent.objects.filter(pk=first.pk).update(created_at=timezone.now() - timedelta(hours=2))
    assert [e.data for e in events_since(user_id=ada.pk, workspaces=[], after=0)] == [
        {"creditsRemaining": 4}
    ]
    assert live_purge() == 1
    assert LiveEvent.objects.count() == 2


def test_a_wsgi_server_gets_a_clear_error_instead_of_an_endless_request(ada):
    response = client_for(ada).get("/api/events/stream")
    assert response.status_code == 501
    assert response.json()["error"]["code"] == "stream_needs_asgi"


@pytest.mark.redis
def test_two_deployments_on_one_redis_hear_only_their_own_events(redis_url, settings):
    # Redis publish/subscribe ignores the database number: the channel name keeps them apart.
    import time as clock

    import redis as redis_client

    from notifications.services import livefeed

    settings.REDIS_URL = redis_url
    run = uuid.uuid4().hex  # channels of this run only (another run may share the Redis)
    staging_channel, production_channel = f"fgp:livefeed:staging-{run}", f"fgp:livefeed:prod-{run}"
    staging = redis_client.Redis.from_url(redis_url).pubsub(  # type: ignore[no-untyped-call]
        ignore_subscribe_messages=True
    )
    staging.subscribe(staging_channel)
    settings.LIVEFEED_CHANNEL = production_channel
    livefeed._announce('[{"for": "production"}]', 1)
    settings.LIVEFEED_CHANNEL = staging_channel
    livefeed._announce('[{"for": "staging"}]', 1)
    heard = []
    deadline = clock.monotonic() + 2
    while clock.monotonic() < deadline:
        message = staging.get_message(timeout=0.2)
        if message is not None:
            heard.append(message["data"])
    staging.close()
    assert heard == [b'[{"for": "staging"}]']


@pytest.mark.redis
def test_the_events_of_one_write_travel_as_one_message(
    redis_url, settings, ada, bob, django_capture_on_commit_callbacks
):
    import time as clock

    import redis as redis_client
    from django.db import transaction

    from notifications.models import LiveEvent, LiveEventKind
    from notifications.services import livefeed

    settings.REDIS_URL = redis_url
    settings.LIVEFEED_CHANNEL = f"fgp:livefeed:batch-{uuid.uuid4().hex}"
    listener = redis_client.Redis.from_url(redis_url).pubsub(  # type: ignore[no-untyped-call]
        ignore_subscribe_messages=True
    )
    listener.subscribe(settings.LIVEFEED_CHANNEL)
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        ids = livefeed.live_publish_many(
            items=[
                (ada.pk, LiveEventKind.POST, {"n": 1}, None),
                (bob.pk, LiveEventKind.CREDITS, {"n": 2}, None),
                (ada.pk, LiveEventKind.POST, {"n": 3}, None),
            ]
        )
    heard: list[bytes] = []
    deadline = clock.monotonic() + 2
    while clock.monotonic() < deadline and not heard:
        message = listener.get_message(timeout=0.2)
        if message is not None:
            heard.append(message["data"])
    listener.close()
    assert len(heard) == 1
    rows = list(LiveEvent.objects.filter(pk__in=ids).order_by("id"))
    assert [row.id for row in rows] == ids
    # What a stream hears is what the table replays (the poller's and the catch-up's message).
    assert livefeed.messages_in(heard[0]) == [json.loads(livefeed.message_of(row)) for row in rows]
    assert livefeed.messages_in(heard[0])[0] == {
        "id": ids[0],
        "user": str(ada.pk),
        "kind": "post",
        "data": {"n": 1},
        "workspace": None,
    }


def test_the_default_channel_names_the_database():
    from config.settings import base

    assert base.LIVEFEED_CHANNEL.startswith("fgp:livefeed:")
    assert base.LIVEFEED_CHANNEL != "fgp:livefeed:"
