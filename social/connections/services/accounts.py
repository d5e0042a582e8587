"""Accounts after connecting: the notifications their lifecycle brings, disconnecting one, and
releasing them all at a takeover or with their workspace (revoked at the platform outside any
transaction)."""

import logging
import uuid
from datetime import datetime

from django.db import transaction
from django.db.models import QuerySet

from accounts.models import User, Workspace
from core import outbound
from notifications import events
from notifications.models import NotificationType
from notifications.services.center import NotificationDraft, notify_many
from social.connections.services.credentials import credentials_of
from social.errors import (
    AccountNotFound,
)
from social.models import (
    AccountStatus,
    ConnectState,
    SocialAccount,
)
from social.networks import NETWORKS
from social.planning import account_records_cancel
from social.providers.base import (
    Credentials,
)
from social.selectors import preferences_of

logger = logging.getLogger(__name__)


ACCOUNT_PREFERENCES = {
    "account.connected": "oauthSuccess",
    "account.reconnected": "oauthSuccess",
    "account.expiring": "tokenExpiry",
    "account.expired": "tokenExpiry",
    "account.connect_failed": "oauthFailure",
}


def accounts_notify(emitted: list[events.Event]) -> None:
    """The event channel's subscriber for the accounts' lifecycle (registered in
    SocialConfig.ready): connected, expiring soon, expired, or a connection that failed; as
    the users' settings say (one query for a batch), the notifications in one INSERT."""
    preferences = preferences_of({event.user_id for event in emitted})
    drafts = []
    for event in emitted:
        if not preferences[event.user_id].wants(ACCOUNT_PREFERENCES[event.name]):
            continue
        data = event.payload.data
        name = NETWORKS[data["platform"]].name
        if event.name == "account.connect_failed":
            drafts.append(
                NotificationDraft(
                    user_id=event.user_id,
                    type=NotificationType.ACCOUNT_CONNECT_FAILED,
                    title=f"{name} could not be connected",
                    message=data["reason"],
                    metadata={"platform": data["platform"]},
                )
            )
            continue
        account = data["username"] or name
        common = {"accountId": data["accountId"], "platform": data["platform"]}
        if event.name == "account.expiring":
            when = "tomorrow" if data["days"] == 1 else f"within {data['days']} days"
            # The notification's own format for the time: isoformat's `+00:00`.
            expires_at = data["expiresAt"] and datetime.fromisoformat(data["expiresAt"]).isoformat()
            drafts.append(
                NotificationDraft(
                    user_id=event.user_id,
                    type=NotificationType.TOKEN_EXPIRING,
                    title=f"Reconnect {name} soon",
                    message=f"The connection to {account} expires {when}. Reconnect it to "
                    "keep your scheduled posts publishing.",
                    metadata={**common, "expiresAt": expires_at or None},
                )
            )
        elif event.name == "account.expired":
            reason = data["reason"]
            drafts.append(
                NotificationDraft(
                    user_id=event.user_id,
                    type=NotificationType.TOKEN_EXPIRING,
                    title=f"Reconnect {name}",
                    message=f"{name} no longer accepts the connection of {account}: reconnect it "
                    "to keep publishing." + (f" ({reason})" if reason else ""),
                    metadata={**common, "expired": True},
                )
            )
        else:
            drafts.append(
                NotificationDraft(
                    user_id=event.user_id,
                    type=NotificationType.ACCOUNT_CONNECTED,
                    title=f"{name} connected",
                    message=f"{account} is connected: you can publish and schedule to it.",
                    metadata=common,
                )
            )
    notify_many(drafts=drafts)


def account_disconnect(*, workspace_id: uuid.UUID, account_id: uuid.UUID) -> int:
    """Delete the credentials of the workspace's account and mark it disconnected; the
    provider's session is revoked afterwards, best effort. The number of scheduled records
    cancelled."""
    with transaction.atomic():
        account = (
            SocialAccount.objects.select_for_update(of=("self",))
            .select_related("app")
            .filter(pk=account_id, workspace_id=workspace_id)
            .exclude(status=AccountStatus.DISCONNECTED)
            .first()
        )
        if account is None:
            raise AccountNotFound()
        credentials, cancelled = _disconnect(account)
    _revoke_all([(account.provider, credentials)])
    return cancelled


def _disconnect(account: SocialAccount) -> tuple[Credentials, int]:
    """In the caller's transaction: the credentials deleted (returned, to revoke them after
    the commit), the account `disconnected`, its waiting records cancelled (how many)."""
    credentials = credentials_of(account)
    account.access_token = account.refresh_token = ""
    account.status = AccountStatus.DISCONNECTED
    account.save(update_fields=["access_token", "refresh_token", "status", "updated_at"])
    return credentials, account_records_cancel(account)


def accounts_release(user: User, *, revoke: bool = True) -> list[str]:
    """The takeover cleanup (accounts.hooks registry): every account the user connected, in
    any workspace, disconnected (credentials deleted, waiting records cancelled) in the
    caller's transaction; the provider sessions revoked after it commits, best effort (no
    transaction waits on a provider). What was removed, in words."""
    return _release(SocialAccount.objects.filter(user=user), revoke=revoke)


def workspace_accounts_release(workspace: Workspace, *, revoke: bool = True) -> list[str]:
    """Every connected account of the workspace disconnected, as accounts_release."""
    return _release(SocialAccount.objects.filter(workspace=workspace), revoke=revoke)


def _release(found: QuerySet[SocialAccount], *, revoke: bool) -> list[str]:
    accounts = list(
        found.select_for_update(of=("self",))
        .select_related("app")
        .exclude(status=AccountStatus.DISCONNECTED)
    )
    if not accounts:
        return []
    to_revoke, cancelled = [], 0
    for account in accounts:
        credentials, count = _disconnect(account)
        to_revoke.append((account.provider, credentials))
        cancelled += count
    if revoke:
        transaction.on_commit(lambda: _revoke_all(to_revoke))
    names = ", ".join(f"{NETWORKS[a.provider].name} {a.username}".strip() for a in accounts)
    removed = [f"{len(accounts)} connected social account(s) ({names})"]
    if cancelled:
        removed.append(f"{cancelled} scheduled post(s) to them")
    return removed


def _revoke_all(sessions: list[tuple[str, Credentials]]) -> None:
    for provider, credentials in sessions:
        try:
            NETWORKS[provider].adapter.revoke(credentials)
        except outbound.OutboundError:
            logger.warning("Could not revoke the %s session at the provider", provider)
        except Exception:  # one provider's surprise must not stop the others' revocation
            logger.exception("Revoking a %s session failed unexpectedly", provider)


def connect_states_forget(user: User) -> list[str]:
    """The registry's cleanup: consents in progress end (a state opens nothing any more)."""
    ConnectState.objects.filter(user=user).delete()
    return []
