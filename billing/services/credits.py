"""The only code that writes a balance: every change is one ledger row in the same transaction.

A balance moves by a conditional `UPDATE ... SET credits_remaining = credits_remaining + d`
(never read-modify-write), so concurrent changes cannot lose each other or overdraw; the
database's CHECK (credits_remaining >= 0) backs it up.
"""

import hashlib
import hmac
from datetime import date
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef

from accounts.models import User, email_mailbox
from billing.errors import InsufficientCredits
from billing.models import CreditTransaction, MonthlyReplenishment, Reason
from billing.services.plans import plan_set
from notifications import events

# The most an operator grants or removes at once (command and admin): a typo of a few zeros
# must not mint millions of credits, and the value always fits the ledger's integer column.
MAX_OPERATOR_CREDITS = 1_000_000


def _balance(user_id: UUID) -> int:
    return int(User.objects.values_list("credits_remaining", flat=True).get(pk=user_id))


def _apply(
    *,
    user_id: UUID,
    delta: int,
    reason: str,
    reference: str = "",
    idempotency_key: str | None = None,
    refund_of: CreditTransaction | None = None,
) -> CreditTransaction | None:
    """Move the balance by `delta` and append its ledger row, or return None when a debit
    would overdraw. The caller holds a transaction: the row stays locked until it ends."""
    moved = User.objects.filter(pk=user_id, credits_remaining__gte=max(-delta, 0)).update(
        credits_remaining=F("credits_remaining") + delta
    )
    if not moved:
        return None
    balance = _balance(user_id)
    entry = CreditTransaction.objects.create(
        user_id=user_id,
        delta=delta,
        balance_after=balance,
        reason=reason,
        reference=reference,
        idempotency_key=idempotency_key,
        refund_of=refund_of,
    )
    emitted = [(user_id, events.credits_changed(credits_remaining=balance))]
    if balance == 0 and delta < 0:
        emitted.append(
            (user_id, events.credits_depleted(user_id=str(user_id), remaining_credits=0))
        )
    events.emit_many(items=emitted)
    return entry


def _credited(entry: CreditTransaction | None) -> CreditTransaction:
    if entry is None:  # only debits can fail to apply
        raise RuntimeError("a credit could not be applied")
    return entry


def _existing(idempotency_key: str | None) -> CreditTransaction | None:
    if idempotency_key is None:
        return None
    return CreditTransaction.objects.filter(idempotency_key=idempotency_key).first()


def credits_spend(
    *,
    user: User,
    cost: int,
    reference: str = "",
    idempotency_key: str | None = None,
) -> CreditTransaction:
    """Take `cost` credits in one conditional UPDATE, or raise InsufficientCredits (402)
    having changed nothing. With an idempotency key, a repeated call returns the first spend."""
    if cost <= 0:
        raise ValueError("cost must be positive")
    if (done := _existing(idempotency_key)) is not None:
        return done
    try:
        with transaction.atomic():
            entry = _apply(
                user_id=user.pk,
                delta=-cost,
                reason=Reason.SPEND,
                reference=reference,
                idempotency_key=idempotency_key,
            )
            if entry is None:
                raise InsufficientCredits(required=cost, available=_balance(user.pk))
    except IntegrityError:
        if (done := _existing(idempotency_key)) is not None:
            return done  # a concurrent call with the same key won; nothing was taken twice
        raise
    user.credits_remaining = entry.balance_after
    return entry


def credits_refund(*, spend: CreditTransaction, reference: str = "") -> CreditTransaction:
    """Give back a spend, at most once: a second call returns the first refund."""
    if spend.reason != Reason.SPEND:
        raise ValueError("only spends can be refunded")
    try:
        with transaction.atomic():
            return _credited(
                _apply(
                    user_id=spend.user_id,
                    delta=-spend.delta,
                    reason=Reason.REFUND,
                    reference=reference or spend.reference,
                    refund_of=spend,
                )
            )
    except IntegrityError:
        return CreditTransaction.objects.get(refund_of=spend)


def credits_grant(
    *,
    user: User,
    amount: int,
    reason: str = Reason.GRANT,
    reference: str = "",
    idempotency_key: str | None = None,
) -> CreditTransaction:
    """Add credits. With an idempotency key, a repeated grant returns the first one."""
    if amount <= 0:
        raise ValueError("amount must be positive")
    if (done := _existing(idempotency_key)) is not None:
        return done
    try:
        with transaction.atomic():
            return _credited(
                _apply(
                    user_id=user.pk,
                    delta=amount,
                    reason=reason,
                    reference=reference,
                    idempotency_key=idempotency_key,
                )
            )
    except IntegrityError:
        if (done := _existing(idempotency_key)) is not None:
            return done
        raise


@transaction.atomic
def credits_adjust(*, user: User, delta: int, reference: str = "") -> CreditTransaction | None:
    """An operator's correction. A removal stops at zero: it takes at most the balance.

    Returns None when there was nothing to change.
    """
    if delta > 0:
        return credits_grant(user=user, amount=delta, reason=Reason.ADJUSTMENT, reference=reference)
    balance = (
        User.objects.select_for_update().values_list("credits_remaining", flat=True).get(pk=user.pk)
    )
    applied = max(delta, -balance)
    if applied == 0:
        return None
    return _apply(user_id=user.pk, delta=applied, reason=Reason.ADJUSTMENT, reference=reference)


@transaction.atomic
def credits_top_up_to_quota(
    *, user: User, reason: str, reference: str = "", idempotency_key: str | None = None
) -> CreditTransaction | None:
    """Raise the balance to the monthly quota (never lowers it). None when already there."""
    if (done := _existing(idempotency_key)) is not None:
        return done
    row = (
        User.objects.select_for_update()
        .values("credits_remaining", "monthly_quota")
        .get(pk=user.pk)
    )
    missing = row["monthly_quota"] - row["credits_remaining"]
    if missing <= 0:
        return None
    return _apply(
        user_id=user.pk,
        delta=missing,
        reason=reason,
        reference=reference,
        idempotency_key=idempotency_key,
    )


def plan_apply(
    *, user: User, plan: str, reference: str = "", idempotency_key: str | None = None
) -> CreditTransaction:
    """Move the user to `plan` (tier and quota) and add the plan's monthly quota."""
    with transaction.atomic():
        plan_set(user=user, plan=plan)
        return credits_grant(
            user=user,
            amount=settings.PLANS[plan]["monthly_quota"],
            reason=Reason.PLAN_PURCHASE,
            reference=reference,
            idempotency_key=idempotency_key,
        )


def quota_replenish(*, user: User, period: str) -> MonthlyReplenishment | None:
    """Top a free-plan user up to the quota, once per user and `period` ("YYYY-MM").

    None when this user was already replenished for the period (a repeated run).
    """
    try:
        with transaction.atomic():
            record = MonthlyReplenishment.objects.create(user=user, period=period)
            entry = credits_top_up_to_quota(
                user=user,
                reason=Reason.REPLENISH,
                reference=f"replenish:{period}",
                idempotency_key=f"replenish:{user.pk}:{period}",
            )
            if entry is not None:
                record.added = entry.delta
                record.save(update_fields=["added"])
            return record
    except IntegrityError:
        return None


def period_of(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def free_plans_replenish(*, today: date) -> int:
    """Replenish every free-plan user not yet replenished this month; returns how many ran.

    Only accounts that got their mailbox's starting credits take part: a second spelling of
    one mailbox (`ada+2@`), or in `verified` mode an address never verified, got none, and a
    monthly top-up would hand it the free quota all the same.

    Each user is one short transaction, so a long run holds no lock for long and a crash
    resumes where it stopped (users done this month are skipped).
    """
    period = period_of(today)
    started = CreditTransaction.objects.filter(user=OuterRef("pk"), reason=Reason.SIGNUP)
    pending = (
        User.objects.filter(Exists(started), plan="free", is_active=True)
        .exclude(monthlyreplenishment__period=period)
        .order_by("pk")
    )
    done = 0
    for user in pending.iterator(chunk_size=500):
        if quota_replenish(user=user, period=period) is not None:
            done += 1
    return done


def signup_grant_key(email: str) -> str:
    """The starting grant's key: a keyed hash of the mailbox, not the user id, so erasing an
    account and signing up again with the same address gets no second grant (the ledger keeps
    the erased account's rows, this key with them; the address itself is not kept), and
    neither does another spelling of one mailbox (`ada+1@`, `a.da@gmail.com`)."""
    secret = hashlib.sha256(f"signup-grant:{settings.SECRET_KEY}".encode()).digest()
    digest = hmac.new(secret, email_mailbox(email).encode(), hashlib.sha256).hexdigest()
    return f"signup:{digest[:40]}"


def credits_grant_signup(user: User) -> None:
    """A new user's starting balance: the free plan's quota, once per e-mail address."""
    amount = settings.PLANS["free"]["monthly_quota"]
    if amount > 0:
        credits_grant(
            user=user,
            amount=amount,
            reason=Reason.SIGNUP,
            idempotency_key=signup_grant_key(user.email),
        )
        user.refresh_from_db(fields=["credits_remaining"])


def credits_on_user_created(user: User) -> None:
    """accounts' user_created hook: starting credits now, unless they wait for verification."""
    if settings.SIGNUP_CREDITS_ON == "signup":
        credits_grant_signup(user)


def credits_on_email_verified(user: User, took_over: bool) -> None:
    """accounts' email_verified hook. `verified` mode: the starting credits arrive now. A
    reclaimed address: the balance whoever squatted it spent is refilled to the quota."""
    if settings.SIGNUP_CREDITS_ON == "verified":
        credits_grant_signup(user)
    elif took_over:
        credits_top_up_to_quota(
            user=user,
            reason=Reason.ADJUSTMENT,
            reference="address reclaimed by its owner",
            idempotency_key=f"reclaimed:{user.pk}",
        )
        user.refresh_from_db(fields=["credits_remaining"])
