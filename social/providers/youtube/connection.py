"""YouTube's connection (networks/youtube.md): Google OAuth 2.0 (social.providers.google, shared
with Google Business Profile), the channel as the account, and the Data API's calls with its
error shape `{error: {code, message, errors: [{domain, reason, message}], status}}`, named here
by their `reason`."""

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

from core import outbound
from social.providers.base import ConnectionRefused, ConnectRequest, Credentials, Identity
from social.providers.client import ProviderClient
from social.providers.google import GoogleOAuth, google_refusal
from social.providers.oauth import bearer
from social.providers.text import Composer

UPLOAD_SCOPE = "https://www.googleapis.com/auth/youtube.upload"
READ_SCOPE = "https://www.googleapis.com/auth/youtube.readonly"
SCOPES = f"{UPLOAD_SCOPE} {READ_SCOPE}"
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


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """By the error's reason: the quota and the rate limits are retried later (nothing was
    done), refused credentials are authentication, a missing channel or permission and
    refused metadata are refusals; the rest by status (5xx retried). The reason is in the
    message, where the error table (social.networks.youtube) reads it."""
    status = response.status_code
    if 200 <= status < 300:
        return None
    reason, said, text = google_refusal("YouTube", response)
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


class YouTubeConnection(GoogleOAuth, Composer):
    """The consent (Google's, social.providers.google), the channel; the Data API's calls with
    the account's token (a refused token is refreshed once and the read repeated)."""

    scopes = SCOPES
    _client = ProviderClient("youtube", classify)

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

    def connect(self, request: ConnectRequest) -> Identity:
        """The code for tokens (the upload scope must be granted: Google lets the user untick
        it), then the channel."""
        credentials = self.exchange(
            request,
            required=UPLOAD_SCOPE,
            refusal="The consent did not grant uploading to YouTube: connect again and leave "
            "every permission ticked.",
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


__all__ = ["YouTubeConnection", "classify"]
