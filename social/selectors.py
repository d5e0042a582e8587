"""Reads of the social hub."""

from django.db.models import QuerySet

from accounts.models import User
from social.models import AccountStatus, SocialAccount


def account_list(*, user: User) -> QuerySet[SocialAccount]:
    """The user's accounts that are not disconnected (expired ones included: reconnect)."""
    return SocialAccount.objects.filter(user=user).exclude(status=AccountStatus.DISCONNECTED)
