"""Reads on the ledger."""

from django.db.models import QuerySet, Sum

from accounts.models import User
from billing.models import CreditTransaction


def credit_transaction_list(*, user: User) -> QuerySet[CreditTransaction]:
    return CreditTransaction.objects.filter(user=user)


def ledger_sum(*, user: User) -> int:
    """What the balance must equal."""
    total = CreditTransaction.objects.filter(user=user).aggregate(total=Sum("delta"))["total"]
    return int(total or 0)
