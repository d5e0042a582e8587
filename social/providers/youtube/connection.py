"""YouTube's connection (networks/youtube.md): Google OAuth 2.0 for a confidential client with
offline access (a refresh token on every consent, `prompt=consent`), one-hour access tokens
renewed with under RENEW_WITHIN left, the channel as the account, and the Data API's calls with
its error shape `{error: {code, message, errors: [{domain, reason, message}], status}}`, named
here by their `reason`."""

from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

from core import outbound
from social.providers.base import (
    ConnectionRefused,
    ConnectRequest,
    Credentials,
    Identity,
    OAuthApp,
)
from social.providers.client import ProviderClient, body_of, seconds_from_now
from social.providers.text import Composer

UPLOAD_SCOPE = "https://www.googleapis.com/auth/youtube.upload"
READ_SCOPE = "https://www.googleapis.com/auth/youtube.readonly"
SCOPES = f"{UPLOAD_SCOPE} {READ_SCOPE}"
RENEW_WITHIN = timedelta(minutes=5)  # an access token with less left is refreshed first
TESTING_REFRESH_LIFETIME = timedelta(days=7)  # an app in Google's "Testing" status
PACIFIC = ZoneInfo("America/Los_Angeles")  # the quota's day
# The reasons of the Data API's errors, by what they mean to us.
QUOTA_REASONS = frozenset({"quotaExceeded", "uploadLimitExceeded", "dailyLimitExceeded"})
RATE_REASONS = frozenset({"rateLimitExceeded", "userRateLimitExceeded"})
PERMISSION_REASONS = frozenset(
    {"youtubeSignupRequired", "forbidden", "insufficientPermissions", "channelClosed"}
)
AUTH_REASONS = frozenset({"authError", "invalidCredentials", "unauthorized"})


def next_midnight_pacific(now: datetime | None = None) -> datetime:
    """When YouTube's quota day ends: the next midnight, Pacific Time."""
    local = (now or timezone.now()).astimezone(PACIFIC)
    tomorrow = local.date() + timedelta(days=1)
    return datetime(tomorrow.year, tomorrow.month, tomorrow.day, tzinfo=PACIFIC)


def google_error(response: outbound.Response) -> tuple[str, str]:
    """(reason, message) of a Data API error answer; an OAuth error's `error` as its reason."""
    body = body_of(response)
    error = body.get("error")
    if isinstance(error, str):  # the token endpoint: {error, error_description}
        return error, str(body.get("error_description") or error)
    if not isinstance(error, dict):
        return "", ""
    errors = error.get("errors") or [{}]
    first = errors[0] if isinstance(errors, list) and isinstance(errors[0], dict) else {}
    return str(first.get("reason") or ""), str(error.get("message") or first.get("message") or "")


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """By the error's reason: the quota and the rate limits are retried later (nothing was
    done), refused credentials are authentication, a missing channel or permission and
    refused metadata are refusals; the rest by status (5xx retried). The reason is in the
    message, where the error table (social.networks.youtube) reads it."""
    status = response.status_code
    if 200 <= status < 300:
        return None
    reason, message = google_error(response)
    said = f"YouTube refused the request ({reason or f'HTTP {status}'}): {message}".rstrip(": ")
    text = outbound.excerpt(response)
    if reason in QUOTA_REASONS:
        wait = (next_midnight_pacific() - timezone.now()).total_seconds()
        return outbound.TransientError(said, status=status, retry_after=wait, excerpt=text)
    if reason in RATE_REASONS or status == 429:
        return outbound.TransientError(
            said,
            status=status,
            retry_after=outbound.retry_after_seconds(response),
            excerpt=text,
        )
    if reason == "invalid_grant" or (status == 401 and reason not in PERMISSION_REASONS):
        return outbound.AuthenticationError(said, status=status, excerpt=text)
    if reason in PERMISSION_REASONS or status == 403:
        return outbound.PermanentError(said, status=status, excerpt=text)
    if 400 <= status < 500 and status not in (404, 408, 410):
        return outbound.PermanentError(said, status=status, excerpt=text)
    return None  # by status: 5xx retried, 404 and 410 refused


class YouTubeConnection(Composer):
    """The consent, the tokens and the channel; the Data API's calls with the account's token
    (a refused token is refreshed once and the read repeated)."""

    _client = ProviderClient("youtube", classify)

    @staticmethod
    def configured() -> bool:
        return bool(settings.GOOGLE_CLIENT_ID and settings.GOOGLE_CLIENT_SECRET)

    def api(self, path: str) -> str:
        return f"{settings.YOUTUBE_API_URL}/youtube/v3/{path}"

    def get(self, credentials: Credentials, path: str, **params: Any) -> dict[str, Any]:
        """A read of the Data API; a token refused (401) is refreshed once and the read sent
        again."""
        try:
            return self._get(credentials, path, params)
        except outbound.AuthenticationError:
            if not self._renewed(credentials):
                raise
            return self._get(credentials, path, params)

    def _get(self, credentials: Credentials, path: str, params: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self._client.json(
            "GET", self.api(path), params=params, headers=bearer(credentials)
        )
        return answer

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        query = urlencode(
            {
                "client_id": settings.GOOGLE_CLIENT_ID,
                "redirect_uri": redirect_uri,
                "response_type": "code",
                "scope": SCOPES,
                "state": state,
                "access_type": "offline",
                "prompt": "consent",
                "include_granted_scopes": "true",
            }
        )
        return f"{settings.GOOGLE_AUTH_URL}?{query}"

    def _token(self, form: dict[str, str]) -> dict[str, Any]:
        token: dict[str, Any] = self._client.json(
            "POST",
            settings.GOOGLE_TOKEN_URL,
            data={
                **form,
                "client_id": settings.GOOGLE_CLIENT_ID,
                "client_secret": settings.GOOGLE_CLIENT_SECRET,
            },
        )
        return token

    def connect(self, request: ConnectRequest) -> Identity:
        """The code for tokens (the upload scope must be granted: Google lets the user untick
        it), then the channel."""
        token = self._token(
            {
                "grant_type": "authorization_code",
                "code": request.code,
                "redirect_uri": request.redirect_uri,
            }
        )
        granted = set(str(token.get("scope") or "").split())
        missing = [scope for scope in SCOPES.split() if scope not in granted]
        if UPLOAD_SCOPE in missing:
            raise ConnectionRefused(
                "scope_missing",
                "The consent did not grant uploading to YouTube: connect again and leave "
                "every permission ticked.",
                details={"missing": missing},
            )
        testing = settings.GOOGLE_OAUTH_TESTING and token.get("refresh_token")
        credentials = Credentials(
            provider_user_id="",
            access_token=str(token["access_token"]),
            refresh_token=str(token.get("refresh_token") or ""),
            expires_at=seconds_from_now(token.get("expires_in")),
            refresh_expires_at=timezone.now() + TESTING_REFRESH_LIFETIME if testing else None,
        )
        try:
            channel = self.channel(credentials)
        except outbound.PermanentError as error:
            if "youtubeSignupRequired" not in error.message:
                raise
            channel = None
        if channel is None:
            raise ConnectionRefused(
                "no_youtube_channel",
                "This Google account has no YouTube channel: create one, then connect again.",
            )
        return self._identity(channel, credentials)

    def channel(self, credentials: Credentials) -> dict[str, Any] | None:
        """The token's channel (`mine=true`), or None for a Google account without one."""
        found = self.get(credentials, "channels", part="snippet,contentDetails", mine="true")
        items = found.get("items") or []
        return items[0] if items and isinstance(items[0], dict) else None

    def identity(self, credentials: Credentials) -> Identity:
        channel = self.channel(credentials)
        if channel is None:
            raise outbound.PermanentError(
                "YouTube refused the request (youtubeSignupRequired): the Google account has "
                "no channel any more.",
                status=401,
            )
        return self._identity(channel, credentials)

    def _identity(self, channel: dict[str, Any], credentials: Credentials) -> Identity:
        snippet = channel.get("snippet") or {}
        thumbnail = ((snippet.get("thumbnails") or {}).get("default") or {}).get("url")
        return Identity(
            provider_user_id=str(channel["id"]),
            username=str(snippet.get("customUrl") or channel["id"]),
            display_name=str(snippet.get("title") or ""),
            avatar=str(thumbnail or ""),
            access_token=credentials.access_token,
            refresh_token=credentials.refresh_token,
            expires_at=credentials.expires_at,
            refresh_expires_at=credentials.refresh_expires_at,
        )

    def refresh(self, credentials: Credentials) -> None:
        """An access token with under RENEW_WITHIN left is renewed with the refresh token; a
        refresh answered `invalid_grant` (revoked, unused for 6 months, a Testing app's 7
        days) is an authentication failure: the user reconnects."""
        expires_at = credentials.expires_at
        if expires_at is not None and expires_at - timezone.now() >= RENEW_WITHIN:
            return
        self._renewed(credentials)

    def _renewed(self, credentials: Credentials) -> bool:
        if not credentials.refresh_token:
            return False
        token = self._token(
            {"grant_type": "refresh_token", "refresh_token": credentials.refresh_token}
        )
        credentials.renew(
            access_token=str(token["access_token"]),
            refresh_token=str(token.get("refresh_token") or credentials.refresh_token),
            expires_at=seconds_from_now(token.get("expires_in")),
            refresh_expires_at=credentials.refresh_expires_at,
        )
        return True

    def revoke(self, credentials: Credentials) -> None:
        """The refresh token revoked at the token endpoint's origin (`/revoke`)."""
        token = credentials.refresh_token or credentials.access_token
        if not token:
            return
        origin = urlsplit(settings.GOOGLE_TOKEN_URL)
        self._client.call(
            "POST", f"{origin.scheme}://{origin.netloc}/revoke", data={"token": token}
        )


def bearer(credentials: Credentials) -> dict[str, str]:
    return {"Authorization": f"Bearer {credentials.access_token}"}
