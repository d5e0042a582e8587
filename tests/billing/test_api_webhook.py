"""POST /api/webhooks/payment: signed, stored once, applied exactly once."""

import hashlib
import hmac
import json
import threading

import pytest
from django.db import connection
from razorpay.utility import Utility  # type: ignore[import-untyped]
from rest_framework.test import APIClient

from accounts.models import User
from billing.models import CreditTransaction, PaymentEvent, PaymentEventStatus
from billing.services.payments import payment_signature_verify
from notifications import events
from notifications.models import Notification, OutboxEvent
from tests.billing.conftest import SECRET, order_paid, payment_failed, subscription_charged

pytestmark = pytest.mark.django_db


def state(user: User) -> tuple:
    user.refresh_from_db()
    return (
        user.plan,
        user.credits_remaining,
        PaymentEvent.objects.count(),
        CreditTransaction.objects.count(),
        Notification.objects.count(),
    )


def test_order_paid_upgrades_and_credits_and_notifies(webhook, ada, settings):
    response = webhook(order_paid(notes={"user_id": str(ada.pk), "plan": "pro"}), event_id="evt_1")
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": "Received",
        "data": {"eventId": "evt_1", "status": "applied", "duplicate": False},
    }
    ada.refresh_from_db()
    quota = settings.PLANS["pro"]["monthly_quota"]
    assert (ada.plan, ada.monthly_quota, ada.credits_remaining) == ("pro", quota, 20 + quota)
    types = sorted(Notification.objects.filter(user=ada).values_list("type", "category"))
    assert types == [("payment_success", "Billing"), ("plan_upgrade", "Billing")]
    success = Notification.objects.get(type="payment_success")
    assert "INR 499.00" in success.message
    event = PaymentEvent.objects.get()
    assert (event.status, event.user_id, event.event_type) == ("applied", ada.pk, "order.paid")


def test_user_found_by_email_in_any_case(webhook, ada):
    webhook(order_paid(notes={"email": "ADA@example.com", "plan": "agency"}, amount=199900))
    ada.refresh_from_db()
    assert ada.plan == "agency"


def test_event_id_is_derived_from_the_payload_without_the_header(webhook, ada):
    body = order_paid(notes={"user_id": str(ada.pk), "plan": "pro"}, order_id="order_42")
    assert webhook(body).json()["data"]["eventId"] == "order.paid:pay_order_42"
    assert webhook(body).json()["data"]["duplicate"] is True
    assert PaymentEvent.objects.count() == 1


def test_a_repeated_event_is_applied_once(webhook, ada):
    body = order_paid(notes={"user_id": str(ada.pk), "plan": "pro"})
    webhook(body, event_id="evt_same")
    after_first = state(ada)
    again = webhook(body, event_id="evt_same")
    assert again.status_code == 200
    assert again.json()["data"] == {"eventId": "evt_same", "status": "applied", "duplicate": True}
    assert state(ada) == after_first
    assert PaymentEvent.objects.get().attempts == 2


def test_subscription_charged_tops_up_to_the_quota(webhook, ada):
    from billing.services.credits import credits_spend, plan_apply

    plan_apply(user=ada, plan="pro")
    credits_spend(user=ada, cost=150)
    response = webhook(subscription_charged(notes={"user_id": str(ada.pk)}), event_id="evt_s")
    assert response.json()["data"]["status"] == "applied"
    ada.refresh_from_db()
    assert ada.credits_remaining == ada.monthly_quota == 200
    assert Notification.objects.filter(user=ada, type="payment_success").count() == 1


def test_payment_failed_notifies_with_the_reason(webhook, ada):
    before = ada.credits_remaining
    webhook(payment_failed(notes={"email": "ada@example.com"}))
    note = Notification.objects.get(user=ada)
    assert (note.type, note.category) == ("payment_failed", "Billing")
    assert "Card declined by the bank" in note.message
    ada.refresh_from_db()
    assert ada.credits_remaining == before


def test_event_for_no_known_user_is_stored_and_answered_200(webhook, ada):
    response = webhook(order_paid(notes={"email": "ghost@example.com", "plan": "pro"}))
    assert response.status_code == 200
    assert response.json()["data"]["status"] == "unmatched"
    event = PaymentEvent.objects.get()
    assert event.user is None
    assert json.loads(event.raw_body)["event"] == "order.paid"
    assert not Notification.objects.exists()


def test_unknown_event_type_is_stored_as_ignored(webhook, ada):
    response = webhook({"event": "refund.processed", "payload": {}}, event_id="evt_r")
    assert response.status_code == 200
    assert response.json()["data"]["status"] == "ignored"
    assert PaymentEvent.objects.get().status == PaymentEventStatus.IGNORED


def test_unknown_plan_is_stored_as_invalid(webhook, ada):
    response = webhook(order_paid(notes={"user_id": str(ada.pk), "plan": "platinum"}))
    assert response.json()["data"]["status"] == "invalid"
    ada.refresh_from_db()
    assert ada.plan == "free"


@pytest.mark.parametrize(
    "signature",
    [
        "",
        "deadbeef",
        hmac.new(SECRET.encode(), b'{"other": "body"}', hashlib.sha256).hexdigest(),
        hmac.new(b"wrong-secret", b"x", hashlib.sha256).hexdigest(),
        "zz\u00e9",
    ],
    ids=["empty", "garbage", "other-body", "wrong-secret", "non-ascii"],
)
def test_a_bad_signature_is_401_and_changes_nothing(webhook, ada, signature):
    before = state(ada)
    response = webhook(
        order_paid(notes={"user_id": str(ada.pk), "plan": "pro"}), signature=signature
    )
    assert response.status_code == 401
    assert response.json() == {
        "success": False,
        "message": "The payment signature is missing or invalid.",
        "error": {"code": "invalid_signature", "details": {}},
    }
    assert state(ada) == before


def test_no_secret_configured_means_always_401(webhook, ada, settings):
    body = order_paid(notes={"user_id": str(ada.pk), "plan": "pro"})
    settings.PAYMENT_WEBHOOK_SECRET = ""
    assert webhook(body).status_code == 401
    assert not PaymentEvent.objects.exists()


def test_malformed_json_with_a_valid_signature_is_400(webhook, ada):
    response = webhook(b'{"event": "order.paid", ')
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "parse_error"
    assert not PaymentEvent.objects.exists()


def test_json_that_is_not_an_event_is_400(webhook):
    assert webhook(b"[1, 2, 3]").status_code == 400
    assert not PaymentEvent.objects.exists()


def test_both_prefixes(webhook, ada, api):
    body = json.dumps({"event": "x.y", "payload": {}}).encode()
    sign = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    response = api.generic(
        "POST",
        "/api/v1/webhooks/payment",
        body,
        content_type="application/json",
        HTTP_X_PAYMENT_SIGNATURE=sign,
    )
    assert response.status_code == 200


def test_our_check_agrees_with_the_providers_sdk(settings):
    settings.PAYMENT_WEBHOOK_SECRET = SECRET
    body = json.dumps(order_paid(notes={"plan": "pro"})).encode()
    signature = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    assert Utility().verify_webhook_signature(body.decode(), signature, SECRET)
    payment_signature_verify(raw_body=body, signature=signature)  # does not raise


def test_reapply_after_fixing_the_user(webhook, ada, client):
    from billing.services.payments import payment_event_reapply

    webhook(order_paid(notes={"email": "late@example.com", "plan": "pro"}), event_id="evt_late")
    event = PaymentEvent.objects.get()
    assert event.status == "unmatched"
    from accounts.services.users import user_create

    late = user_create(email="late@example.com")
    assert payment_event_reapply(event=event).status == "applied"
    assert payment_event_reapply(event=event).status == "applied"  # no second grant
    late.refresh_from_db()
    assert (late.plan, late.credits_remaining) == ("pro", 20 + 200)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_ten_concurrent_deliveries_apply_once(webhook, ada):
    body = order_paid(notes={"user_id": str(ada.pk), "plan": "pro"})
    barrier = threading.Barrier(10)
    statuses: list[int] = []

    def deliver() -> None:
        barrier.wait()
        statuses.append(webhook(body, event_id="evt_storm", client=APIClient()).status_code)
        connection.close()

    threads = [threading.Thread(target=deliver) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [200] * 10
    ada.refresh_from_db()
    assert ada.credits_remaining == 20 + 200
    assert PaymentEvent.objects.get().attempts == 10
    assert Notification.objects.filter(user=ada).count() == 2


# --- Replay and validation (what the signature covers decides) ------------------------------


def test_a_signed_body_is_credited_once_whatever_event_id_header_it_carries(webhook, ada):
    body = order_paid(notes={"user_id": str(ada.pk), "plan": "pro"})
    first = webhook(body, event_id="evt_a")
    assert first.json()["data"]["status"] == "applied"
    for replay in range(6):  # the header is not signed: an attacker can set any id
        response = webhook(body, event_id=f"evt_replay_{replay}")
        assert response.status_code == 200
        assert response.json()["data"]["status"] == "ignored"
    ada.refresh_from_db()
    assert (ada.plan, ada.credits_remaining) == ("pro", 20 + 200)
    assert CreditTransaction.objects.filter(user=ada, reason="plan_purchase").count() == 1
    assert Notification.objects.filter(user=ada).count() == 2  # no second welcome
    assert PaymentEvent.objects.count() == 7  # every delivery kept for operators
    replayed = PaymentEvent.objects.get(event_id="evt_replay_0")
    assert replayed.detail == "The same payment was applied as event evt_a"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_ten_concurrent_replays_with_different_event_ids_apply_once(webhook, ada):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL); CI runs it")
    body = order_paid(notes={"user_id": str(ada.pk), "plan": "pro"})
    barrier = threading.Barrier(10)
    statuses: list[int] = []

    def deliver(n: int) -> None:
        barrier.wait()
        statuses.append(webhook(body, event_id=f"evt_{n}", client=APIClient()).status_code)
        connection.close()

    threads = [threading.Thread(target=deliver, args=(n,)) for n in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [200] * 10
    ada.refresh_from_db()
    assert ada.credits_remaining == 20 + 200
    assert PaymentEvent.objects.filter(status="applied").count() == 1
    assert PaymentEvent.objects.filter(status="ignored").count() == 9


def test_an_event_older_than_the_tolerance_is_stored_not_applied(webhook, ada, settings):
    import time

    from billing.services.payments import payment_event_reapply

    settings.PAYMENT_EVENT_TOLERANCE_SECONDS = 24 * 3600
    body = order_paid(notes={"user_id": str(ada.pk), "plan": "pro"})
    body["created_at"] = int(time.time()) - 25 * 3600
    before = state(ada)
    response = webhook(body, event_id="evt_old")
    assert response.status_code == 200
    assert response.json()["data"]["status"] == "invalid"
    event = PaymentEvent.objects.get()
    assert event.detail.startswith("Older than the replay tolerance")
    assert state(ada)[:2] == before[:2]
    # An operator who checked it with the provider may still apply it, once.
    assert payment_event_reapply(event=event).status == "applied"
    ada.refresh_from_db()
    assert ada.credits_remaining == 20 + 200


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ({"amount": 100}, "Paid INR 1.00; the pro plan costs INR 499.00"),
        ({"amount": -49900}, "Paid INR -499.00; the pro plan costs INR 499.00"),
        ({"currency": "USD"}, "Paid USD 499.00; the pro plan costs INR 499.00"),
    ],
)
def test_an_order_that_did_not_pay_the_plan_price_applies_nothing(webhook, ada, change, detail):
    body = order_paid(notes={"user_id": str(ada.pk), "plan": "pro"})
    body["payload"]["order"]["entity"].update(change)
    before = state(ada)
    response = webhook(body)
    assert response.status_code == 200
    assert response.json()["data"]["status"] == "invalid"
    assert PaymentEvent.objects.get().detail == detail
    assert state(ada)[:2] == before[:2]
    assert not CreditTransaction.objects.filter(user=ada, reason="plan_purchase").exists()


@pytest.mark.parametrize(
    "mutate",
    [
        lambda body: body["payload"]["order"]["entity"]["notes"].update(plan=["pro"]),
        lambda body: body["payload"]["order"]["entity"]["notes"].update(user_id=42),
        lambda body: body["payload"]["order"]["entity"].update(amount="49900"),
        lambda body: body["payload"]["order"].update(entity="not an object"),
        lambda body: body.update(payload=[]),
        lambda body: body.update(created_at="yesterday"),
    ],
)
def test_a_malformed_signed_payload_is_stored_invalid_and_answered_200(webhook, ada, mutate):
    body = order_paid(notes={"user_id": str(ada.pk), "plan": "pro"})
    mutate(body)
    before = state(ada)
    response = webhook(body)
    assert response.status_code == 200  # the provider must not retry it forever
    assert response.json()["data"]["status"] == "invalid"
    assert PaymentEvent.objects.get().detail.startswith("Malformed payload")
    assert state(ada)[:2] == before[:2]


def test_the_payment_notifications_come_from_the_payment_events(webhook, ada):
    """Applying a payment emits its event; billing's subscriber writes what the user is told
    (the texts as the webhook's notifications always had them), for any emitter of it."""
    webhook(order_paid(notes={"user_id": str(ada.pk), "plan": "pro"}), event_id="evt_1")
    kinds = [e.event for e in OutboxEvent.objects.all()]  # only public ones reach the outbox
    assert "payment.plan_paid" not in kinds
    Notification.objects.all().delete()
    events.emit_many(
        items=[
            (ada.pk, events.payment_plan_paid(payment_event_id="e1", plan="pro", credits=200,
                                              amount=49900, currency="INR")),
            (ada.pk, events.payment_subscription_charged(payment_event_id="e2", credits=0,
                                                         monthly_quota=200)),
            (ada.pk, events.payment_failed(payment_event_id="e3", reason="Card declined")),
        ],
        actor=events.SYSTEM,
    )  # fmt: skip
    rows = Notification.objects.filter(user=ada)
    told = sorted((n.metadata["eventId"], n.type, n.title, n.message, n.metadata) for n in rows)
    paid = {"eventId": "e1", "plan": "pro", "credits": 200}
    assert told == [
        ("e1", "payment_success", "Payment received",
         "We received your payment of INR 499.00. Thank you!", paid),
        ("e1", "plan_upgrade", "Welcome to Pro",
         "You are on the Pro plan now: 200 credits were added.", paid),
        ("e2", "payment_success", "Subscription renewed",
         "Your subscription payment went through; your balance was already full.",
         {"eventId": "e2", "credits": 0}),
        ("e3", "payment_failed", "Payment failed",
         "Your payment could not be completed: Card declined",
         {"eventId": "e3", "reason": "Card declined"}),
    ]  # fmt: skip
