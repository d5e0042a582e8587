"""Reads of the social hub."""

from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from accounts.models import User
from social.models import AccountStatus, Post, PostCounter, SocialAccount, SocialSettings


def account_list(*, user: User) -> QuerySet[SocialAccount]:
    """The user's accounts that are not disconnected (expired ones included: reconnect)."""
    return SocialAccount.objects.filter(user=user).exclude(status=AccountStatus.DISCONNECTED)


def settings_for(user: User) -> SocialSettings:
    """The user's social settings; the defaults (unsaved) for a user who never set any."""
    found = SocialSettings.objects.filter(user=user).first()
    return found if found is not None else SocialSettings(user=user)


def post_total(*, user: User) -> int:
    """How many posts the user has, from the counter (made on the first read)."""
    found = PostCounter.objects.filter(user=user).values_list("total", flat=True).first()
    if found is not None:
        return int(found)
    try:
        with transaction.atomic():
            # The row lock of a new counter serializes this COUNT with concurrent creates.
            counter = PostCounter.objects.create(user=user, total=0)
            counter.total = Post.objects.filter(user=user).count()
            counter.save(update_fields=["total"])
            return counter.total
    except IntegrityError:  # made by a concurrent first read
        return int(PostCounter.objects.get(user=user).total)
