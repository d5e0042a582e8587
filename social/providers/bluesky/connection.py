"""Bluesky's connection: an app password opens a session, which is kept and refreshed.

createSession is limited (30 per 5 minutes, 300 a day per account), so the app password is
never stored: the session's tokens are, and the access token is refreshed with the refresh
token when it is about to expire. Calls go to the account's own server (its PDS, named in the
session's DID document) when it has one; a PDS address comes from the user's DID document,
which the user controls, so calls to it pass the outbound guard.
"""

import base64
import json
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from core import outbound
from social.providers.base import ConnectRequest, Credentials, Identity, OAuthApp
from social.providers.client import ProviderClient, body_of
from social.providers.text import Composer

# Expired or invalid sessions come back as HTTP 400 with these `error` values.
AUTH_ERRORS = frozenset({"ExpiredToken", "InvalidToken", "AuthenticationRequired"})
REFRESH_MARGIN = timedelta(minutes=5)
RENEW_WITHIN = timedelta(days=7)  # the daily upkeep renews sessions ending within a week


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """XRPC errors are named in the body's `error`; expired sessions are HTTP 400."""
    if 200 <= response.status_code < 300:
        return None
    error = str(body_of(response).get("error") or "")
    text = outbound.excerpt(response)
    if error in AUTH_ERRORS or response.status_code == 401:
        return outbound.AuthenticationError(
            f"Bluesky refused the session ({error or response.status_code}).",
            status=response.status_code,
            excerpt=text,
        )
    if response.status_code == 429:
        return outbound.TransientError(
            "Bluesky's rate limit was reached.",
            status=429,
            retry_after=outbound.retry_after_seconds(response) or _reset_in(response),
            excerpt=text,
        )
    return None


def jwt_expiry(token: str) -> datetime | None:
    """The `exp` claim of a session JWT (read, not verified: the server verifies)."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return datetime.fromtimestamp(int(claims["exp"]), tz=UTC)
    except (IndexError, KeyError, TypeError, ValueError):
        return None


def _pds(session: dict[str, Any]) -> str:
    """The PDS endpoint of a session's DID document, '' when it names none."""
    for service in (session.get("didDoc") or {}).get("service") or []:
        if str(service.get("id", "")).endswith("#atproto_pds"):
            return str(service.get("serviceEndpoint") or "").rstrip("/")
    return ""


class BlueskyConnection(Composer):
    """The adapter's XRPC calls and its sessions: opened with the app password, renewed,
    ended (social.providers.bluesky.BlueskyAdapter builds on it)."""

    _client = ProviderClient("bluesky", classify)

    @staticmethod
    def configured() -> bool:
        return True  # app passwords need no app of ours

    def _xrpc(self, method: str, credentials: Credentials | None = None) -> tuple[str, bool]:
        """The method's URL, and whether it must pass the guard (a user's own PDS)."""

        server = (credentials.endpoint if credentials else "") or settings.BLUESKY_SERVICE_URL
        return f"{server}/xrpc/{method}", server != settings.BLUESKY_SERVICE_URL

    def _call(
        self, http_method: str, method: str, credentials: Credentials | None, **kwargs: Any
    ) -> Any:
        url, guarded = self._xrpc(method, credentials)
        if credentials is not None and "headers" not in kwargs:
            kwargs["headers"] = {"Authorization": f"Bearer {credentials.access_token}"}
        return self._client.json(http_method, url, guarded=guarded, **kwargs)

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        raise NotImplementedError("Bluesky connects with an app password")

    def connect(self, request: ConnectRequest) -> Identity:
        session: dict[str, Any] = self._call(
            "POST",
            "com.atproto.server.createSession",
            None,
            json={"identifier": request.identifier, "password": request.code},
        )
        credentials = Credentials(
            provider_user_id=str(session["did"]),
            access_token=str(session["accessJwt"]),
            refresh_token=str(session["refreshJwt"]),
            username=str(session.get("handle") or ""),
            endpoint=_pds(session),
        )
        identity = self.identity(credentials)
        return Identity(
            provider_user_id=identity.provider_user_id,
            username=identity.username,
            display_name=identity.display_name,
            email=str(session.get("email") or ""),
            avatar=identity.avatar,
            access_token=credentials.access_token,
            refresh_token=credentials.refresh_token,
            expires_at=jwt_expiry(credentials.refresh_token),
            endpoint=credentials.endpoint,
        )

    def identity(self, credentials: Credentials) -> Identity:
        profile: dict[str, Any] = self._call(
            "GET",
            "app.bsky.actor.getProfile",
            credentials,
            params={"actor": credentials.provider_user_id},
        )
        return Identity(
            provider_user_id=credentials.provider_user_id,
            username=str(profile.get("handle") or credentials.username),
            display_name=str(profile.get("displayName") or ""),
            avatar=str(profile.get("avatar") or ""),
            access_token=credentials.access_token,
            refresh_token=credentials.refresh_token,
            expires_at=jwt_expiry(credentials.refresh_token),
            endpoint=credentials.endpoint,
        )

    def refresh(self, credentials: Credentials) -> None:
        """Refresh the session when its access token expires within 5 minutes, or the session
        itself (the refresh token, 90 days after the last refresh) within a week."""
        now = timezone.now()
        access_expiry = jwt_expiry(credentials.access_token)
        fresh = access_expiry is not None and access_expiry - now > REFRESH_MARGIN
        lasting = credentials.expires_at is None or credentials.expires_at - now > RENEW_WITHIN
        if fresh and lasting:
            return
        session: dict[str, Any] = self._call(
            "POST",
            "com.atproto.server.refreshSession",
            credentials,
            headers={"Authorization": f"Bearer {credentials.refresh_token}"},
        )
        credentials.renew(
            access_token=str(session["accessJwt"]),
            refresh_token=str(session["refreshJwt"]),
            expires_at=jwt_expiry(str(session["refreshJwt"])),
        )

    def revoke(self, credentials: Credentials) -> None:
        """Ends the session at the server (deleteSession takes the refresh token)."""
        if credentials.refresh_token:
            url, guarded = self._xrpc("com.atproto.server.deleteSession", credentials)
            self._client.call(
                "POST",
                url,
                guarded=guarded,
                headers={"Authorization": f"Bearer {credentials.refresh_token}"},
                idempotent=True,
            )


def _reset_in(response: outbound.Response) -> float | None:
    """`RateLimit-Reset` is a Unix time."""
    try:
        reset = float(response.headers.get("RateLimit-Reset", ""))
    except ValueError:
        return None
    return max(0.0, reset - timezone.now().timestamp())
