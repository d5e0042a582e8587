"""X's connection: OAuth 2.0 Authorization Code with PKCE (S256) for a confidential client,
access tokens of two hours renewed with a rotating refresh token, the answers of API v2 read
into our error classes (problem bodies `{title, detail, type, status}`)."""

import base64
import hashlib
import hmac
import time
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.utils import timezone

from core import outbound
from social.providers.base import ConnectRequest, Credentials, Identity, OAuthApp
from social.providers.client import ProviderClient, body_of
from social.providers.oauth import basic_auth, code_grant, credentials_of, renew
from social.providers.text import Composer

SCOPES = "tweet.read tweet.write users.read media.write offline.access"
RENEW_WITHIN = timedelta(minutes=5)  # an access token with less left is renewed first
DUPLICATE = "duplicate content"
USAGE_CAPPED = "usage-capped"


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """401: the token (authentication); 429: X's rate limit, tried again once its window
    resets (`x-rate-limit-reset`, Unix seconds), unless the app's usage cap is what ran out
    (`UsageCapExceeded`: only an operator adding credits helps); 403: duplicate content or a
    missing permission (permanent); other 4xx permanent, 5xx transient (the defaults)."""
    status, body = response.status_code, body_of(response)
    said = str(body.get("detail") or body.get("title") or body.get("error_description") or "")
    kind = str(body.get("type") or "")
    text = outbound.excerpt(response)
    if status == 429 and USAGE_CAPPED in kind:
        return outbound.PermanentError(
            f"X's usage cap for this app is used up: {said}", status=429, excerpt=text
        )
    if status == 429:
        return outbound.TransientError(
            "X's rate limit was reached.",
            status=429,
            retry_after=_until(response.headers.get("x-rate-limit-reset", "")),
            excerpt=text,
        )
    if status == 401:
        return outbound.AuthenticationError(
            "X refused the access token: reconnect the account.", status=401, excerpt=text
        )
    if status == 403 and DUPLICATE in said.lower():
        return outbound.PermanentError(
            f"X refuses the same text twice ({DUPLICATE}): {said}", status=403, excerpt=text
        )
    if status == 403:
        return outbound.PermanentError(
            f"X does not permit this: {said or 'Forbidden'}", status=403, excerpt=text
        )
    if 400 <= status < 500 and said:
        return outbound.PermanentError(
            f"X refused the request: {said}", status=status, excerpt=text
        )
    return None


def _until(reset: str) -> float | None:
    try:
        return max(0.0, float(reset) - time.time())
    except ValueError:
        return None


def code_verifier(state: str) -> str:
    """The PKCE verifier of one consent: 43 characters of base64url, derived from the consent's
    random single-use `state` with this server's secret key, so it never leaves the server and
    needs no row of its own (the state is kept, hashed, as the consent)."""
    digest = hmac.new(settings.SECRET_KEY.encode(), f"x-pkce:{state}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()


def code_challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


class XConnection(Composer):
    """The adapter's login and its API calls (social.providers.x.XAdapter builds on it)."""

    _client = ProviderClient("x", classify)

    @staticmethod
    def configured() -> bool:
        return bool(settings.X_CLIENT_ID and settings.X_CLIENT_SECRET)

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        query = urlencode(
            {
                "response_type": "code",
                "client_id": settings.X_CLIENT_ID,
                "redirect_uri": redirect_uri,
                "scope": SCOPES,
                "state": state,
                "code_challenge": code_challenge(code_verifier(state)),
                "code_challenge_method": "S256",
            }
        )
        return f"{settings.X_AUTH_URL}/i/oauth2/authorize?{query}"

    def _token(self, form: dict[str, str]) -> dict[str, Any]:
        token: dict[str, Any] = self._client.json(
            "POST",
            f"{settings.X_API_URL}/2/oauth2/token",
            data={**form, "client_id": settings.X_CLIENT_ID},
            headers=basic_auth(settings.X_CLIENT_ID, settings.X_CLIENT_SECRET),
        )
        return token

    def connect(self, request: ConnectRequest) -> Identity:
        token = self._token(code_grant(request, code_verifier=code_verifier(request.state)))
        credentials = credentials_of(token)
        return self.identity(credentials)

    def identity(self, credentials: Credentials) -> Identity:
        """`GET /2/users/me` (health's cheap call as well)."""
        me: dict[str, Any] = self._call(
            "GET", "/2/users/me", credentials, params={"user.fields": "profile_image_url"}
        )["data"]
        return Identity(
            provider_user_id=str(me["id"]),
            username=str(me.get("username") or ""),
            display_name=str(me.get("name") or ""),
            avatar=str(me.get("profile_image_url") or ""),
            access_token=credentials.access_token,
            refresh_token=credentials.refresh_token,
            expires_at=credentials.expires_at,
        )

    def refresh(self, credentials: Credentials, *, force: bool = False) -> None:
        """A new access token (and a new refresh token: the old one is dead once used) when
        the token has under 5 minutes left, or `force` (once after a 401). A refused refresh
        is the end of the connection (authentication: the account becomes expired)."""
        expires_at = credentials.expires_at
        soon = expires_at is not None and expires_at - timezone.now() < RENEW_WITHIN
        if not credentials.refresh_token or not (force or soon):
            return
        renew(credentials, self._token, refused="X", passed_on=(outbound.AuthenticationError,))

    def revoke(self, credentials: Credentials) -> None:
        """`POST /2/oauth2/revoke` of the refresh token (best effort: the caller ignores a
        failure)."""
        if not credentials.refresh_token:
            return
        self._client.call(
            "POST",
            f"{settings.X_API_URL}/2/oauth2/revoke",
            data={
                "token": credentials.refresh_token,
                "token_type_hint": "refresh_token",
                "client_id": settings.X_CLIENT_ID,
            },
            headers=basic_auth(settings.X_CLIENT_ID, settings.X_CLIENT_SECRET),
            idempotent=True,
        )

    def _call(self, method: str, path: str, credentials: Credentials, **kwargs: Any) -> Any:
        """One API call as the user; a 401 renews the token once and asks again (a 401 did
        nothing, so even a create may be sent again)."""
        url = f"{settings.X_API_URL}{path}"
        try:
            return self._client.json(method, url, headers=self._auth(credentials), **kwargs)
        except outbound.AuthenticationError:
            if not credentials.refresh_token:
                raise
            self.refresh(credentials, force=True)
            return self._client.json(method, url, headers=self._auth(credentials), **kwargs)

    @staticmethod
    def _auth(credentials: Credentials) -> dict[str, str]:
        return {"Authorization": f"Bearer {credentials.access_token}"}
