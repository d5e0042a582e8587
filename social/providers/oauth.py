"""OAuth 2.0's code and refresh grants, written once for the networks that connect with them
(Google's, TikTok, Pinterest, X, LinkedIn, Reddit, Slack): the form that exchanges a consent's
code, the credentials a token endpoint answers, when an access token is due for renewal, and
its renewal (`grant_type=refresh_token`: the refresh token answered, else the one kept; a
refusal, with the platform named, an authentication failure whose words the error catalog
reads as `auth_expired`: the user reconnects), and the two headers such calls carry (the app's
id and secret as HTTP Basic, the account's access token as Bearer)."""

import base64
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.utils import timezone

from core import outbound
from social.providers.base import ConnectRequest, Credentials
from social.providers.client import seconds_from_now

TokenEndpoint = Callable[[dict[str, str]], dict[str, Any]]  # a grant's form, the answer's JSON


def bearer(credentials: Credentials) -> dict[str, str]:
    """The account's access token as the Authorization header of a call."""
    return {"Authorization": f"Bearer {credentials.access_token}"}


def basic_auth(client_id: str, client_secret: str) -> dict[str, str]:
    """The app's id and secret as HTTP Basic (RFC 6749 section 2.3.1), as a header."""
    pair = base64.b64encode(f"{client_id}:{client_secret}".encode()).decode()
    return {"Authorization": f"Basic {pair}"}


def code_grant(request: ConnectRequest, **extra: str) -> dict[str, str]:
    """The form exchanging the consent's code for tokens (`extra`: a PKCE verifier)."""
    return {
        "grant_type": "authorization_code",
        "code": request.code,
        "redirect_uri": request.redirect_uri,
        **extra,
    }


def credentials_of(
    token: dict[str, Any], *, refresh_lifetime: str = "", provider_user_id: str = ""
) -> Credentials:
    """The credentials a token endpoint answered; `refresh_lifetime` names the answer's field
    with the refresh token's own lifetime in seconds, where the platform tells it."""
    return Credentials(
        provider_user_id=provider_user_id,
        access_token=str(token["access_token"]),
        refresh_token=str(token.get("refresh_token") or ""),
        expires_at=seconds_from_now(token.get("expires_in")),
        refresh_expires_at=seconds_from_now(token.get(refresh_lifetime))
        if refresh_lifetime
        else None,
    )


def renewal_due(credentials: Credentials, within: timedelta) -> bool:
    """An access token with under `within` left, past its end, or with no end known."""
    expires_at = credentials.expires_at
    return expires_at is None or expires_at - timezone.now() < within


def renew(
    credentials: Credentials,
    token: TokenEndpoint,
    *,
    refused: str = "",
    passed_on: tuple[type[outbound.OutboundError], ...] = (),
    refresh_lifetime: str = "",
    sealed: Callable[[str], str] | None = None,
) -> None:
    """`credentials` renewed with `grant_type=refresh_token` at `token`: a new access token
    (`sealed` wraps it as the account stores it) and its end, the refresh token answered (a
    rotating one) or the one kept, and the refresh token's end where `refresh_lifetime` names
    its field. With `refused` (the platform's name), a refusal (PermanentError, but those in
    `passed_on`) becomes an AuthenticationError saying "{refused} refused to renew the access
    token"; without it, what the token endpoint raised goes on as it is."""
    try:
        answer = token({"grant_type": "refresh_token", "refresh_token": credentials.refresh_token})
    except passed_on:
        raise
    except outbound.PermanentError as error:
        if not refused:
            raise
        raise outbound.AuthenticationError(
            f"{refused} refused to renew the access token: {error.message}",
            status=error.status,
            excerpt=error.excerpt,
        ) from None
    access_token = str(answer["access_token"])
    credentials.renew(
        access_token=sealed(access_token) if sealed else access_token,
        refresh_token=str(answer.get("refresh_token") or credentials.refresh_token),
        expires_at=seconds_from_now(answer.get("expires_in")),
        refresh_expires_at=seconds_from_now(answer.get(refresh_lifetime))
        if refresh_lifetime
        else None,
    )
