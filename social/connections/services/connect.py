"""Connecting a social account (social.md section 2): the consent asked for, the platform's
answer checked, the account stored. Provider calls happen outside any transaction; rows are
written in short transactions before (the consent `state` consumed) and after (the account
stored) the provider answered."""

import hashlib
import json
import logging
import secrets
import uuid
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from core import outbound
from core.errors import ValidationFailed
from notifications import events
from social.connections.services.credentials import connection_end
from social.errors import (
    CONNECT_REFUSALS,
    AccountAlreadyConnected,
    AuthorizeFirst,
    ConsentDenied,
    InvalidState,
    ProviderAuthFailed,
    ProviderNotConfigured,
    ProviderUnavailable,
)
from social.lifecycle import account_connected_emit
from social.models import AccountStatus, ConnectState, MastodonApp, SocialAccount
from social.networks import NETWORKS
from social.providers.base import ConnectionRefused, ConnectRequest, Identity, OAuthApp
from social.providers.client import answers_checked
from social.providers.mastodon import MastodonAdapter, normalize_instance

logger = logging.getLogger(__name__)

MASTODON = MastodonAdapter.provider  # connected through an app registered on its instance


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
    *, workspace_id: uuid.UUID, user: User, provider: str, redirect_uri: str, instance: str = ""
) -> Consent:
    """The provider's consent page for this user, with a fresh single-use `state`, good for
    connecting the account into this workspace."""
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
    if provider == MASTODON:
        if not instance:
            raise ValidationFailed(details={"instance": ["Your Mastodon server is required."]})
        instance = _checked_instance(instance)
        app = _mastodon_app(instance=instance, redirect_uri=redirect_uri)
    state = secrets.token_urlsafe(32)
    expires_at = timezone.now() + timedelta(seconds=settings.SOCIAL_CONNECT_STATE_SECONDS)
    ConnectState.objects.create(
        workspace_id=workspace_id,
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
    adapter: MastodonAdapter = NETWORKS[MASTODON].adapter  # type: ignore[assignment]
    try:
        with answers_checked(MASTODON):
            registered = adapter.register_app(instance=instance, redirect_uri=redirect_uri)
    except outbound.OutboundError as error:
        raise _provider_error(MASTODON, error) from error
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


def _consume_state(
    *, workspace_id: uuid.UUID, user: User, provider: str, state: str, redirect_uri: str
) -> ConnectState:
    """The consent this `state` stands for, used up now (one conditional UPDATE: a replayed
    or concurrent use finds it taken). A request that does not match it (another redirect
    URI, another workspace) is refused before the state is spent: a typo does not cost the
    user's consent."""
    now = timezone.now()
    consent = (
        ConnectState.objects.filter(
            state_hash=_state_hash(state),
            workspace_id=workspace_id,
            user=user,
            provider=provider,
            used_at__isnull=True,
            expires_at__gt=now,
        )
        .select_related("app")
        .first()
    )
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


def consent_decline(
    *,
    workspace_id: uuid.UUID,
    user: User,
    provider: str,
    state: str,
    redirect_uri: str,
    error: str,
) -> None:
    """The user declined at the consent page, which sent them back with `error` (such as
    `access_denied`) and the `state` (social.md section 13): the state is used up, nothing is
    stored, and the answer is 400 `consent_denied`. A state that is not this user's, unused
    and unexpired, is 400 `invalid_state` as for a code."""
    _platform_adapter(provider)
    if NETWORKS[provider].connect_method != "oauth":
        raise ValidationFailed(
            details={"error": [f"{NETWORKS[provider].name} has no consent page to decline."]}
        )
    if not state:
        raise ValidationFailed(details={"state": ["Required: send the state sent back to you."]})
    _consume_state(
        workspace_id=workspace_id,
        user=user,
        provider=provider,
        state=state,
        redirect_uri=redirect_uri,
    )
    raise ConsentDenied(details={"provider": provider, "error": error})


# --- Connecting -------------------------------------------------------------------------------


def account_connect(
    *,
    workspace_id: uuid.UUID,
    user: User,
    provider: str,
    request: ConnectRequest,
    state: str = "",
) -> SocialAccount:
    """Check the code or credentials with the provider, then store the account in the
    workspace (or renew the one the workspace already has). Nothing is stored when the
    provider refuses or cannot be reached; the user is notified either way (as their
    preferences say)."""
    adapter = _platform_adapter(provider)
    if NETWORKS[provider].connect_method == "oauth" and not state:
        if (
            provider == MASTODON
            and not ConnectState.objects.filter(
                workspace_id=workspace_id,
                user=user,
                provider=provider,
                instance=_checked_instance(request.instance),
            ).exists()
        ):
            raise AuthorizeFirst()
        # Without it, anyone could get a victim's session to link the attacker's account
        # (login CSRF on the callback): the consent must be the one this user asked for.
        raise ValidationFailed(
            details={"state": ["Required: send the state the authorize step gave you."]}
        )
    consent = (
        _consume_state(
            workspace_id=workspace_id,
            user=user,
            provider=provider,
            state=state,
            redirect_uri=request.redirect_uri,
        )
        if state
        else None
    )
    if consent is not None:
        # The consent's own redirect URI and instance; the network's choices as sent.
        request = replace(
            request,
            redirect_uri=consent.redirect_uri,
            instance=request.instance or consent.instance,
            state=state,
        )
    app: MastodonApp | None = None
    if provider == MASTODON and consent is not None:
        request, app = _mastodon_request(request=request, consent=consent)
    try:
        with answers_checked(provider):
            identity = adapter.connect(request)
    except ConnectionRefused as refusal:
        events.emit(
            user=user,
            payload=events.account_connect_failed(platform=provider, reason=refusal.message),
        )
        raise CONNECT_REFUSALS[refusal.code](refusal.message, details=refusal.details) from None
    except outbound.OutboundError as error:
        events.emit(
            user=user,
            payload=events.account_connect_failed(platform=provider, reason=error.message),
        )
        raise _provider_error(provider, error) from error
    try:
        return _store(
            workspace_id=workspace_id,
            user=user,
            provider=provider,
            instance=request.instance,
            identity=identity,
            app=app,
        )
    except IntegrityError:  # another workspace connected the same account a moment ago
        raise AccountAlreadyConnected() from None


@transaction.atomic
def _store(
    *,
    workspace_id: uuid.UUID,
    user: User,
    provider: str,
    instance: str,
    identity: Identity,
    app: MastodonApp | None,
) -> SocialAccount:
    live = (
        SocialAccount.objects.select_for_update()
        .filter(provider=provider, instance=instance, provider_user_id=identity.provider_user_id)
        .exclude(status=AccountStatus.DISCONNECTED)
        .first()
    )
    # One live connection per provider account: a workspace renews its own, another
    # workspace's (of any user) is refused.
    if live is not None and live.workspace_id != workspace_id:
        raise AccountAlreadyConnected()
    account = live or SocialAccount(
        id=uuid.uuid4(),
        workspace_id=workspace_id,
        user=user,
        provider=provider,
        instance=instance,
        provider_user_id=identity.provider_user_id,
        created_at=timezone.now(),
    )
    account.user = user  # whose consent the credentials now are: told about the account
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
    account.options = identity.options
    account.status = AccountStatus.CONNECTED
    account.last_sync = timezone.now()
    account.save()
    account_connected_emit(account, reconnected=live is not None)
    return account
