"""What the social hub keeps of a user, at erasure: it all goes (accounts.hooks registry)."""

from django.db import transaction

from accounts.models import User
from social.connections.services.accounts import accounts_release, connect_states_forget
from social.content import media_erase
from social.models import (
    AccountQueue,
    AnalyticsRecord,
    Campaign,
    Post,
    PostCounter,
    SocialSettings,
)


@transaction.atomic
def social_erase(user: User) -> list[str]:
    """The registry's erasure cleanup: accounts disconnected (and revoked at the platforms
    after the commit), waiting records cancelled, then posts with their records and series,
    the accounts' queues, campaigns, analytics, settings, media files and consent states
    deleted."""
    accounts_release(user, revoke=True)
    AnalyticsRecord.objects.filter(user=user).delete()
    Post.objects.filter(user=user).delete()  # its scheduled records and series with it
    AccountQueue.objects.filter(account__user=user).delete()
    PostCounter.objects.filter(user=user).delete()
    Campaign.objects.filter(user=user).delete()
    SocialSettings.objects.filter(user=user).delete()
    media_erase(user)
    connect_states_forget(user)
    return []
