"""The inbound payment webhook (Razorpay's format): verify, store once, apply exactly once.

What is applied rests only on what the signature covers, the body: the `X-Payment-Event-Id`
header is not signed, so it names a delivery, never a payment. Each event's payment is named
by its entity key (event type and the payment, order or subscription id in the body); an event
whose entity key was already applied is stored and ignored, whatever header it came with, and
the ledger's idempotency key is the entity key too. Every field is validated before use
(malformed: stored `invalid`, answered 200); an event older than
`PAYMENT_EVENT_TOLERANCE_SECONDS` by its signed `created_at` is stored but not applied; an
`order.paid` whose amount or currency is not the plan's price is stored `invalid`.
"""

import hashlib
import hmac
import logging
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
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
from notifications import events
from notifications.models import NotificationType
from notifications.services.center import NotificationDraft, notify_many

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


class Malformed(Exception):
    """A field of the payload does not have the type or form the provider documents."""


def _entity(payload: dict[str, Any], name: str) -> dict[str, Any]:
    section = payload.get("payload", {})
    if not isinstance(section, dict):
        raise Malformed("payload must be an object")
    wrapper = section.get(name)
    if wrapper is None:
        return {}
    entity = wrapper.get("entity") if isinstance(wrapper, dict) else None
    if not isinstance(entity, dict):
        raise Malformed(f"payload.{name}.entity must be an object")
    return entity


def _optional(entity: dict[str, Any], field: str, kind: type, where: str) -> Any:
    value = entity.get(field)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        raise Malformed(f"{where}.{field} must be a {kind.__name__}")
    return value


@dataclass(frozen=True, slots=True)
class Facts:
    """What an event says, checked field by field (Malformed otherwise)."""

    event_type: str
    entity_key: str  # names the payment itself: the same for every delivery of it
    plan: str | None
    user_id: str | None
    email: str | None
    amount: int | None
    currency: str | None
    created_at: datetime | None
    failure_reason: str


def entity_key(payload: dict[str, Any], raw_body: bytes) -> str:
    """The event type and its payment/order/subscription id; failing those, the body's hash."""
    event_type = str(payload.get("event", ""))
    for name in ("payment", "order", "subscription"):
        try:
            entity_id = _entity(payload, name).get("id")
        except Malformed:
            continue
        if isinstance(entity_id, str) and entity_id:
            return f"{event_type}:{entity_id}"[:200]
    return f"sha256:{hashlib.sha256(raw_body).hexdigest()}"


def _facts(payload: dict[str, Any], raw_body: bytes) -> Facts:
    event_type = payload.get("event")
    if not isinstance(event_type, str) or not event_type:
        raise Malformed("event must be a non-empty string")
    entities = {name: _entity(payload, name) for name in ENTITIES}
    notes: dict[str, Any] = {}
    for name in ENTITIES:  # our notes, from the first entity that has any
        raw_notes = entities[name].get("notes")
        if isinstance(raw_notes, dict) and raw_notes:
            notes = raw_notes
            break
        if raw_notes not in (None, [], {}):  # the provider sends [] for "no notes"
            raise Malformed(f"payload.{name}.entity.notes must be an object")
    plan = _optional(notes, "plan", str, "notes")
    user_id = _optional(notes, "user_id", str, "notes")
    email = _optional(notes, "email", str, "notes")
    amount: int | None = None
    currency: str | None = None
    for name in ("order", "payment"):
        entity = entities[name]
        paid = _optional(entity, "amount_paid", int, f"payload.{name}.entity")
        value = paid if paid is not None else _optional(entity, "amount", int, name)
        code = _optional(entity, "currency", str, f"payload.{name}.entity")
        if value is not None and amount is None:
            amount, currency = value, code
    created = payload.get("created_at")
    if created is not None and (not isinstance(created, int) or isinstance(created, bool)):
        raise Malformed("created_at must be an integer (Unix seconds)")
    payment = entities["payment"]
    reason = payment.get("error_description") or payment.get("error_reason") or "unknown reason"
    return Facts(
        event_type=event_type,
        entity_key=entity_key(payload, raw_body),
        plan=plan,
        user_id=user_id,
        email=email,
        amount=amount,
        currency=currency,
        created_at=datetime.fromtimestamp(created, tz=UTC) if created is not None else None,
        failure_reason=str(reason)[:300],
    )


def _user_of(facts: Facts) -> User | None:
    if facts.user_id:
        try:
            user = User.objects.filter(pk=uuid.UUID(facts.user_id)).first()
        except ValueError:
            user = None
        if user is not None:
            return user
    if facts.email:
        return user_get_by_email(email=facts.email)
    return None


def _format_money(amount: int, currency: str) -> str:
    return f"{currency} {amount / 100:,.2f}"  # the provider counts in the smallest unit


def _ledger_key(facts: Facts) -> str:
    return f"payment:{facts.entity_key}"


def _apply_order_paid(event: PaymentEvent, user: User, facts: Facts) -> None:
    plan = facts.plan
    if plan not in settings.PLANS:
        event.status, event.detail = PaymentEventStatus.INVALID, f"Unknown plan {plan!r}"
        return
    price = settings.PLAN_PRICES.get(plan)
    currency = settings.PLAN_CURRENCY
    if price is None:
        event.status, event.detail = PaymentEventStatus.INVALID, f"The {plan} plan is not sold"
        return
    if facts.amount != price or (facts.currency or "").upper() != currency:
        paid = (
            _format_money(facts.amount, facts.currency or "?")
            if facts.amount is not None
            else "no amount"
        )
        event.status = PaymentEventStatus.INVALID
        event.detail = f"Paid {paid}; the {plan} plan costs {_format_money(price, currency)}"
        return
    entry = plan_apply(
        user=user,
        plan=plan,
        reference=f"payment:{event.event_id}",
        idempotency_key=_ledger_key(facts),
    )
    events.emit(
        user=user,
        payload=events.payment_plan_paid(
            payment_event_id=event.event_id,
            plan=plan,
            credits=entry.delta,
            amount=price,
            currency=currency,
        ),
        actor=events.SYSTEM,
    )
    event.status = PaymentEventStatus.APPLIED


def _apply_subscription_charged(event: PaymentEvent, user: User, facts: Facts) -> None:
    plan = facts.plan
    if plan is not None and plan not in settings.PLANS:
        event.status, event.detail = PaymentEventStatus.INVALID, f"Unknown plan {plan!r}"
        return
    if plan is not None and plan != user.plan:
        plan_set(user=user, plan=plan)
    entry = credits_top_up_to_quota(
        user=user,
        reason=Reason.SUBSCRIPTION,
        reference=f"payment:{event.event_id}",
        idempotency_key=_ledger_key(facts),
    )
    events.emit(
        user=user,
        payload=events.payment_subscription_charged(
            payment_event_id=event.event_id,
            credits=entry.delta if entry is not None else 0,
            monthly_quota=user.monthly_quota,
        ),
        actor=events.SYSTEM,
    )
    event.status = PaymentEventStatus.APPLIED


def _apply_payment_failed(event: PaymentEvent, user: User, facts: Facts) -> None:
    events.emit(
        user=user,
        payload=events.payment_failed(payment_event_id=event.event_id, reason=facts.failure_reason),
        actor=events.SYSTEM,
    )
    event.status = PaymentEventStatus.APPLIED


def payments_notify(emitted: list[events.Event]) -> None:
    """The event channel's subscriber for the applied payments: what the user is told, in one
    INSERT for a batch (registered in BillingConfig.ready)."""
    drafts = []
    for event in emitted:
        user_id, data = event.user_id, event.payload.data
        if event.name == "payment.plan_paid":
            tier = settings.PLANS[data["plan"]]["name"]
            metadata = {
                "eventId": data["paymentEventId"],
                "plan": data["plan"],
                "credits": data["credits"],
            }
            money = _format_money(data["amount"], data["currency"])
            drafts += [
                NotificationDraft(
                    user_id=user_id,
                    type=NotificationType.PLAN_UPGRADE,
                    title=f"Welcome to {tier}",
                    message=f"You are on the {tier} plan now: {data['credits']} credits were "
                    "added.",
                    metadata=metadata,
                ),
                NotificationDraft(
                    user_id=user_id,
                    type=NotificationType.PAYMENT_SUCCESS,
                    title="Payment received",
                    message=f"We received your payment of {money}. Thank you!",
                    metadata=metadata,
                ),
            ]
        elif event.name == "payment.subscription_charged":
            added = data["credits"]
            drafts.append(
                NotificationDraft(
                    user_id=user_id,
                    type=NotificationType.PAYMENT_SUCCESS,
                    title="Subscription renewed",
                    message=(
                        f"Your subscription payment went through: {added} credits were added, "
                        f"your balance is back to {data['monthlyQuota']}."
                        if added
                        else "Your subscription payment went through; "
                        "your balance was already full."
                    ),
                    metadata={"eventId": data["paymentEventId"], "credits": added},
                )
            )
        else:
            drafts.append(
                NotificationDraft(
                    user_id=user_id,
                    type=NotificationType.PAYMENT_FAILED,
                    title="Payment failed",
                    message=f"Your payment could not be completed: {data['reason']}",
                    metadata={"eventId": data["paymentEventId"], "reason": data["reason"]},
                )
            )
    notify_many(drafts=drafts)


HANDLERS = {
    "order.paid": _apply_order_paid,
    "subscription.charged": _apply_subscription_charged,
    "payment.failed": _apply_payment_failed,
}


def _apply(event: PaymentEvent, *, check_age: bool = True) -> None:
    """Apply a stored event in the caller's transaction and record the outcome on it."""
    event.status, event.detail = _outcome(event, check_age=check_age)
    if event.status == PaymentEventStatus.APPLIED:
        event.applied_at = timezone.now()
    event.save(update_fields=["status", "detail", "user", "applied_at", "entity_key"])


def _outcome(event: PaymentEvent, *, check_age: bool) -> tuple[str, str]:
    try:
        facts = _facts(event.payload, event.raw_body.encode())
    except Malformed as exc:
        return PaymentEventStatus.INVALID, f"Malformed payload: {exc}"
    event.entity_key = facts.entity_key
    handler = HANDLERS.get(facts.event_type)
    if handler is None:
        return PaymentEventStatus.IGNORED, "Event type not handled"
    tolerance = timedelta(seconds=settings.PAYMENT_EVENT_TOLERANCE_SECONDS)
    if check_age and (facts.created_at is None or facts.created_at < timezone.now() - tolerance):
        return PaymentEventStatus.INVALID, (
            "Older than the replay tolerance (created_at): stored, not applied; an operator "
            "may re-apply it if it is genuine"
        )
    user = _user_of(facts)
    if user is None:
        return PaymentEventStatus.UNMATCHED, "No user matches notes.user_id or notes.email"
    # One payment event of a user at a time: the duplicate check below is then exact.
    user = User.objects.select_for_update().get(pk=user.pk)
    event.user = user
    applied = (
        PaymentEvent.objects.filter(entity_key=facts.entity_key, status=PaymentEventStatus.APPLIED)
        .exclude(pk=event.pk)
        .values_list("event_id", flat=True)
        .first()
    )
    if applied is not None:
        return PaymentEventStatus.IGNORED, f"The same payment was applied as event {applied}"
    event.status, event.detail = PaymentEventStatus.APPLIED, ""
    handler(event, user, facts)
    return event.status, event.detail


def payment_event_receive(
    *, raw_body: bytes, payload: dict[str, Any], event_id: str | None
) -> Receipt:
    """Store the event and apply it in one transaction: it is applied exactly once, also
    when the provider delivers it several times at once (the event id is unique: the later
    deliveries wait for the first to commit, then find it), and nothing is half-applied if
    the process dies."""
    event_id = (event_id or "").strip()[:200] or entity_key(payload, raw_body)
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
        _apply(locked, check_age=False)  # an operator's decision: the age check is theirs
    return locked
