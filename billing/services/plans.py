"""Plans: a user's tier and its monthly quota (the balance itself moves through the ledger)."""

from django.conf import settings

from accounts.models import User
from core.errors import ValidationFailed


def plan_set(*, user: User, plan: str) -> User:
    """The tier and its monthly quota; the balance is the ledger's business (credits.py)."""
    if plan not in settings.PLANS:
        raise ValidationFailed(details={"plan": [f"Choose one of: {', '.join(settings.PLANS)}."]})
    user.plan = plan
    user.monthly_quota = settings.PLANS[plan]["monthly_quota"]
    user.save(update_fields=["plan", "monthly_quota"])
    return user
