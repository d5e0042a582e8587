"""Connecting and disconnecting accounts. Provider calls happen outside any transaction; the
account row is written in a short one after the provider answered."""

import logging
import uuid

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from config import outbound
from social.errors import (
    AccountAlreadyConnected,
    AccountNotFound,
    ProviderAuthFailed,
    ProviderNotConfigured,
    ProviderUnavailable,
)
from social.models import AccountStatus, SocialAccount
from social.providers import PLATFORMS
from social.providers.base import ConnectRequest, Identity

logger = logging.getLogger(__name__)


def account_connect(*, user: User, provider: str, request: ConnectRequest) -> SocialAccount:
    """Check the credentials with the provider, then store the account (or refresh the one
    this user already has). Nothing is stored when the provider refuses or cannot be
    reached."""
    platform = PLATFORMS[provider]
    if platform.adapter is None:
        raise ProviderNotConfigured(details={"provider": provider})
    try:
        identity = platform.adapter().connect(request)
    except outbound.TransientError as exc:
        raise ProviderUnavailable(details={"provider": provider}) from exc
    except outbound.PermanentError as exc:  # authentication errors included
        raise ProviderAuthFailed(
            details={"provider": provider, "providerMessage": exc.excerpt[:500] or exc.message}
        ) from exc
    try:
        return _store(user=user, provider=provider, instance=request.instance, identity=identity)
    except IntegrityError:  # another user connected the same account a moment ago
        raise AccountAlreadyConnected() from None


@transaction.atomic
def _store(*, user: User, provider: str, instance: str, identity: Identity) -> SocialAccount:
    live = (
        SocialAccount.objects.select_for_update()
        .filter(provider=provider, instance=instance, provider_user_id=identity.provider_user_id)
        .exclude(status=AccountStatus.DISCONNECTED)
        .first()
    )
    if live is not None and live.user_id != user.pk:
        raise AccountAlreadyConnected()
    account = live or SocialAccount(
        id=uuid.uuid4(),
        user=user,
        provider=provider,
        instance=instance,
        provider_user_id=identity.provider_user_id,
        created_at=timezone.now(),
    )
    account.username = identity.username
    account.display_name = identity.display_name
    account.email = identity.email
    account.avatar = identity.avatar
    account.access_token = identity.access_token
    account.refresh_token = identity.refresh_token
    account.expires_at = identity.expires_at
    account.limits = identity.limits or PLATFORMS[provider].limits
    account.status = AccountStatus.CONNECTED
    account.last_sync = timezone.now()
    account.save()
    return account


def account_disconnect(*, user: User, account_id: uuid.UUID) -> int:
    """Delete the credentials and mark the account disconnected; the provider's session is
    revoked afterwards, best effort. The number of scheduled records cancelled."""
    with transaction.atomic():
        account = (
            SocialAccount.objects.select_for_update()
            .filter(pk=account_id, user=user)
            .exclude(status=AccountStatus.DISCONNECTED)
            .first()
        )
        if account is None:
            raise AccountNotFound()
        access, refresh = str(account.access_token), str(account.refresh_token)
        account.access_token = account.refresh_token = ""
        account.status = AccountStatus.DISCONNECTED
        account.save(update_fields=["access_token", "refresh_token", "status", "updated_at"])
        provider = account.provider
    adapter = PLATFORMS[provider].adapter
    if adapter is not None:
        try:
            adapter().revoke(access_token=access, refresh_token=refresh)
        except outbound.OutboundError:
            logger.warning("Could not revoke the %s session at the provider", provider)
    return 0  # scheduled records arrive with the posts issue
