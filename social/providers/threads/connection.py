"""Threads' connection: Meta's Threads API (graph.threads.net) with its own app. OAuth 2.0 gives
a code, exchanged for a one-hour token, exchanged for a 60-day one, which renews itself
(`refresh_access_token`, allowed once it is a day old) for as long as it is used: the daily
upkeep and every attempt renew it with under RENEW_WITHIN left. Graph errors are
`{error: {message, type, code, error_subcode?, is_transient?, fbtrace_id}}`."""

from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.utils import timezone

from core import outbound
from social.providers.base import ConnectRequest, Credentials, Identity, OAuthApp, QuotaReached
from social.providers.client import ProviderClient, body_of, seconds_from_now
from social.providers.text import Composer

SCOPES = "threads_basic,threads_content_publish,threads_manage_replies,threads_manage_insights"
AUTHENTICATION_CODES = frozenset({102, 190})
# Try again later: unknown and temporary errors (1, 2), then the rate limits (4, 17, 32, 613),
# which refuse before doing anything.
TRANSIENT_CODES = frozenset({1, 2, 4, 17, 32, 613})
RATE_LIMIT_CODES = frozenset({4, 17, 32, 613})
PUBLISHING_QUOTA_SUBCODE = 2207042  # code 4: the 250 posts a day are used up (unverified)
NOT_READY_SUBCODE = 4279009  # code 24: the container is not ready to publish (unverified)
RENEW_WITHIN = timedelta(days=30)  # a 60-day token is renewed with less than this left


def _graph_error(response: outbound.Response) -> dict[str, Any]:
    error = body_of(response).get("error")
    return error if isinstance(error, dict) else {}


def _number(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """Graph answers most errors with HTTP 400 and names them by `error.code`: 190 and 102 are
    the token; 1, 2, the rate limits and `is_transient` are retried; the rest (10 and 200-299
    permissions, 100 parameters, 24 a container) are refusals. No Graph body: by status."""
    if 200 <= response.status_code < 300:
        return None
    error = _graph_error(response)
    code, subcode = _number(error.get("code")), _number(error.get("error_subcode"))
    message = str(error.get("error_user_msg") or error.get("message") or "")
    text = outbound.excerpt(response)
    if code in AUTHENTICATION_CODES:
        return outbound.AuthenticationError(
            f"Threads refused the access token: {message}".rstrip(": "),
            status=response.status_code,
            excerpt=text,
        )
    not_ready = code == 24 and subcode == NOT_READY_SUBCODE
    if error.get("is_transient") is True and code not in TRANSIENT_CODES:
        return outbound.TransientError(
            f"Threads reports a temporary error: {message}".rstrip(": "),
            status=response.status_code,
            retry_after=outbound.retry_after_seconds(response),
            maybe_delivered=True,
            excerpt=text,
        )
    if code in TRANSIENT_CODES or not_ready:
        return outbound.TransientError(
            f"Threads is busy or unavailable: {message}".rstrip(": "),
            status=response.status_code,
            retry_after=outbound.retry_after_seconds(response),
            # A rate limit, or a container not ready, refused before doing anything.
            maybe_delivered=code not in RATE_LIMIT_CODES and not not_ready,
            excerpt=text,
        )
    if code and response.status_code < 500:
        return outbound.PermanentError(
            f"Threads rejected the request: {message}".rstrip(": "),
            status=response.status_code,
            excerpt=text,
        )
    return None


def classify_exchange(response: outbound.Response) -> outbound.OutboundError | None:
    """During the code exchange any Graph error means the connection failed (a wrong secret
    answers code 1, which elsewhere is retried): never retried; 5xx stays an outage."""
    if 200 <= response.status_code < 300 or response.status_code >= 500:
        return None
    message = str(_graph_error(response).get("message") or f"HTTP {response.status_code}")
    return outbound.PermanentError(
        f"Threads refused the login: {message}",
        status=response.status_code,
        excerpt=outbound.excerpt(response),
    )


def graph_error_of(error: outbound.OutboundError) -> tuple[int, int]:
    """(code, subcode) of a failed call's Graph answer, (0, 0) without one."""
    response = outbound.Response(error.status or 0, error.excerpt.encode(), {})
    found = _graph_error(response)
    return _number(found.get("code")), _number(found.get("error_subcode"))


class ThreadsConnection(Composer):
    """The login, the token's renewal, the account's identity and its publishing quota; the
    Graph calls with the account's token (`Authorization: Bearer`, which Graph takes as it
    takes `access_token`: the token stays out of URLs and logs)."""

    _client = ProviderClient("threads", classify)
    _exchange = ProviderClient("threads-oauth", classify_exchange)

    @staticmethod
    def configured() -> bool:
        return bool(settings.THREADS_APP_ID and settings.THREADS_APP_SECRET)

    def _graph(self, path: str) -> str:
        return f"{settings.THREADS_GRAPH_URL}/{settings.THREADS_GRAPH_VERSION}/{path}"

    def _get(self, path: str, token: str, **params: Any) -> dict[str, Any]:
        answer: dict[str, Any] = self._client.json(
            "GET", self._graph(path), params=params, headers=_bearer(token)
        )
        return answer

    def _post(self, path: str, token: str, **data: Any) -> dict[str, Any]:
        answer: dict[str, Any] = self._client.json(
            "POST", self._graph(path), data=data, headers=_bearer(token)
        )
        return answer

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        query = urlencode(
            {
                "client_id": settings.THREADS_APP_ID,
                "redirect_uri": redirect_uri,
                "response_type": "code",
                "scope": SCOPES,
                "state": state,
            }
        )
        return f"{settings.THREADS_AUTH_URL}/oauth/authorize?{query}"

    def connect(self, request: ConnectRequest) -> Identity:
        """Code -> one-hour token -> 60-day token (only that one is kept) -> who it is."""
        short: dict[str, Any] = self._exchange.json(
            "POST",
            f"{settings.THREADS_GRAPH_URL}/oauth/access_token",
            data={
                "client_id": settings.THREADS_APP_ID,
                "client_secret": settings.THREADS_APP_SECRET,
                "grant_type": "authorization_code",
                "redirect_uri": request.redirect_uri,
                "code": request.code,
            },
        )
        long_lived: dict[str, Any] = self._exchange.json(
            "GET",
            f"{settings.THREADS_GRAPH_URL}/access_token",
            params={
                "grant_type": "th_exchange_token",
                "client_secret": settings.THREADS_APP_SECRET,
                "access_token": str(short["access_token"]),
            },
        )
        credentials = Credentials(
            provider_user_id=str(short.get("user_id") or ""),
            access_token=str(long_lived["access_token"]),
            expires_at=seconds_from_now(long_lived.get("expires_in")),
        )
        return self.identity(credentials)

    def identity(self, credentials: Credentials) -> Identity:
        me = self._get(
            "me", credentials.access_token, fields="id,username,name,threads_profile_picture_url"
        )
        return Identity(
            provider_user_id=str(me.get("id") or credentials.provider_user_id),
            username=str(me.get("username") or ""),
            display_name=str(me.get("name") or ""),
            avatar=str(me.get("threads_profile_picture_url") or ""),
            access_token=credentials.access_token,
            expires_at=credentials.expires_at,
        )

    def refresh(self, credentials: Credentials) -> None:
        """A 60-day token with under RENEW_WITHIN left (so at least a day old, as Threads
        requires) is exchanged for a new 60-day one; a token gone already answers 190."""
        expires_at = credentials.expires_at
        if expires_at is None or expires_at - timezone.now() >= RENEW_WITHIN:
            return
        token: dict[str, Any] = self._client.json(
            "GET",
            f"{settings.THREADS_GRAPH_URL}/refresh_access_token",
            params={"grant_type": "th_refresh_token", "access_token": credentials.access_token},
        )
        credentials.renew(
            access_token=str(token["access_token"]),
            expires_at=seconds_from_now(token.get("expires_in")),
        )

    def revoke(self, credentials: Credentials) -> None:
        """Meta offers apps no revocation: disconnecting deletes the token; the user removes
        the app in Threads' settings (Website permissions)."""

    def publishing_limit(self, credentials: Credentials) -> dict[str, Any]:
        """`threads_publishing_limit`: the posts and replies published through the API in the
        last 24 hours, and the quotas."""
        found = self._get(
            f"{credentials.provider_user_id}/threads_publishing_limit",
            credentials.access_token,
            fields="quota_usage,config,reply_quota_usage,reply_config",
        )
        data = found.get("data") or [{}]
        first = data[0] if isinstance(data, list) and data else {}
        return first if isinstance(first, dict) else {}

    def daily_cap(self, credentials: Credentials) -> tuple[int, int] | None:
        """(quota, used) of the account's posts, as Threads counts them."""
        limit = self.publishing_limit(credentials)
        total = _number((limit.get("config") or {}).get("quota_total"))
        return (total, _number(limit.get("quota_usage"))) if total else None

    def quota_check(self, credentials: Credentials, *, reply: bool) -> None:
        """Before a create: the account's posts (or replies) in the last 24 hours against its
        quota; used up, QuotaReached (the record waits, nothing is sent)."""
        limit = self.publishing_limit(credentials)
        used_key, config_key, what = (
            ("reply_quota_usage", "reply_config", "replies")
            if reply
            else ("quota_usage", "config", "posts")
        )
        total = _number((limit.get(config_key) or {}).get("quota_total"))
        used = _number(limit.get(used_key))
        if total and used >= total:
            raise QuotaReached(
                f"Threads' daily quota is used up: {used} of {total} {what} in the last 24 "
                "hours; this one waits for the window to free a place."
            )


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
