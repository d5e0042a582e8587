"""The inbound payment webhook (Razorpay's format): verify, store once, apply exactly once."""

import hashlib
import hmac
import logging
import uuid
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import User
from accounts.selectors import user_get_by_email
from billing.errors import InvalidSignature
from billing.models import PaymentEvent, PaymentEventStatus, Reason
from billing.services.credits import credits_top_up_to_quota, plan_apply
from billing.services.plans import plan_set
from notifications.models import NotificationType
from notifications.services import notify

logger = logging.getLogger(__name__)

ENTITIES = ("order", "subscription", "payment")  # where the provider carries our notes


@dataclass(frozen=True, slots=True)
class Receipt:
    event: PaymentEvent
    duplicate: bool


def payment_signature_verify(*, raw_body: bytes, signature: str) -> None:
    """Hex HMAC-SHA256 of the raw body, compared in constant time. No secret: always 401."""
    secret = settings.PAYMENT_WEBHOOK_SECRET
    if not secret or not signature:
        raise InvalidSignature()
    expected = hmac.new(secret.encode(), raw_body, hashlib.sha256).hexdigest().encode()
    if not hmac.compare_digest(expected, signature.strip().lower().encode("utf-8", "replace")):
        raise InvalidSignature()


def _entity(payload: dict[str, Any], name: str) -> dict[str, Any]:
    section = payload.get("payload")
    wrapper = section.get(name) if isinstance(section, dict) else None
    entity = wrapper.get("entity") if isinstance(wrapper, dict) else None
    return entity if isinstance(entity, dict) else {}


def _notes(payload: dict[str, Any]) -> dict[str, Any]:
    """Our notes from the first entity that has any (order, then subscription, then payment)."""
    for name in ENTITIES:
        notes = _entity(payload, name).get("notes")
        if isinstance(notes, dict) and notes:
            return notes
    return {}


def _event_id(payload: dict[str, Any], raw_body: bytes) -> str:
    """Without the provider's event id header: the event type and its payment/order/
    subscription id name one event; failing those, the body's hash does."""
    event_type = str(payload.get("event", ""))
    for name in ("payment", "order", "subscription"):
        entity_id = _entity(payload, name).get("id")
        if isinstance(entity_id, str) and entity_id:
            return f"{event_type}:{entity_id}"
    return f"sha256:{hashlib.sha256(raw_body).hexdigest()}"


def _user_of(notes: dict[str, Any]) -> User | None:
    user_id = notes.get("user_id")
    if isinstance(user_id, str):
        try:
            user = User.objects.filter(pk=uuid.UUID(user_id)).first()
        except ValueError:
            user = None
        if user is not None:
            return user
    email = notes.get("email")
    if isinstance(email, str) and email:
        return user_get_by_email(email=email)
    return None


def _money(entity: dict[str, Any]) -> str:
    amount, currency = entity.get("amount"), entity.get("currency")
    if isinstance(amount, int) and isinstance(currency, str):
        return f"{currency} {amount / 100:,.2f}"  # the provider counts in the smallest unit
    return ""


def _apply_order_paid(event: PaymentEvent, user: User, payload: dict[str, Any]) -> None:
    plan = _notes(payload).get("plan")
    if plan not in settings.PLANS:
        event.status, event.detail = PaymentEventStatus.INVALID, f"Unknown plan {plan!r}"
        return
    entry = plan_apply(
        user=user,
        plan=plan,
        reference=f"payment:{event.event_id}",
        idempotency_key=f"payment:{event.event_id}",
    )
    tier = settings.PLANS[plan]["name"]
    money = _money(_entity(payload, "order")) or _money(_entity(payload, "payment"))
    metadata = {"eventId": event.event_id, "plan": plan, "credits": entry.delta}
    notify(
        user=user,
        type=NotificationType.PLAN_UPGRADE,
        title=f"Welcome to {tier}",
        message=f"You are on the {tier} plan now: {entry.delta} credits were added.",
        metadata=metadata,
    )
    notify(
        user=user,
        type=NotificationType.PAYMENT_SUCCESS,
        title="Payment received",
        message=f"We received your payment{' of ' + money if money else ''}. Thank you!",
        metadata=metadata,
    )
    event.status = PaymentEventStatus.APPLIED


def _apply_subscription_charged(event: PaymentEvent, user: User, payload: dict[str, Any]) -> None:
    plan = _notes(payload).get("plan")
    if plan is not None and plan not in settings.PLANS:
        event.status, event.detail = PaymentEventStatus.INVALID, f"Unknown plan {plan!r}"
        return
    if plan is not None and plan != user.plan:
        plan_set(user=user, plan=plan)
    entry = credits_top_up_to_quota(
        user=user,
        reason=Reason.SUBSCRIPTION,
        reference=f"payment:{event.event_id}",
        idempotency_key=f"payment:{event.event_id}",
    )
    added = entry.delta if entry is not None else 0
    notify(
        user=user,
        type=NotificationType.PAYMENT_SUCCESS,
        title="Subscription renewed",
        message=(
            f"Your subscription payment went through: {added} credits were added, "
            f"your balance is back to {user.monthly_quota}."
            if added
            else "Your subscription payment went through; your balance was already full."
        ),
        metadata={"eventId": event.event_id, "credits": added},
    )
    event.status = PaymentEventStatus.APPLIED


def _apply_payment_failed(event: PaymentEvent, user: User, payload: dict[str, Any]) -> None:
    payment = _entity(payload, "payment")
    reason = payment.get("error_description") or payment.get("error_reason") or "unknown reason"
    notify(
        user=user,
        type=NotificationType.PAYMENT_FAILED,
        title="Payment failed",
        message=f"Your payment could not be completed: {reason}",
        metadata={"eventId": event.event_id, "reason": str(reason)},
    )
    event.status = PaymentEventStatus.APPLIED


HANDLERS = {
    "order.paid": _apply_order_paid,
    "subscription.charged": _apply_subscription_charged,
    "payment.failed": _apply_payment_failed,
}


def _apply(event: PaymentEvent) -> None:
    """Apply a stored event in the caller's transaction and record the outcome on it."""
    handler = HANDLERS.get(event.event_type)
    if handler is None:
        event.status, event.detail = PaymentEventStatus.IGNORED, "Event type not handled"
    elif (user := _user_of(_notes(event.payload))) is None:
        event.status = PaymentEventStatus.UNMATCHED
        event.detail = "No user matches notes.user_id or notes.email"
    else:
        event.user, event.detail = user, ""
        handler(event, user, event.payload)
    if event.status == PaymentEventStatus.APPLIED:
        event.applied_at = timezone.now()
    event.save(update_fields=["status", "detail", "user", "applied_at"])


def payment_event_receive(
    *, raw_body: bytes, payload: dict[str, Any], event_id: str | None
) -> Receipt:
    """Store the event and apply it in one transaction: it is applied exactly once, also
    when the provider delivers it several times at once (the event id is unique: the later
    deliveries wait for the first to commit, then find it), and nothing is half-applied if
    the process dies."""
    event_id = (event_id or "").strip()[:200] or _event_id(payload, raw_body)
    try:
        with transaction.atomic():
            event = PaymentEvent.objects.create(
                event_id=event_id,
                event_type=str(payload.get("event", ""))[:64],
                status=PaymentEventStatus.IGNORED,
                payload=payload,
                raw_body=raw_body.decode("utf-8", "replace"),
            )
            _apply(event)
    except IntegrityError:
        existing = PaymentEvent.objects.filter(event_id=event_id).first()
        if existing is None:
            raise
        PaymentEvent.objects.filter(pk=existing.pk).update(attempts=F("attempts") + 1)
        return Receipt(event=existing, duplicate=True)
    logger.info("Payment event %s (%s): %s", event_id, event.event_type, event.status)
    return Receipt(event=event, duplicate=False)


@transaction.atomic
def payment_event_reapply(*, event: PaymentEvent) -> PaymentEvent:
    """For operators: apply again an event that found no user or could not be applied
    (after fixing the cause). Applied events are left alone."""
    locked = PaymentEvent.objects.select_for_update().get(pk=event.pk)
    if locked.status in (PaymentEventStatus.UNMATCHED, PaymentEventStatus.INVALID):
        _apply(locked)
    return locked
