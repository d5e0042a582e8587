"""Mastodon's connection: every instance is its own server. An app is registered once per
(instance, redirect URI) and reused; the user authorizes it with OAuth; tokens do not expire.
The instance URL is user input, so every call goes through the outbound guard (https, public
addresses, the connection pinned to the checked address)."""

import time
from datetime import datetime
from typing import Any
from urllib.parse import urlencode, urlsplit

from django.conf import settings

from core import outbound
from social.providers.base import ConnectRequest, Credentials, Identity, OAuthApp
from social.providers.client import ProviderClient
from social.providers.text import Composer

SCOPES = "write:statuses write:media profile"
DEFAULT_LIMITS = {"maxCharacters": 500, "maxMedia": 4, "charactersPerUrl": 23}


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """401 is authentication, 422 a rejected status (permanent, the default); a 429 says when
    the window resets in `X-RateLimit-Reset` (an ISO time) rather than `Retry-After`."""
    if response.status_code == 429 and "Retry-After" not in response.headers:
        return outbound.TransientError(
            "Mastodon's rate limit was reached.",
            status=429,
            retry_after=_seconds_until(response.headers.get("X-RateLimit-Reset", "")),
            excerpt=outbound.excerpt(response),
        )
    return None


def normalize_instance(url: str) -> str:
    """`https://Mastodon.Social/` and `https://mastodon.social` name one server."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    netloc = (
        host
        if parts.port in (None, 443 if parts.scheme == "https" else 80)
        else (f"{host}:{parts.port}")
    )
    return f"{parts.scheme.lower()}://{netloc}"


class MastodonConnection(Composer):
    """The adapter's calls to an instance, its app there and the user's login
    (social.providers.mastodon.MastodonAdapter builds on it)."""

    _client = ProviderClient("mastodon", classify)

    @staticmethod
    def configured() -> bool:
        return True  # each instance registers our app on demand

    def _call(self, method: str, instance: str, path: str, **kwargs: Any) -> Any:
        return self._client.json(method, f"{instance}{path}", guarded=True, **kwargs)

    def _auth(self, credentials: Credentials) -> dict[str, str]:
        return {"Authorization": f"Bearer {credentials.access_token}"}

    def register_app(self, *, instance: str, redirect_uri: str) -> OAuthApp:
        registered: dict[str, Any] = self._call(
            "POST",
            instance,
            "/api/v1/apps",
            json={
                "client_name": settings.MASTODON_CLIENT_NAME,
                "redirect_uris": redirect_uri,
                "scopes": SCOPES,
                "website": settings.PUBLIC_URL,
            },
        )
        return OAuthApp(
            client_id=str(registered["client_id"]), client_secret=str(registered["client_secret"])
        )

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        if app is None:
            raise ValueError("Mastodon authorizes the app registered on the instance")
        query = urlencode(
            {
                "client_id": app.client_id,
                "redirect_uri": redirect_uri,
                "response_type": "code",
                "scope": SCOPES,
                "state": state,
            }
        )
        return f"{instance}/oauth/authorize?{query}"

    def connect(self, request: ConnectRequest) -> Identity:
        if request.app is None:
            raise ValueError("the service finds the instance's app first")
        token: dict[str, Any] = self._call(
            "POST",
            request.instance,
            "/oauth/token",
            data={
                "grant_type": "authorization_code",
                "code": request.code,
                "client_id": request.app.client_id,
                "client_secret": request.app.client_secret,
                "redirect_uri": request.redirect_uri,
                "scope": SCOPES,
            },
        )
        return self.identity(
            Credentials(
                provider_user_id="",
                access_token=str(token["access_token"]),
                instance=request.instance,
            )
        )

    def identity(self, credentials: Credentials) -> Identity:
        me: dict[str, Any] = self._call(
            "GET",
            credentials.instance,
            "/api/v1/accounts/verify_credentials",
            headers=self._auth(credentials),
        )
        return Identity(
            provider_user_id=str(me["id"]),
            username=str(me.get("acct") or me.get("username") or ""),
            display_name=str(me.get("display_name") or ""),
            avatar=str(me.get("avatar") or ""),
            access_token=credentials.access_token,
            limits=self.limits(credentials.instance),
        )

    def limits(self, instance: str) -> dict[str, int]:
        """The instance's live limits (`GET /api/v2/instance`), defaults where it is silent."""

        try:
            about: dict[str, Any] = self._call("GET", instance, "/api/v2/instance")
        except outbound.OutboundError:
            return dict(DEFAULT_LIMITS)
        configuration = about.get("configuration") or {}
        statuses = configuration.get("statuses") or {}
        return {
            "maxCharacters": int_or(statuses.get("max_characters"), 500),
            "maxMedia": int_or(statuses.get("max_media_attachments"), 4),
            "charactersPerUrl": int_or(statuses.get("characters_reserved_per_url"), 23),
        }

    def refresh(self, credentials: Credentials) -> None:
        """Mastodon tokens do not expire."""

    def revoke(self, credentials: Credentials) -> None:
        if credentials.app is None:
            return
        self._client.call(
            "POST",
            f"{credentials.instance}/oauth/revoke",
            guarded=True,
            data={
                "client_id": credentials.app.client_id,
                "client_secret": credentials.app.client_secret,
                "token": credentials.access_token,
            },
            idempotent=True,
        )


def int_or(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _seconds_until(iso: str) -> float | None:
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0.0, moment.timestamp() - time.time())
