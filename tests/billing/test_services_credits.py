"""The ledger: no overdraft, refunds once, the balance always equals the ledger's sum."""

import random
import threading
from datetime import date

import pytest
from django.db import IntegrityError, connection, transaction

from accounts.models import User
from accounts.services.users import user_create
from billing.errors import InsufficientCredits
from billing.models import CreditTransaction, MonthlyReplenishment, Reason
from billing.selectors import ledger_sum
from billing.services.credits import (
    credits_adjust,
    credits_grant,
    credits_refund,
    credits_spend,
    free_plans_replenish,
    plan_apply,
    quota_replenish,
)
from billing.tasks import replenish_free_plans_task
from notifications.models import OutboxEvent

pytestmark = pytest.mark.django_db


def balance(user: User) -> int:
    return User.objects.values_list("credits_remaining", flat=True).get(pk=user.pk)


def test_a_new_user_starts_with_the_free_quota_on_the_ledger(ada, settings):
    assert balance(ada) == settings.FREE_PLAN_CREDITS
    entry = CreditTransaction.objects.get(user=ada)
    assert (entry.delta, entry.balance_after, entry.reason) == (20, 20, Reason.SIGNUP)


def test_spend_takes_credits_and_writes_one_row(ada):
    entry = credits_spend(user=ada, cost=3, reference="ai:1")
    assert (entry.delta, entry.balance_after, entry.reason) == (-3, 17, Reason.SPEND)
    assert balance(ada) == ada.credits_remaining == 17


def test_insufficient_credits_changes_nothing(ada):
    rows = CreditTransaction.objects.count()
    with pytest.raises(InsufficientCredits) as raised:
        credits_spend(user=ada, cost=21)
    assert raised.value.status_code == 402
    assert raised.value.details == {"required": 21, "available": 20}
    assert balance(ada) == 20
    assert CreditTransaction.objects.count() == rows


def test_the_database_refuses_a_negative_balance(ada):
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.filter(pk=ada.pk).update(credits_remaining=-1)


def test_refund_happens_once_even_when_called_twice(ada):
    spend = credits_spend(user=ada, cost=2)
    first = credits_refund(spend=spend)
    second = credits_refund(spend=spend)
    assert first.pk == second.pk
    assert balance(ada) == 20
    assert CreditTransaction.objects.filter(reason=Reason.REFUND).count() == 1


def test_only_spends_are_refunded(ada):
    grant = credits_grant(user=ada, amount=5)
    with pytest.raises(ValueError, match="only spends"):
        credits_refund(spend=grant)


def test_spend_with_an_idempotency_key_happens_once(ada):
    first = credits_spend(user=ada, cost=2, idempotency_key="call-1")
    again = credits_spend(user=ada, cost=2, idempotency_key="call-1")
    assert first.pk == again.pk
    assert balance(ada) == 18


def test_grant_with_an_idempotency_key_happens_once(ada):
    credits_grant(user=ada, amount=5, idempotency_key="promo-1")
    credits_grant(user=ada, amount=5, idempotency_key="promo-1")
    assert balance(ada) == 25


def test_reaching_zero_records_credits_depleted(ada):
    credits_spend(user=ada, cost=19)
    assert not OutboxEvent.objects.exists()
    credits_spend(user=ada, cost=1)
    event = OutboxEvent.objects.get()
    assert event.event == "credits.depleted"
    assert event.user_id == ada.pk
    assert event.data == {"userId": str(ada.pk), "remainingCredits": 0}


def test_negative_adjustment_stops_at_zero(ada):
    entry = credits_adjust(user=ada, delta=-50, reference="chargeback")
    assert entry is not None
    assert (entry.delta, entry.balance_after) == (-20, 0)
    assert credits_adjust(user=ada, delta=-5) is None
    assert balance(ada) == 0


def test_plan_apply_sets_tier_quota_and_adds_the_quota(ada, settings):
    plan_apply(user=ada, plan="pro", idempotency_key="order-1")
    plan_apply(user=ada, plan="pro", idempotency_key="order-1")
    ada.refresh_from_db()
    assert (ada.plan, ada.monthly_quota) == ("pro", settings.PLANS["pro"]["monthly_quota"])
    assert ada.credits_remaining == 20 + settings.PLANS["pro"]["monthly_quota"]


def test_random_sequences_keep_balance_equal_to_ledger_sum(ada):
    rng = random.Random(20261122)
    spends = []
    for _ in range(300):
        action = rng.choice(["grant", "spend", "spend", "refund", "adjust"])
        try:
            if action == "grant":
                credits_grant(user=ada, amount=rng.randint(1, 10))
            elif action == "spend":
                spends.append(credits_spend(user=ada, cost=rng.randint(1, 6)))
            elif action == "refund" and spends:
                credits_refund(spend=rng.choice(spends))
            elif action == "adjust":
                credits_adjust(user=ada, delta=rng.randint(-8, 8) or 1)
        except InsufficientCredits:
            pass
        assert balance(ada) == ledger_sum(user=ada) >= 0
    rows = list(CreditTransaction.objects.filter(user=ada).order_by("created_at", "id"))
    running = 0
    for row in rows:
        running += row.delta
        assert row.balance_after == running


def test_monthly_replenish_tops_up_once_per_month(ada):
    credits_spend(user=ada, cost=15)
    assert quota_replenish(user=ada, period="2026-12") is not None
    assert balance(ada) == 20
    credits_spend(user=ada, cost=5)
    assert quota_replenish(user=ada, period="2026-12") is None  # a repeated run
    assert balance(ada) == 15
    assert quota_replenish(user=ada, period="2027-01") is not None
    assert balance(ada) == 20
    assert balance(ada) == ledger_sum(user=ada)


def test_replenish_all_free_users_is_idempotent(ada, settings):
    paying = user_create(email="paying@example.com")
    plan_apply(user=paying, plan="agency")
    credits_spend(user=ada, cost=10)
    assert free_plans_replenish(today=date(2026, 12, 1)) == 1
    assert free_plans_replenish(today=date(2026, 12, 2)) == 0
    assert balance(ada) == 20
    assert MonthlyReplenishment.objects.filter(user=paying).count() == 0


def test_replenish_skips_accounts_that_never_got_the_starting_credits(ada, settings):
    # A second spelling of Ada's mailbox (and, in `verified` mode, an address never verified)
    # got no starting credits: a monthly top-up would hand it the free quota all the same.
    farmed = user_create(email="ada+farm@example.com")
    settings.SIGNUP_CREDITS_ON = "verified"
    unverified = user_create(email="new@example.com")
    assert balance(farmed) == balance(unverified) == 0
    credits_spend(user=ada, cost=5)
    assert free_plans_replenish(today=date(2026, 12, 1)) == 1
    assert (balance(ada), balance(farmed), balance(unverified)) == (20, 0, 0)
    assert not MonthlyReplenishment.objects.filter(user__in=[farmed, unverified]).exists()


def test_replenish_task_runs_through_celery(ada):
    credits_spend(user=ada, cost=4)
    assert replenish_free_plans_task.delay().get() == 1
    assert balance(ada) == 20


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_spends_against_five_credits():
    user = user_create(email="race@example.com")
    credits_adjust(user=user, delta=-15)  # balance 5
    barrier = threading.Barrier(20)
    outcomes: list[str] = []

    def spend() -> None:
        barrier.wait()
        try:
            credits_spend(user=User.objects.get(pk=user.pk), cost=1)
            outcomes.append("ok")
        except InsufficientCredits:
            outcomes.append("402")
        finally:
            connection.close()

    threads = [threading.Thread(target=spend) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("ok") == 5
    assert outcomes.count("402") == 15
    assert balance(user) == 0
    assert ledger_sum(user=user) == 0
    assert CreditTransaction.objects.filter(user=user, reason=Reason.SPEND).count() == 5
