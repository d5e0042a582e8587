"""LinkedIn's connection: OAuth 2.0, OpenID Connect for identity, the versioned REST API's
headers. Access tokens last 60 days; refresh tokens are issued to approved partners only, so
the account is warned before expiry (the daily task) and refreshed when a refresh token
exists."""

from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.utils import timezone

from core import outbound
from social.providers.base import ConnectRequest, Credentials, Identity, OAuthApp
from social.providers.client import ProviderClient, body_of
from social.providers.oauth import code_grant, credentials_of, renew
from social.providers.text import Composer

SCOPES = "openid profile email w_member_social"
EXPIRED_TOKEN = 65602
RENEW_WITHIN = timedelta(days=7)  # a refresh token (partners only) renews within a week


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """401 (code 65602: expired) is authentication; 429 and 5xx are transient (the default);
    400, 403 and 422 (DUPLICATE_POST among them) are permanent."""
    body = body_of(response)
    if response.status_code == 403:
        return outbound.PermanentError(
            str(body.get("message") or "LinkedIn refused the request (HTTP 403)."),
            status=403,
            excerpt=outbound.excerpt(response),
        )
    if response.status_code == 401 or body.get("serviceErrorCode") == EXPIRED_TOKEN:
        return outbound.AuthenticationError(
            "LinkedIn refused the access token: reconnect the account.",
            status=response.status_code,
            excerpt=outbound.excerpt(response),
        )
    if response.status_code == 422 and "DUPLICATE" in str(body.get("code") or "").upper():
        # The same text again (a recurring post's next occurrence): LinkedIn's reason.
        return outbound.PermanentError(
            f"LinkedIn refuses the same text twice (DUPLICATE_POST): {body.get('message') or ''}",
            status=422,
            excerpt=outbound.excerpt(response),
        )
    return None


class LinkedInConnection(Composer):
    """The adapter's member login and its REST calls (social.providers.linkedin.LinkedInAdapter
    builds on it)."""

    _client = ProviderClient("linkedin", classify)
    scopes = SCOPES  # what the consent page asks for (a page's adapter asks for its own)

    @staticmethod
    def configured() -> bool:
        return bool(settings.LINKEDIN_CLIENT_ID and settings.LINKEDIN_CLIENT_SECRET)

    def _rest_headers(self, credentials: Credentials) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {credentials.access_token}",
            "LinkedIn-Version": settings.LINKEDIN_API_VERSION,
            "X-Restli-Protocol-Version": "2.0.0",
        }

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        query = urlencode(
            {
                "response_type": "code",
                "client_id": settings.LINKEDIN_CLIENT_ID,
                "redirect_uri": redirect_uri,
                "scope": self.scopes,
                "state": state,
            }
        )
        return f"{settings.LINKEDIN_AUTH_URL}/authorization?{query}"

    def _token(self, form: dict[str, str]) -> dict[str, Any]:
        token: dict[str, Any] = self._client.json(
            "POST",
            f"{settings.LINKEDIN_AUTH_URL}/accessToken",
            data={
                **form,
                "client_id": settings.LINKEDIN_CLIENT_ID,
                "client_secret": settings.LINKEDIN_CLIENT_SECRET,
            },
        )
        return token

    def connect(self, request: ConnectRequest) -> Identity:
        token = self._token(code_grant(request))
        credentials = credentials_of(token, refresh_lifetime="refresh_token_expires_in")
        return self.identity(credentials)

    def identity(self, credentials: Credentials) -> Identity:
        me: dict[str, Any] = self._client.json(
            "GET",
            f"{settings.LINKEDIN_API_URL}/v2/userinfo",
            headers={"Authorization": f"Bearer {credentials.access_token}"},
        )
        return Identity(
            provider_user_id=str(me["sub"]),
            username=str(me.get("email") or me.get("name") or me["sub"]),
            display_name=str(me.get("name") or ""),
            email=str(me.get("email") or ""),
            avatar=str(me.get("picture") or ""),
            access_token=credentials.access_token,
            refresh_token=credentials.refresh_token,
            expires_at=credentials.expires_at,
            refresh_expires_at=credentials.refresh_expires_at,
        )

    def refresh(self, credentials: Credentials) -> None:
        """Only partners get refresh tokens; without one the token runs until it expires."""

        if not credentials.refresh_token or not _expires_soon(credentials.expires_at):
            return
        renew(credentials, self._token, refresh_lifetime="refresh_token_expires_in")

    def _author(self, credentials: Credentials) -> str:
        return f"urn:li:person:{credentials.provider_user_id}"

    def revoke(self, credentials: Credentials) -> None:
        """LinkedIn offers members no token revocation to apps: the token lapses."""


def _expires_soon(expires_at: datetime | None) -> bool:
    return expires_at is not None and expires_at - timezone.now() < RENEW_WITHIN
