"""The authorization code flow through the web client's consent (agents.md section 1): an
authorization request checked by the provider (django-oauth-toolkit) and kept for its user,
the user's decision (approved: an agent connection of `kind: oauth` and the code the provider
issues), and an access token presented at /mcp read back as its connection."""

from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone
from oauth2_provider.exceptions import FatalClientError, OAuthToolkitError
from oauth2_provider.models import (
    clear_expired,
    get_access_token_model,
    get_application_model,
    get_device_grant_model,
    get_grant_model,
    get_id_token_model,
    get_refresh_token_model,
)
from oauth2_provider.oauth2_backends import get_oauthlib_core

from accounts.models import ApiKey, User
from accounts.selectors import membership_get
from accounts.services.api_keys import api_key_create
from agents.models import AgentConnection, AgentKind, OAuthRequest
from agents.oauth.errors import (
    OAuthProtocolError,
    OAuthRedirectError,
    OAuthRequestClosed,
    OAuthRequestNotFound,
)
from agents.oauth.metadata import resource_url
from agents.services import agent_policy_update
from core.errors import ValidationFailed
from core.inputs import UNSET

REQUEST_TTL = timedelta(minutes=10)  # from the redirect to the consent page to the decision
KEY_NAME_MAX = 80
# What the code is issued for, kept from the validated request (as the provider's own
# authorization form keeps them).
KEPT = ("client_id", "redirect_uri", "response_type", "state", "code_challenge")


def _redirect_error(error: OAuthToolkitError) -> OAuthRedirectError:
    oauthlib_error = error.oauthlib_error
    return OAuthRedirectError(oauthlib_error.in_uri(oauthlib_error.redirect_uri))


def _with_params(uri: str, **params: str) -> str:
    joined = urlencode({k: v for k, v in params.items() if v})
    return f"{uri}{'&' if urlsplit(uri).query else '?'}{joined}"


def oauth_authorize(*, request: HttpRequest) -> str:
    """`GET /oauth/authorize`, checked by the provider, kept for consent: the web client's
    consent page to send the browser to. An unknown client or an unregistered redirect URI:
    OAuthProtocolError (400, never a redirect); anything else wrong (no PKCE S256 challenge,
    an unknown scope, another resource): OAuthRedirectError to the client with `error`."""
    try:
        scopes, credentials = get_oauthlib_core().validate_authorization_request(request)
    except FatalClientError as error:
        raise OAuthProtocolError(
            error.oauthlib_error.error, error.oauthlib_error.description or "Invalid request."
        ) from None
    except OAuthToolkitError as error:
        raise _redirect_error(error) from None
    kept = {name: credentials.get(name) for name in KEPT}
    state = str(credentials.get("state") or "")
    if credentials.get("code_challenge_method") != "S256":
        raise OAuthRedirectError(
            _with_params(
                kept["redirect_uri"],
                error="invalid_request",
                error_description="PKCE with code_challenge_method=S256 is required.",
                state=state,
            )
        )
    kept["code_challenge_method"] = "S256"
    resources = request.GET.getlist("resource")
    if any(resource.rstrip("/") != resource_url() for resource in resources):
        raise OAuthRedirectError(
            _with_params(
                kept["redirect_uri"],
                error="invalid_target",
                error_description=f"The only resource is {resource_url()}.",
                state=state,
            )
        )
    kept["resource"] = [resource_url()] if resources else []
    application = credentials["request"].client
    now = timezone.now()
    pending = OAuthRequest.objects.create(
        application=application,
        credentials=kept,
        scopes=list(scopes),
        created_at=now,
        expires_at=now + REQUEST_TTL,
    )
    return f"{settings.APP_URL}/oauth/consent?{urlencode({'request': str(pending.pk)})}"


def oauth_request_open(*, user: User, request_id: UUID) -> OAuthRequest:
    """The request for its user to decide: the first signed-in user to open it claims it
    (another then finds nothing: 404); decided or expired: 410."""
    OAuthRequest.objects.filter(pk=request_id, user__isnull=True).update(user=user)
    found = (
        OAuthRequest.objects.select_related("application").filter(pk=request_id, user=user).first()
    )
    if found is None:
        raise OAuthRequestNotFound()
    if found.decided_at is not None or found.expires_at <= timezone.now():
        raise OAuthRequestClosed()
    return found


@dataclass(frozen=True, slots=True)
class Policy:
    autopublish: Any = UNSET
    max_posts_per_day: Any = UNSET
    credit_budget_per_day: Any = UNSET
    account_ids: Any = UNSET


def oauth_request_decide(
    *,
    user: User,
    request_id: UUID,
    approve: bool,
    scopes: list[str],
    workspace_id: UUID | None,
    policy: Policy,
) -> str:
    """The user's one decision; where the browser goes back to the client. Approved: an agent
    connection in that workspace with those scopes (a subset of those asked) and policy, its
    own API key (the user must be allowed to make keys there), and the provider's code;
    refused: `error=access_denied`. Nothing is written when anything is refused."""
    with transaction.atomic():
        oauth_request_open(user=user, request_id=request_id)
        pending = OAuthRequest.objects.select_for_update().select_related("application")
        row = pending.get(pk=request_id)
        if row.decided_at is not None:  # decided meanwhile
            raise OAuthRequestClosed()
        credentials = dict(row.credentials)
        if not approve:
            OAuthRequest.objects.filter(pk=row.pk).update(decided_at=timezone.now())
            return _with_params(
                credentials["redirect_uri"],
                error="access_denied",
                error_description="The user did not allow access.",
                state=credentials.get("state") or "",
            )
        granted = _granted(row, scopes)
        if workspace_id is None:
            raise ValidationFailed(details={"workspaceId": ["Choose the workspace."]})
        connection = _connection_made(row, user, workspace_id, granted, policy)
        OAuthRequest.objects.filter(pk=row.pk).update(
            decided_at=timezone.now(), connection=connection
        )
        credentials["oauth_request_id"] = str(row.pk)
        issued_for = HttpRequest()
        issued_for.method = "POST"
        issued_for.user = user
        try:
            uri, _, _, _ = get_oauthlib_core().create_authorization_response(
                issued_for, granted, credentials, True
            )
        except OAuthToolkitError:  # its client deleted meanwhile: nothing is kept
            raise OAuthRequestClosed() from None
    return str(uri)


def _granted(row: OAuthRequest, scopes: list[str]) -> list[str]:
    asked = list(row.scopes)
    outside = [scope for scope in scopes if scope not in asked]
    if outside or not scopes:
        message = f"Not asked for: {', '.join(outside)}." if outside else "Grant at least one."
        raise ValidationFailed(details={"scopes": [message]})
    return [scope for scope in asked if scope in scopes]


def _connection_made(
    row: OAuthRequest, user: User, workspace_id: UUID, scopes: list[str], policy: Policy
) -> AgentConnection:
    """The grant's connection and its key (accounts' own creation: the role check, the live
    keys' limit, the owner told); the key's secret is dropped: the grant's tokens stand in."""
    actor = membership_get(user=user, workspace_id=workspace_id)
    client = row.application.name
    key, _ = api_key_create(
        actor=actor, name=f"{client} (OAuth)"[:KEY_NAME_MAX], scopes=scopes, expires_at=None
    )
    connection = AgentConnection.objects.create(
        user=user,
        workspace_id=actor.workspace_id,
        kind=AgentKind.OAUTH,
        api_key=key,
        name=client,
        client=client,
    )
    return agent_policy_update(
        user=user,
        agent_id=connection.pk,
        autopublish=policy.autopublish,
        max_posts_per_day=policy.max_posts_per_day,
        credit_budget_per_day=policy.credit_budget_per_day,
        account_ids=policy.account_ids,
    )


def oauth_connection_for_token(*, token: str) -> tuple[ApiKey, AgentConnection] | None:
    """The live connection (and its live key) whose access token this is, checked by the
    provider (unknown, expired, revoked, for another resource: None)."""
    valid, checked = get_oauthlib_core().server.verify_request(
        resource_url(), http_method="POST", headers={"Authorization": f"Bearer {token}"}
    )
    if not valid:
        return None
    family = (
        get_refresh_token_model()
        .objects.filter(access_token=checked.access_token)
        .values_list("token_family", flat=True)
        .first()
    )
    connection = (
        AgentConnection.objects.select_related("api_key__user")
        .filter(pk=family, kind=AgentKind.OAUTH, revoked_at__isnull=True)
        .first()
        if family
        else None
    )
    key = connection.api_key if connection else None
    if connection is None or key is None or not key.is_live() or not key.user.is_active:
        return None
    return key, connection


# The provider's models holding a user's rows (device grants too: a flow we do not serve).
PROVIDER_MODELS = ("AccessToken", "RefreshToken", "Grant", "IDToken", "DeviceGrant", "Application")


def oauth_forget(user: Any) -> list[str]:
    """The user-data registry's cleanup (takeover, erasure): the user's OAuth tokens, codes,
    pending requests (and any client made for them in the admin) go."""
    with transaction.atomic():
        get_refresh_token_model().objects.filter(user_id=user.pk).delete()
        tokens, _ = get_access_token_model().objects.filter(user_id=user.pk).delete()
        get_grant_model().objects.filter(user_id=user.pk).delete()
        get_id_token_model().objects.filter(user_id=user.pk).delete()
        get_device_grant_model().objects.filter(user_id=user.pk).delete()
        get_application_model().objects.filter(user_id=user.pk).delete()
        requests, _ = OAuthRequest.objects.filter(user_id=user.pk).delete()
    return [f"{tokens + requests} OAuth token and request row(s)"] if tokens or requests else []


UNUSED_CLIENT_DAYS = 30  # a registered client that never got a token is forgotten after this


def oauth_expired_purge(*, older_than_days: int = 1) -> dict[str, int]:
    """The daily cleanup (agents.tasks): consent requests ended more than `older_than_days`
    ago (decided or not: a late reader gets 404 instead of 410), the provider's expired codes
    and tokens (django-oauth-toolkit's `clear_expired`: refresh tokens revoked longer ago than
    their lifetime, access tokens ended with no live refresh token, codes past their minute),
    and clients registered UNUSED_CLIENT_DAYS ago that never got a code or a token."""
    now = timezone.now()
    application = get_application_model()
    clients = application.objects.filter(
        user__isnull=True, created__lt=now - timedelta(days=UNUSED_CLIENT_DAYS)
    )
    for model in (get_grant_model(), get_access_token_model(), get_refresh_token_model()):
        clients = clients.exclude(pk__in=model.objects.values("application_id"))
    unused = list(clients.values_list("pk", flat=True))  # before any token of theirs expires
    requests, _ = OAuthRequest.objects.filter(
        expires_at__lt=now - timedelta(days=older_than_days)
    ).delete()
    clear_expired()
    _, deleted = application.objects.filter(pk__in=unused).delete()
    return {"requests": requests, "clients": deleted.get(application._meta.label, 0)}
