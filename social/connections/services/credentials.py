"""Acting as an account: its credentials read, renewed and stored again, sessions opened side
by side, the account marked expired when the platform refuses them, and when a connection
ends unless the user reconnects."""

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from core import outbound
from core.concurrency import bounded_map
from social.lifecycle import account_expired_emit
from social.models import (
    AccountStatus,
    SocialAccount,
)
from social.networks import NETWORKS
from social.providers.base import (
    Credentials,
    OAuthApp,
)

logger = logging.getLogger(__name__)


def connection_end(
    *,
    provider: str,
    expires_at: datetime | None,
    refresh_token: str,
    refresh_expires_at: datetime | None,
) -> datetime | None:
    """When a connection ends unless the user reconnects (social.md section 2): never for one
    that renews itself, the refresh token's end where there is a refresh token (the upkeep
    renews the access token until then; None when the platform did not say), else the
    credentials' own end."""
    if NETWORKS[provider].renews_itself:
        return None
    if refresh_token:
        return refresh_expires_at
    return expires_at


def credentials_of(account: SocialAccount) -> Credentials:
    app = account.app
    return Credentials(
        provider_user_id=account.provider_user_id,
        access_token=str(account.access_token),
        refresh_token=str(account.refresh_token),
        expires_at=account.credentials_expire_at,
        refresh_expires_at=account.expires_at if account.refresh_token else None,
        username=account.username,
        instance=account.instance,
        endpoint=account.endpoint,
        app=OAuthApp(app.client_id, str(app.client_secret)) if app else None,
        options=dict(account.options or {}),
    )


@dataclass(slots=True)
class Session:
    """An account's credentials for a batch of calls, and why they cannot be used, if so."""

    credentials: Credentials
    error: outbound.OutboundError | None = None


def sessions_open(accounts: Iterable[SocialAccount], *, concurrency: int) -> dict[UUID, Session]:
    """Each distinct account's credentials, refreshed once for all the calls of a batch (the
    refreshes concurrently, without the database; renewed ones stored here). Two calls of one
    account never refresh it each: a Bluesky refresh token is good once."""
    unique = {account.pk: account for account in accounts}
    sessions = {pk: Session(credentials_of(account)) for pk, account in unique.items()}

    def refresh(pk: Any) -> None:
        session = sessions[pk]
        try:
            NETWORKS[unique[pk].provider].adapter.refresh(session.credentials)
        except outbound.OutboundError as error:
            session.error = error
        except Exception as error:  # a provider answer we did not expect: this account only
            logger.exception("Refreshing %s account %s failed", unique[pk].provider, pk)
            session.error = outbound.TransientError(f"Unexpected error ({type(error).__name__}).")

    bounded_map(refresh, list(unique), limit=concurrency)
    for pk, session in sessions.items():
        credentials_keep(unique[pk], session.credentials)
    return sessions


def credentials_keep(account: SocialAccount, credentials: Credentials) -> None:
    """Store credentials an adapter renewed, once (in the calling thread)."""
    if credentials.renewed:
        credentials_store(account, credentials)
        credentials.renewed = False


def credentials_store(account: SocialAccount, credentials: Credentials) -> None:
    account.access_token = credentials.access_token
    account.refresh_token = credentials.refresh_token
    account.credentials_expire_at = credentials.expires_at
    account.expires_at = connection_end(
        provider=account.provider,
        expires_at=credentials.expires_at,
        refresh_token=credentials.refresh_token,
        refresh_expires_at=credentials.refresh_expires_at,
    )
    account.expiry_warned_days = None
    account.last_sync = timezone.now()
    SocialAccount.objects.filter(pk=account.pk, status=AccountStatus.CONNECTED).update(
        access_token=account.access_token,
        refresh_token=account.refresh_token,
        credentials_expire_at=account.credentials_expire_at,
        expires_at=account.expires_at,
        expiry_warned_days=None,
        last_sync=account.last_sync,
        updated_at=timezone.now(),
    )


def account_mark_expired(*, account: SocialAccount, reason: str = "") -> bool:
    """The provider refused the account's credentials: `expired`, and the user is told to
    reconnect (once: an account already expired is left as it is). Whether it changed."""
    with transaction.atomic():
        changed = SocialAccount.objects.filter(
            pk=account.pk, status=AccountStatus.CONNECTED
        ).update(status=AccountStatus.EXPIRED, updated_at=timezone.now())
        if changed:
            account.status = AccountStatus.EXPIRED
            account_expired_emit(account, reason=reason)
    if changed:
        logger.info("Social account %s (%s) marked expired", account.pk, account.provider)
    return bool(changed)


# --- Disconnecting ----------------------------------------------------------------------------
