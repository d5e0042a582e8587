"""Connecting, calling and disconnecting social accounts.

Provider calls happen outside any transaction; rows are written in short transactions before
(the consent `state` consumed) and after (the account stored) the provider answered.
"""

import hashlib
import json
import logging
import secrets
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from core import outbound
from core.concurrency import bounded_map
from core.errors import ValidationFailed
from notifications import events
from notifications.models import NotificationType
from notifications.services.center import NotificationDraft, notify_many
from social.errors import (
    AccountAlreadyConnected,
    AccountNotFound,
    AuthorizeFirst,
    InvalidState,
    NoFacebookPage,
    NoInstagramAccount,
    ProviderAuthFailed,
    ProviderNotConfigured,
    ProviderUnavailable,
)
from social.lifecycle import account_connected_emit, account_expired_emit
from social.models import (
    AccountStatus,
    ConnectState,
    MastodonApp,
    Provider,
    SocialAccount,
)
from social.networks import NETWORKS
from social.planning import account_records_cancel
from social.providers.base import (
    ConnectionRefused,
    ConnectRequest,
    Credentials,
    Identity,
    OAuthApp,
    answers_checked,
)
from social.providers.mastodon import MastodonAdapter, normalize_instance
from social.selectors import settings_for_users

logger = logging.getLogger(__name__)


REFUSALS = {"no_facebook_page": NoFacebookPage, "no_instagram_account": NoInstagramAccount}


@dataclass(frozen=True, slots=True)
class Consent:
    provider: str
    url: str
    state: str
    expires_at: datetime


def _state_hash(state: str) -> str:
    return hashlib.sha256(state.encode()).hexdigest()


def _platform_adapter(provider: str) -> Any:
    platform = NETWORKS[provider]
    if not platform.configured:
        raise ProviderNotConfigured(details={"provider": provider})
    return platform.adapter


def _checked_instance(instance: str) -> str:
    """A Mastodon server address: normalized, https and public (the outbound guard)."""
    normalized = normalize_instance(instance)
    try:
        outbound.guard_url(normalized)
    except outbound.UnsafeURL as error:
        raise ValidationFailed(details={"instance": [error.message]}) from None
    return normalized


def provider_message(error: outbound.OutboundError) -> dict[str, Any]:
    """The provider's answer as an object for `error.details.providerMessage`: its JSON error
    body as it sent it, or `{"message": ...}` for an answer that is not a JSON object."""
    try:
        body = json.loads(error.excerpt) if error.excerpt else None
    except ValueError:
        body = None
    if isinstance(body, dict):
        return body
    return {"message": (error.excerpt or error.message)[:500]}


def _provider_error(provider: str, error: outbound.OutboundError) -> Exception:
    if isinstance(error, outbound.TransientError):
        return ProviderUnavailable(details={"provider": provider})
    return ProviderAuthFailed(
        details={"provider": provider, "providerMessage": provider_message(error)}
    )


# --- Consent (OAuth providers) ----------------------------------------------------------------


def connect_authorize(
    *, user: User, provider: str, redirect_uri: str, instance: str = ""
) -> Consent:
    """The provider's consent page for this user, with a fresh single-use `state`."""
    adapter = _platform_adapter(provider)
    if NETWORKS[provider].connect_method != "oauth":
        raise ValidationFailed(
            details={
                "provider": [
                    f"{NETWORKS[provider].name} connects with credentials, not a consent page: "
                    "send them to POST /api/social/connect."
                ]
            }
        )
    app: MastodonApp | None = None
    if provider == Provider.MASTODON:
        if not instance:
            raise ValidationFailed(details={"instance": ["Your Mastodon server is required."]})
        instance = _checked_instance(instance)
        app = _mastodon_app(instance=instance, redirect_uri=redirect_uri)
    state = secrets.token_urlsafe(32)
    expires_at = timezone.now() + timedelta(seconds=settings.SOCIAL_CONNECT_STATE_SECONDS)
    ConnectState.objects.create(
        user=user,
        provider=provider,
        state_hash=_state_hash(state),
        redirect_uri=redirect_uri,
        instance=instance,
        app=app,
        expires_at=expires_at,
    )
    url = adapter.authorize_url(
        redirect_uri=redirect_uri,
        state=state,
        app=OAuthApp(app.client_id, str(app.client_secret)) if app else None,
        instance=instance,
    )
    return Consent(provider=provider, url=url, state=state, expires_at=expires_at)


def _mastodon_app(*, instance: str, redirect_uri: str) -> MastodonApp:
    """Our app on the instance for this redirect URI: registered once, then reused."""
    existing = MastodonApp.objects.filter(instance=instance, redirect_uri=redirect_uri).first()
    if existing is not None:
        return existing
    adapter: MastodonAdapter = NETWORKS[Provider.MASTODON].adapter  # type: ignore[assignment]
    try:
        with answers_checked(Provider.MASTODON):
            registered = adapter.register_app(instance=instance, redirect_uri=redirect_uri)
    except outbound.OutboundError as error:
        raise _provider_error(Provider.MASTODON, error) from error
    try:
        with transaction.atomic():
            return MastodonApp.objects.create(
                instance=instance,
                redirect_uri=redirect_uri,
                client_id=registered.client_id,
                client_secret=registered.client_secret,
            )
    except IntegrityError:  # registered by a concurrent request: use that one
        return MastodonApp.objects.get(instance=instance, redirect_uri=redirect_uri)


def _consume_state(*, user: User, provider: str, state: str, redirect_uri: str) -> ConnectState:
    """The consent this `state` stands for, used up now (one conditional UPDATE: a replayed
    or concurrent use finds it taken). A request that does not match it (another redirect
    URI) is refused before the state is spent: a typo does not cost the user's consent."""
    now = timezone.now()
    consent = ConnectState.objects.filter(
        state_hash=_state_hash(state), user=user, provider=provider, used_at__isnull=True,
        expires_at__gt=now,
    ).select_related("app").first()  # fmt: skip
    if consent is None:
        raise InvalidState()
    if redirect_uri and redirect_uri != consent.redirect_uri:
        raise InvalidState(details={"redirectUri": "It differs from the authorized one."})
    taken = ConnectState.objects.filter(pk=consent.pk, used_at__isnull=True).update(used_at=now)
    if not taken:
        raise InvalidState()
    return consent


def _mastodon_request(
    *, request: ConnectRequest, consent: ConnectState
) -> tuple[ConnectRequest, MastodonApp]:
    """The connect request completed with the app of the instance the consent was given on."""
    instance = _checked_instance(request.instance)
    if consent.instance != instance:
        raise InvalidState(details={"instance": "The consent was given on another server."})
    app = consent.app
    redirect_uri = request.redirect_uri
    if app is None:
        raise AuthorizeFirst()
    completed = ConnectRequest(
        code=request.code,
        redirect_uri=redirect_uri or app.redirect_uri,
        instance=instance,
        app=OAuthApp(app.client_id, str(app.client_secret)),
    )
    return completed, app


# --- Connecting -------------------------------------------------------------------------------


def account_connect(
    *, user: User, provider: str, request: ConnectRequest, state: str = ""
) -> SocialAccount:
    """Check the code or credentials with the provider, then store the account (or renew the
    one this user already has). Nothing is stored when the provider refuses or cannot be
    reached; the user is notified either way (as their preferences say)."""
    adapter = _platform_adapter(provider)
    if NETWORKS[provider].connect_method == "oauth" and not state:
        if (
            provider == Provider.MASTODON
            and not ConnectState.objects.filter(
                user=user, provider=provider, instance=_checked_instance(request.instance)
            ).exists()
        ):
            raise AuthorizeFirst()
        # Without it, anyone could get a victim's session to link the attacker's account
        # (login CSRF on the callback): the consent must be the one this user asked for.
        raise ValidationFailed(
            details={"state": ["Required: send the state the authorize step gave you."]}
        )
    consent = (
        _consume_state(user=user, provider=provider, state=state, redirect_uri=request.redirect_uri)
        if state
        else None
    )
    if consent is not None:
        request = ConnectRequest(
            code=request.code,
            identifier=request.identifier,
            redirect_uri=consent.redirect_uri,
            instance=request.instance or consent.instance,
            page_id=request.page_id,
        )
    app: MastodonApp | None = None
    if provider == Provider.MASTODON and consent is not None:
        request, app = _mastodon_request(request=request, consent=consent)
    try:
        with answers_checked(provider):
            identity = adapter.connect(request)
    except ConnectionRefused as refusal:
        events.emit(user=user, payload=events.account_connect_failed(
            platform=provider, reason=refusal.message))  # fmt: skip
        raise REFUSALS[refusal.code](refusal.message) from None
    except outbound.OutboundError as error:
        events.emit(user=user, payload=events.account_connect_failed(
            platform=provider, reason=error.message))  # fmt: skip
        raise _provider_error(provider, error) from error
    try:
        return _store(user=user, provider=provider, instance=request.instance, identity=identity,
                      app=app)  # fmt: skip
    except IntegrityError:  # another user connected the same account a moment ago
        raise AccountAlreadyConnected() from None


@transaction.atomic
def _store(
    *, user: User, provider: str, instance: str, identity: Identity, app: MastodonApp | None
) -> SocialAccount:
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
    account.avatar = identity.avatar[:1000]
    account.access_token = identity.access_token
    account.refresh_token = identity.refresh_token
    account.credentials_expire_at = identity.expires_at
    account.expires_at = connection_end(
        provider=provider,
        expires_at=identity.expires_at,
        refresh_token=identity.refresh_token,
        refresh_expires_at=identity.refresh_expires_at,
    )
    account.expiry_warned_days = None
    account.endpoint = identity.endpoint
    account.app = app
    account.limits = identity.limits or NETWORKS[provider].limits
    account.status = AccountStatus.CONNECTED
    account.last_sync = timezone.now()
    account.save()
    account_connected_emit(account, reconnected=live is not None)
    return account


# What each account event tells the user, and the social setting that may turn it off.
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
    preferences = settings_for_users({event.user_id for event in emitted})
    drafts = []
    for event in emitted:
        if not preferences[event.user_id].wants(ACCOUNT_PREFERENCES[event.name]):
            continue
        data = event.payload.data
        name = NETWORKS[data["platform"]].name
        if event.name == "account.connect_failed":
            drafts.append(NotificationDraft(
                user_id=event.user_id, type=NotificationType.ACCOUNT_CONNECT_FAILED,
                title=f"{name} could not be connected", message=data["reason"],
                metadata={"platform": data["platform"]},
            ))  # fmt: skip
            continue
        account = data["username"] or name
        common = {"accountId": data["accountId"], "platform": data["platform"]}
        if event.name == "account.expiring":
            when = "tomorrow" if data["days"] == 1 else f"within {data['days']} days"
            # The notification's own format for the time: isoformat's `+00:00`.
            expires_at = data["expiresAt"] and datetime.fromisoformat(data["expiresAt"]).isoformat()
            drafts.append(NotificationDraft(
                user_id=event.user_id, type=NotificationType.TOKEN_EXPIRING,
                title=f"Reconnect {name} soon",
                message=f"The connection to {account} expires {when}. Reconnect it to "
                "keep your scheduled posts publishing.",
                metadata={**common, "expiresAt": expires_at or None},
            ))  # fmt: skip
        elif event.name == "account.expired":
            reason = data["reason"]
            drafts.append(NotificationDraft(
                user_id=event.user_id, type=NotificationType.TOKEN_EXPIRING,
                title=f"Reconnect {name}",
                message=f"{name} no longer accepts the connection of {account}: reconnect it "
                "to keep publishing." + (f" ({reason})" if reason else ""),
                metadata={**common, "expired": True},
            ))  # fmt: skip
        else:
            drafts.append(NotificationDraft(
                user_id=event.user_id, type=NotificationType.ACCOUNT_CONNECTED,
                title=f"{name} connected",
                message=f"{account} is connected: you can publish and schedule to it.",
                metadata=common,
            ))  # fmt: skip
    notify_many(drafts=drafts)


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


# --- Acting as an account ---------------------------------------------------------------------


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
    )


@dataclass(slots=True)
class Session:
    """An account's credentials for a batch of calls, and why they cannot be used, if so."""

    credentials: Credentials
    error: outbound.OutboundError | None = None


def sessions_open(accounts: Iterable[SocialAccount], *, concurrency: int) -> dict[Any, Session]:
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


def account_disconnect(*, user: User, account_id: uuid.UUID) -> int:
    """Delete the credentials and mark the account disconnected; the provider's session is
    revoked afterwards, best effort. The number of scheduled records cancelled."""
    with transaction.atomic():
        account = (
            SocialAccount.objects.select_for_update(of=("self",))
            .select_related("app")
            .filter(pk=account_id, user=user)
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
    """Every connected account of the user disconnected (credentials deleted, waiting records
    cancelled) in the caller's transaction; the provider sessions revoked after it commits,
    best effort (no transaction waits on a provider). What was removed, in words."""
    accounts = list(
        SocialAccount.objects.select_for_update(of=("self",))
        .select_related("app")
        .filter(user=user)
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
