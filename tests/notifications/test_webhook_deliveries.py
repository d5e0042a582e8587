"""Deliveries to a local receiver: every event to each subscribed endpoint once, signed and
verifiable by the receiver's own library, retried with the same id, logged, disabled after
failures or a 410, isolated between users (social.md section 7)."""

import json
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.utils import timezone
from standardwebhooks import Webhook

from accounts.services.users import user_create
from accounts.services.workspaces import workspace_personal
from notifications import events
from notifications.models import (
    Notification,
    OutboxConsumption,
    WebhookDelivery,
    WebhookEndpoint,
)
from notifications.services.webhooks import (
    DELIVERY_BATCH,
    deliveries_create,
    deliveries_send,
    endpoint_create,
)
from notifications.tasks import webhook_sweep_task
from tests.factories import client_for

pytestmark = pytest.mark.django_db


class Receiver:
    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.answers: list[int] = []  # status codes to answer, in order; then 200
        self.delay = 0.0
        self.url = ""
        self.in_flight = 0
        self.peak = 0  # the most requests answered at once
        self.lock = threading.Lock()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            state.received.append({"headers": dict(self.headers), "body": body,
                                   "path": self.path})  # fmt: skip
            with state.lock:
                state.in_flight += 1
                state.peak = max(state.peak, state.in_flight)
            time.sleep(state.delay)
            with state.lock:
                state.in_flight -= 1
            status = state.answers.pop(0) if state.answers else 200
            raw = b'{"ok": true}'
            self.send_response(status)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    class Server(ThreadingHTTPServer):
        request_queue_size = 64  # a batch's connections at once, none refused

    server = Server(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


def endpoint_for(user: Any, url: str, eventnames: list[str] | None = None) -> dict[str, Any]:
    response = client_for(user).post(
        "/api/webhooks/endpoints",
        {"url": url, "events": eventnames or ["credits.depleted", "post.published"]},
        format="json",
    )
    assert response.status_code == 200, response.content
    return dict(response.json()["data"])


def emit(user: Any, capture: Any) -> Any:
    with capture(execute=True):
        return events.emit(
            user=user, payload=events.credits_depleted(user_id=str(user.pk), remaining_credits=0)
        )


def make_due() -> None:
    WebhookDelivery.objects.filter(status="pending").update(
        next_attempt_at=timezone.now() - timedelta(seconds=1)
    )


def sweep(capture: Any) -> None:
    with capture(execute=True):
        webhook_sweep_task.delay()


def test_an_event_reaches_the_endpoint_signed_and_verifiable(
    ada, receiver, django_capture_on_commit_callbacks
):
    endpoint = endpoint_for(ada, receiver.url)
    event = emit(ada, django_capture_on_commit_callbacks)
    (request,) = receiver.received
    payload = Webhook(endpoint["secret"]).verify(request["body"], request["headers"])
    assert payload == {
        "id": str(event.id),
        "event": "credits.depleted",
        "created_at": payload["created_at"],
        "data": {"userId": str(ada.pk), "remainingCredits": 0},
        "user": {"id": str(ada.pk), "email": "ada@example.com"},
        # workspaces.md section 1: her personal workspace's event, her doing
        "workspaceId": str(workspace_personal(user=ada).workspace_id),
        "actor": {"type": "user", "id": str(ada.pk)},
    }
    assert request["headers"]["webhook-id"] == str(event.id)
    assert request["headers"]["X-Service-Event"] == "credits.depleted"
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("succeeded", 1, 200)
    # The deliveries log.
    api = client_for(ada)
    listed = api.get("/api/webhooks/deliveries").json()["data"]
    assert [(d["event"], d["status"], d["attempts"]) for d in listed] == [
        ("credits.depleted", "succeeded", 1)
    ]
    detail = api.get(f"/api/webhooks/deliveries/{listed[0]['id']}").json()["data"]
    assert detail["payload"]["id"] == str(event.id)
    assert [(h["statusCode"], h["response"]) for h in detail["history"]] == [(200, '{"ok": true}')]


def test_failures_are_retried_with_the_same_id_then_succeed(
    ada, receiver, django_capture_on_commit_callbacks
):
    endpoint_for(ada, receiver.url)
    receiver.answers = [500, 503]
    emit(ada, django_capture_on_commit_callbacks)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts) == ("pending", 1)
    assert delivery.next_attempt_at is not None
    assert 3 <= (delivery.next_attempt_at - timezone.now()).total_seconds() <= 5  # first: 5 s
    sweep(django_capture_on_commit_callbacks)  # not due yet: nothing sent
    assert len(receiver.received) == 1
    for _ in range(2):
        make_due()
        sweep(django_capture_on_commit_callbacks)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("succeeded", 3)
    ids = {request["headers"]["webhook-id"] for request in receiver.received}
    assert len(ids) == 1
    assert len({request["body"] for request in receiver.received}) == 1
    assert [a.status_code for a in delivery.history.all()] == [500, 503, 200]


def test_an_endpoint_is_disabled_after_consecutive_failed_deliveries(
    ada, receiver, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_RETRY_SCHEDULE = [1]
    settings.WEBHOOK_DISABLE_AFTER_FAILURES = 2
    endpoint_for(ada, receiver.url)
    receiver.answers = [500] * 10
    for _ in range(2):
        emit(ada, django_capture_on_commit_callbacks)
        make_due()
        sweep(django_capture_on_commit_callbacks)
    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.active is False
    assert "2 deliveries in a row failed" in endpoint.disabled_reason
    alert = Notification.objects.get(type="system_alert")
    assert endpoint.url in alert.message
    # Nothing more goes to it; re-activating clears the reason.
    sent = len(receiver.received)
    emit(ada, django_capture_on_commit_callbacks)
    assert len(receiver.received) == sent
    patched = client_for(ada).patch(f"/api/webhooks/endpoints/{endpoint.pk}", {"active": True},
                                    format="json").json()["data"]  # fmt: skip
    assert (patched["active"], patched["disabled_reason"]) == (True, None)  # null once re-activated


def test_a_410_disables_at_once(ada, receiver, django_capture_on_commit_callbacks):
    endpoint_for(ada, receiver.url)
    receiver.answers = [410]
    emit(ada, django_capture_on_commit_callbacks)
    assert WebhookDelivery.objects.get().status == "failed"
    assert WebhookEndpoint.objects.get().disabled_reason == "The endpoint answered 410 Gone."


def test_users_get_only_their_own_events(ada, receiver, django_capture_on_commit_callbacks):
    grace = user_create(email="grace@example.com")
    endpoint_for(grace, receiver.url)
    endpoint_for(ada, receiver.url, ["post.published"])  # not subscribed to this event
    emit(ada, django_capture_on_commit_callbacks)
    assert receiver.received == []
    assert not WebhookDelivery.objects.exists()
    mallory = client_for(user_create(email="mallory@example.com"))
    emit(grace, django_capture_on_commit_callbacks)
    delivery = WebhookDelivery.objects.get()
    assert mallory.get(f"/api/webhooks/deliveries/{delivery.pk}").status_code == 404
    assert mallory.post(f"/api/webhooks/deliveries/{delivery.pk}/redeliver").status_code == 404
    assert mallory.get("/api/webhooks/deliveries").json()["data"] == []


def test_an_event_no_endpoint_wants_is_recorded_dispatched_and_queues_nothing(
    ada, receiver, django_capture_on_commit_callbacks
):
    """Most users have no endpoint: their events stay in the outbox (retention) but cost no
    dispatch task and no consumer rows; an endpoint created later gets the later events."""
    endpoint_for(ada, receiver.url, ["post.published"])  # not subscribed to credits.depleted
    with django_capture_on_commit_callbacks(execute=True) as queued:
        unwanted = events.emit(
            user=ada, payload=events.credits_depleted(user_id=str(ada.pk), remaining_credits=0)
        )
    assert len(queued) == 1  # the live feed's announcement only: no dispatch task
    unwanted.refresh_from_db()
    assert unwanted.dispatched_at is not None
    assert not OutboxConsumption.objects.exists()
    endpoint_for(ada, receiver.url)  # subscribed to credits.depleted
    wanted = emit(ada, django_capture_on_commit_callbacks)
    assert [json.loads(request["body"])["id"] for request in receiver.received] == [str(wanted.id)]
    assert OutboxConsumption.objects.get().event_id == wanted.sequence


def test_a_slow_receiver_times_out_and_is_retried(
    ada, receiver, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.3
    receiver.delay = 0.6
    endpoint_for(ada, receiver.url)
    emit(ada, django_capture_on_commit_callbacks)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.last_status_code) == ("pending", None)
    assert "in time" in delivery.last_error


def test_a_private_address_is_refused_at_delivery(
    ada, receiver, settings, django_capture_on_commit_callbacks
):
    endpoint_for(ada, receiver.url)  # allowed when created (development setting)
    settings.OUTBOUND_ALLOW_PRIVATE = False
    emit(ada, django_capture_on_commit_callbacks)
    assert receiver.received == []
    delivery = WebhookDelivery.objects.get()
    assert "https" in delivery.last_error or "public" in delivery.last_error


def test_redeliver_and_test_event(ada, receiver, django_capture_on_commit_callbacks):
    endpoint = endpoint_for(ada, receiver.url)
    emit(ada, django_capture_on_commit_callbacks)
    api = client_for(ada)
    delivery = api.get("/api/webhooks/deliveries").json()["data"][0]
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/webhooks/deliveries/{delivery['id']}/redeliver")
    assert response.status_code == 202
    assert len(receiver.received) == 2
    assert (
        receiver.received[0]["headers"]["webhook-id"]
        == receiver.received[1]["headers"]["webhook-id"]
    )
    with django_capture_on_commit_callbacks(execute=True):
        test = api.post(f"/api/webhooks/endpoints/{endpoint['id']}/test")
    assert test.status_code == 202
    assert json.loads(receiver.received[-1]["body"])["event"] == "webhook.test"
    Webhook(endpoint["secret"]).verify(receiver.received[-1]["body"],
                                       receiver.received[-1]["headers"])  # fmt: skip


def test_a_burst_is_sent_concurrently_each_delivery_once(
    ada, receiver, django_capture_on_commit_callbacks
):
    """Events recorded together: one dispatch pass takes them all, one delivery task sends a
    batch at once (a thread each), and the other tasks find their delivery sent already."""
    endpoint_for(ada, receiver.url)
    receiver.delay = 0.2
    with django_capture_on_commit_callbacks(execute=True):
        sent = [
            events.emit(
                user=ada,
                payload=events.credits_depleted(user_id=str(ada.pk), remaining_credits=0),
            )
            for _ in range(20)
        ]
    ids = sorted(request["headers"]["webhook-id"] for request in receiver.received)
    assert ids == sorted(str(event.id) for event in sent)  # every event once, none twice
    assert set(WebhookDelivery.objects.values_list("status", "attempts")) == {("succeeded", 1)}
    assert receiver.peak > 1  # sent side by side, not one after the other


def test_one_owners_burst_does_not_hold_up_another_owners_delivery(
    ada, bob, receiver, settings, django_capture_on_commit_callbacks
):
    """Ada's 300 endpoints turn one event into 300 deliveries, queued before Bob's one; the
    delivery tasks take owners in turn, so Bob's is sent with the first batch, not after
    Ada's burst."""
    settings.WEBHOOK_ENDPOINTS_PER_USER = 300
    ada_personal, bob_personal = workspace_personal(user=ada), workspace_personal(user=bob)
    for n in range(300):
        endpoint_create(
            actor=ada_personal, url=f"{receiver.url}/ada/{n}", events=["credits.depleted"]
        )
    endpoint_create(actor=bob_personal, url=f"{receiver.url}/bob", events=["credits.depleted"])
    queued = []
    for owner in (ada, bob):  # Ada's event first: her deliveries' tasks are queued first
        with django_capture_on_commit_callbacks():  # the outbox's own dispatch is not run
            event = events.emit(user=owner, payload=events.credits_depleted(
                user_id=str(owner.pk), remaining_credits=0))  # fmt: skip
        with django_capture_on_commit_callbacks() as tasks:
            assert deliveries_create(event) == (300 if owner == ada else 1)
        queued += tasks
    for task in queued:  # the worker takes the queue's tasks in order
        task()
    paths = [request["path"] for request in receiver.received]
    assert len(paths) == 301
    assert paths.index("/hooks/bob") < DELIVERY_BATCH  # in the first batch sent
    assert set(WebhookDelivery.objects.values_list("status", "attempts")) == {("succeeded", 1)}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_turns_at_once_send_two_batches_each_delivery_once(ada, receiver, settings):
    """Two delivery tasks choosing their turn at the same moment choose the same deliveries;
    the one that loses them to the other chooses again from what is left."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection, connections

    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL); CI runs it")
    settings.WEBHOOK_ENDPOINTS_PER_USER = 2 * DELIVERY_BATCH
    now = timezone.now()
    actor = workspace_personal(user=ada)
    WebhookDelivery.objects.bulk_create(
        WebhookDelivery(endpoint=endpoint_create(actor=actor, url=f"{receiver.url}/{n}",
                                                 events=["credits.depleted"])[0],
                        workspace_id=actor.workspace_id,
                        event_id=uuid.uuid4(), event="credits.depleted", body="{}",
                        next_attempt_at=now, created_at=now)
        for n in range(2 * DELIVERY_BATCH)
    )  # fmt: skip
    barrier = threading.Barrier(2)

    def one_turn(_: int) -> int:
        try:
            barrier.wait()
            return sum(deliveries_send().values())
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=2) as pool:
        assert sorted(pool.map(one_turn, range(2))) == [DELIVERY_BATCH, DELIVERY_BATCH]
    assert len(receiver.received) == 2 * DELIVERY_BATCH
    assert set(WebhookDelivery.objects.values_list("status", "attempts")) == {("succeeded", 1)}
