"""TikTok's connection (networks/tiktok.md): Login Kit's OAuth 2.0 for the web (the app is a
`client_key`; no PKCE on the web), access tokens renewed with the refresh token (its end, as
answered, is the connection's), the creator as the account (`user/info` and `creator_info`), and
the API's calls with its error shape `{data, error: {code, message, log_id}}`, named here by
`error.code` (the token endpoint's `{error, error_description, log_id}` by `error`)."""

from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from django.conf import settings

from core import outbound
from social.providers.base import (
    ConnectionRefused,
    ConnectRequest,
    Credentials,
    Identity,
    OAuthApp,
)
from social.providers.client import ProviderClient, body_of, json_of
from social.providers.oauth import bearer, code_grant, credentials_of, renew, renewal_due
from social.providers.text import Composer

PUBLISH_SCOPE = "video.publish"
SCOPES = "user.info.basic,video.publish,video.upload,video.list"  # comma separated, as TikTok
RENEW_WITHIN = timedelta(minutes=5)  # an access token with less left is refreshed first
DAY = timedelta(hours=24)
JSON = {"Content-Type": "application/json; charset=UTF-8"}
# `error.code`s by what they mean to us (networks/tiktok.md, "Errors").
AUTH_CODES = frozenset({"access_token_invalid"})
PERMISSION_CODES = frozenset(
    {
        "scope_not_authorized",
        "scope_permission_missed",
        "unaudited_client_can_only_post_to_private_accounts",
        "url_ownership_unverified",
        "privacy_level_option_mismatch",
        "spam_risk_user_banned_from_posting",
    }
)
CAP_CODES = frozenset({"spam_risk_too_many_posts", "reached_active_user_cap"})
RATE_CODES = frozenset({"rate_limit_exceeded"})
REFUSED_CODES = frozenset({"invalid_params", "invalid_file_upload"})


def tiktok_error(response: outbound.Response) -> tuple[str, str]:
    """(code, message) of an error answer: the API's `error.code`, or the token endpoint's
    `error`; ("", "") for a success (`error.code` "ok") or an unreadable body."""
    body = body_of(response)
    error = body.get("error")
    if isinstance(error, str):  # the token endpoint: {error, error_description, log_id}
        return error, str(body.get("error_description") or error)
    if not isinstance(error, dict) or str(error.get("code") or "ok") == "ok":
        return "", ""
    return str(error.get("code")), str(error.get("message") or "")


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """By `error.code` (whatever the status: TikTok may answer an error with 200): a refused
    token is authentication, the creator's daily cap waits a day, the rate limit backs off,
    scopes, audits and unverified domains are refusals, bad parameters too; the rest by status
    (5xx and `internal_error` retried). The code is in the message, where the error table
    (social.networks.tiktok) reads it."""
    status = response.status_code
    code, message = tiktok_error(response)
    if not code and 200 <= status < 300:
        return None
    said = f"TikTok refused the request ({code or f'HTTP {status}'}): {message}".rstrip(": ")
    text = outbound.excerpt(response)
    if code in CAP_CODES:
        return outbound.TransientError(
            said, status=status, retry_after=DAY.total_seconds(), excerpt=text
        )
    if code in RATE_CODES or status == 429:
        return outbound.TransientError(
            said, status=status, retry_after=outbound.retry_after_seconds(response), excerpt=text
        )
    if code in AUTH_CODES or code == "invalid_grant" or (status == 401 and not code):
        return outbound.AuthenticationError(said, status=status, excerpt=text)
    if code in PERMISSION_CODES or code in REFUSED_CODES or status in (401, 403):
        return outbound.PermanentError(said, status=status, excerpt=text)
    if code and 200 <= status < 300:  # an error answered with 200: refused, not retried
        return outbound.PermanentError(said, status=status, excerpt=text)
    if 400 <= status < 500 and status not in (404, 408, 410):
        return outbound.PermanentError(said, status=status, excerpt=text)
    return None  # by status: 5xx retried


class TikTokConnection(Composer):
    """The consent, the tokens and the creator; the API's calls with the account's token (a
    refused token is refreshed once and the call sent again, for calls that create nothing)."""

    _client = ProviderClient("tiktok", classify)

    def __init__(self, limits: dict[str, Any] | None = None) -> None:
        # The network's limits (its declaration gives them): an account's are these and the
        # creator's longest video.
        self.limits = dict(limits or {})

    @staticmethod
    def configured() -> bool:
        return bool(settings.TIKTOK_CLIENT_KEY and settings.TIKTOK_CLIENT_SECRET)

    def api(self, path: str) -> str:
        return f"{settings.TIKTOK_API_URL}/v2/{path}"

    def call(
        self,
        credentials: Credentials,
        method: str,
        path: str,
        *,
        renew: bool = True,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """`data` of an API call with the account's token; a refused token (401) renews it
        once and sends the call again when `renew` (a call that creates nothing)."""
        try:
            return self._call(credentials, method, path, kwargs)
        except outbound.AuthenticationError:
            if not renew or not self._renewed(credentials):
                raise
            return self._call(credentials, method, path, kwargs)

    def _call(
        self, credentials: Credentials, method: str, path: str, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        headers = {**bearer(credentials), **(JSON if method == "POST" else {})}
        answer = self._client.json(method, self.api(path), headers=headers, **kwargs)
        data = answer.get("data") if isinstance(answer, dict) else None
        return data if isinstance(data, dict) else {}

    def creator_info(self, credentials: Credentials) -> dict[str, Any]:
        """What the creator may post now: privacy levels offered, the settings they disabled,
        the longest video, their username (asked before every post, as TikTok requires)."""
        return self.call(
            credentials, "POST", "post/publish/creator_info/query/", json={}, idempotent=True
        )

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        query = urlencode(
            {
                "client_key": settings.TIKTOK_CLIENT_KEY,
                "response_type": "code",
                "scope": SCOPES,
                "redirect_uri": redirect_uri,
                "state": state,
            }
        )
        return f"{settings.TIKTOK_AUTH_URL}?{query}"

    def _token(self, form: dict[str, str]) -> dict[str, Any]:
        """The token endpoint; an `error` in its answer, whatever the status, is a refusal."""
        response = self._client.call(
            "POST",
            self.api("oauth/token/"),
            data={
                **form,
                "client_key": settings.TIKTOK_CLIENT_KEY,
                "client_secret": settings.TIKTOK_CLIENT_SECRET,
            },
        )
        token = json_of(response)
        if not isinstance(token, dict) or token.get("error") or not token.get("access_token"):
            raise classify(response) or outbound.TransientError(
                "TikTok answered in a shape its API does not document (no access token)."
            )
        return token

    def connect(self, request: ConnectRequest) -> Identity:
        """The code for tokens (`video.publish` must be granted), then the creator."""
        token = self._token(code_grant(request))
        granted = {scope.strip() for scope in str(token.get("scope") or "").split(",")}
        missing = [scope for scope in SCOPES.split(",") if scope not in granted]
        if PUBLISH_SCOPE in missing:
            raise ConnectionRefused(
                "scope_missing",
                "The consent did not grant posting to TikTok (video.publish): connect again "
                "and leave every permission ticked.",
                details={"missing": missing},
            )
        credentials = credentials_of(
            token,
            refresh_lifetime="refresh_expires_in",
            provider_user_id=str(token.get("open_id") or ""),
        )
        return self.identity(credentials)

    def identity(self, credentials: Credentials) -> Identity:
        """`user/info` (the open id, name, avatar), then `creator_info` (the username used
        in post URLs, the longest video the creator may post: the account's `maxVideoSeconds`)."""
        fields = "open_id,union_id,avatar_url,display_name"
        user = self.call(credentials, "GET", "user/info/", params={"fields": fields}).get("user")
        user = user if isinstance(user, dict) else {}
        creator = self.creator_info(credentials)
        limits = dict(self.limits)
        seconds = creator.get("max_video_post_duration_sec")
        if isinstance(seconds, int) and not isinstance(seconds, bool):
            limits["maxVideoSeconds"] = seconds
        open_id = str(user.get("open_id") or credentials.provider_user_id)
        return Identity(
            provider_user_id=open_id,
            username=str(creator.get("creator_username") or open_id),
            display_name=str(user.get("display_name") or creator.get("creator_nickname") or ""),
            avatar=str(user.get("avatar_url") or creator.get("creator_avatar_url") or ""),
            access_token=credentials.access_token,
            refresh_token=credentials.refresh_token,
            expires_at=credentials.expires_at,
            refresh_expires_at=credentials.refresh_expires_at,
            limits=limits,
        )

    def refresh(self, credentials: Credentials) -> None:
        """An access token with under RENEW_WITHIN left is renewed with the refresh token; a
        refused refresh is an authentication failure: the user reconnects."""
        if renewal_due(credentials, RENEW_WITHIN):
            self._renewed(credentials)

    def _renewed(self, credentials: Credentials) -> bool:
        """The tokens renewed (the refresh token answered may be a new one, and its end)."""
        if not credentials.refresh_token:
            return False
        renew(credentials, self._token, refresh_lifetime="refresh_expires_in")
        return True

    def revoke(self, credentials: Credentials) -> None:
        """The access token revoked (best effort)."""
        if not credentials.access_token:
            return
        self._client.call(
            "POST",
            self.api("oauth/revoke/"),
            data={
                "client_key": settings.TIKTOK_CLIENT_KEY,
                "client_secret": settings.TIKTOK_CLIENT_SECRET,
                "token": credentials.access_token,
            },
            idempotent=True,
        )
