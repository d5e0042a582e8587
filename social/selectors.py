"""Reads of the social hub."""

from django.db.models import QuerySet

from accounts.models import User
from social.models import AccountStatus, SocialAccount, SocialSettings


def account_list(*, user: User) -> QuerySet[SocialAccount]:
    """The user's accounts that are not disconnected (expired ones included: reconnect)."""
    return SocialAccount.objects.filter(user=user).exclude(status=AccountStatus.DISCONNECTED)


def settings_for(user: User) -> SocialSettings:
    """The user's social settings; the defaults (unsaved) for a user who never set any."""
    found = SocialSettings.objects.filter(user=user).first()
    return found if found is not None else SocialSettings(user=user)
