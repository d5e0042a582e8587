"""Reddit's connection (networks/reddit.md): OAuth 2.0 with a permanent grant
(`duration=permanent`: the refresh token lasts until the user revokes the app), the app's id and
secret as HTTP Basic at the token endpoint, hourly access tokens renewed before use, the user
(`/api/v1/me`) and the default subreddit chosen when connecting. Every call, token calls
included, sends REDDIT_USER_AGENT: Reddit throttles or refuses a generic User-Agent.

Reddit answers some refusals with HTTP 200: the token endpoint's `{error: "invalid_grant"}`,
and `/api/submit`'s `{json: {errors: [[code, message, field]]}}`; `classify` reads both. Its
rate limit (`X-Ratelimit-Remaining`, `X-Ratelimit-Reset`) is kept per app: once a window is
used up, nothing is sent until it resets (a publication waits for it, deferred, never a worker
asleep)."""

import html
import json
import re
import time
from dataclasses import replace
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from core import outbound
from social.providers.base import (
    ConnectionRefused,
    ConnectRequest,
    Credentials,
    Identity,
    OAuthApp,
    QuotaReached,
)
from social.providers.client import ProviderClient, json_of
from social.providers.oauth import basic_auth, code_grant, credentials_of, renew, renewal_due
from social.providers.text import Composer

SCOPES = "identity submit read flair history"
RENEW_WITHIN = timedelta(minutes=5)  # an access token with less left is renewed first
PROFILE_PREFIX = "u_"  # a user's profile, as a subreddit name
WAIT = re.compile(r"(\d+)\s*(minute|second|hour)", re.IGNORECASE)
UNIT_SECONDS = {"second": 1, "minute": 60, "hour": 3600}
RATE_WINDOW_SECONDS = 600  # the window Reddit averages its 100 calls a minute over


def rate_wait(message: str) -> float | None:
    """The wait a RATELIMIT message names ("take a break for 9 minutes", "... 30 seconds")."""
    found = WAIT.search(message)
    if not found:
        return None
    return float(int(found.group(1)) * UNIT_SECONDS[found.group(2).lower()])


def reddit_error(body: Any) -> tuple[str, str, str] | None:
    """(code, message, field) of the first of an answer's `json.errors`, or of an OAuth
    `{error}`; None for an answer without one."""
    if not isinstance(body, dict):
        return None
    errors = (body.get("json") or {}).get("errors") if isinstance(body.get("json"), dict) else None
    if isinstance(errors, list) and errors:
        first = errors[0] if isinstance(errors[0], list) else [errors[0]]
        said = [str(item or "") for item in first] + ["", "", ""]
        return said[0], said[1], said[2]
    error = body.get("error")
    if isinstance(error, str) and error:
        return error, str(body.get("error_description") or body.get("message") or error), ""
    return None


def _reset_seconds(response: outbound.Response) -> float | None:
    """`X-Ratelimit-Reset`: seconds until the window resets; else `Retry-After`."""
    try:
        return max(0.0, float(response.headers.get("X-Ratelimit-Reset") or ""))
    except ValueError:
        return outbound.retry_after_seconds(response)


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """An answer's refusal, its code in the message and in the excerpt (where the error table,
    social.networks.reddit, reads it): a 200 carrying `json.errors` or an OAuth `error`
    (RATELIMIT waits the time it names), 401 the token, 403 a refusal (banned, private), 429
    the rate limit (until its reset), other 4xx refused; 5xx by status (retried)."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        body = None
    found = reddit_error(body)
    if 200 <= status < 300 and found is None:
        return None
    code, message, field = found or ("", "", "")
    said = f"Reddit refused the request ({code or f'HTTP {status}'}): {message}".rstrip(": ")
    text = json.dumps({"code": code, "message": message, "field": field}) if code else ""
    text = text or outbound.excerpt(response)
    if code == "RATELIMIT":
        wait = rate_wait(message)
        return outbound.TransientError(said, status=status, retry_after=wait, excerpt=text)
    if status == 429:
        return outbound.TransientError(
            said, status=429, retry_after=_reset_seconds(response), excerpt=text
        )
    if status == 401 and code != "invalid_client":
        return outbound.AuthenticationError(said, status=401, excerpt=text)
    if 200 <= status < 500:
        return outbound.PermanentError(said, status=status, excerpt=text)
    return None


def _rate_key() -> str:
    return f"reddit:ratelimit:{settings.REDDIT_API_URL}:{settings.REDDIT_CLIENT_ID}"


def _basic() -> dict[str, str]:
    return basic_auth(settings.REDDIT_CLIENT_ID, settings.REDDIT_CLIENT_SECRET)


def agent() -> dict[str, str]:
    """The User-Agent Reddit requires on every call."""
    return {"User-Agent": settings.REDDIT_USER_AGENT}


class RedditConnection(Composer):
    """The consent, the tokens and the user; the OAuth API's calls with the account's token (a
    refused token is refreshed once and the call repeated: a 401 did nothing)."""

    _client = ProviderClient("reddit", classify)

    @staticmethod
    def configured() -> bool:
        return bool(settings.REDDIT_CLIENT_ID and settings.REDDIT_CLIENT_SECRET)

    @staticmethod
    def api(path: str) -> str:
        return f"{settings.REDDIT_API_URL}/{path}"

    # --- The calls and the rate limit ----------------------------------------------------------

    def waiting(self, *, publishing: bool = False) -> None:
        """Nothing is sent while the app's window is used up: a publication waits for its
        reset (QuotaReached: deferred, no attempt counted); any other call fails as limited."""
        until = cache.get(_rate_key())
        if not until or until <= time.time():
            return
        wait = until - time.time()
        message = (
            f"Reddit's rate limit for this app is used up: its window resets in {int(wait) + 1} s."
        )
        if publishing:
            raise QuotaReached(message, until=timezone.now() + timedelta(seconds=wait))
        raise outbound.TransientError(message, status=429, retry_after=wait)

    def _seen(self, response: outbound.Response) -> None:
        """An answer's `X-Ratelimit-Remaining` at 0: the window is kept as used up until
        `X-Ratelimit-Reset` (for every account of this app)."""
        remaining = str(response.headers.get("X-Ratelimit-Remaining") or "")
        try:
            used_up = remaining != "" and float(remaining) < 1
        except ValueError:
            return
        reset = _reset_seconds(response)
        if used_up and reset:
            reset = min(reset, RATE_WINDOW_SECONDS)
            cache.set(_rate_key(), time.time() + reset, timeout=int(reset) + 1)

    def _send(self, method: str, url: str, credentials: Credentials | None, **kwargs: Any) -> Any:
        headers = {**agent(), **kwargs.pop("headers", {})}
        if credentials is not None:
            headers["Authorization"] = f"bearer {credentials.access_token}"
        response = self._client.call(method, url, headers=headers, **kwargs)
        self._seen(response)
        return json_of(response)

    def call(
        self,
        method: str,
        path: str,
        credentials: Credentials,
        *,
        publishing: bool = False,
        **kwargs: Any,
    ) -> Any:
        self.waiting(publishing=publishing)
        try:
            return self._send(method, self.api(path), credentials, **kwargs)
        except outbound.AuthenticationError:
            if not credentials.refresh_token:
                raise
            self._renew(credentials)
            return self._send(method, self.api(path), credentials, **kwargs)

    # --- OAuth -------------------------------------------------------------------------------

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        query = urlencode(
            {
                "client_id": settings.REDDIT_CLIENT_ID,
                "response_type": "code",
                "state": state,
                "redirect_uri": redirect_uri,
                "duration": "permanent",
                "scope": SCOPES,
            }
        )
        return f"{settings.REDDIT_AUTH_URL}/authorize?{query}"

    def _token(self, form: dict[str, str]) -> dict[str, Any]:
        """`POST {auth}/access_token`, the app as HTTP Basic; `{error}` (even with HTTP 200)
        is a refusal (classify)."""
        token: dict[str, Any] = self._send(
            "POST",
            f"{settings.REDDIT_AUTH_URL}/access_token",
            None,
            data=form,
            headers=_basic(),
        )
        if not token.get("access_token"):
            raise outbound.PermanentError(
                "Reddit's token endpoint answered in a shape its API does not document."
            )
        return token

    def connect(self, request: ConnectRequest) -> Identity:
        """The code for tokens, the user, then the default target: `subreddit` when sent (it
        must exist), else the user's profile."""
        credentials = credentials_of(self._token(code_grant(request)))
        identity = self.identity(credentials)
        subreddit = request.subreddit.removeprefix("r/")
        if subreddit:
            self.subreddit_check(credentials, subreddit)
        else:
            subreddit = f"{PROFILE_PREFIX}{identity.username}"
        return replace(identity, options={"subreddit": subreddit})

    def subreddit_check(self, credentials: Credentials, subreddit: str) -> None:
        """`GET /r/{sr}/about`: a subreddit (`kind: t5`), else ConnectionRefused."""
        try:
            about = self.call("GET", f"r/{subreddit}/about", credentials)
        except outbound.PermanentError as error:
            if error.status not in (302, 403, 404):
                raise
            about = {}
        if not isinstance(about, dict) or about.get("kind") != "t5":
            raise ConnectionRefused(
                "reddit_subreddit_not_found",
                f"Reddit has no subreddit r/{subreddit} this account can see.",
                details={"subreddit": subreddit},
            )

    def identity(self, credentials: Credentials) -> Identity:
        """`GET /api/v1/me`: the id (base36), the name, the avatar (`icon_img`, whose `&amp;`
        Reddit writes HTML-escaped)."""
        found = self.call("GET", "api/v1/me", credentials)
        name = str(found.get("name") or "")
        return Identity(
            provider_user_id=str(found.get("id") or name).removeprefix("t2_"),
            username=name,
            display_name=f"u/{name}",
            avatar=html.unescape(str(found.get("icon_img") or "")),
            access_token=credentials.access_token,
            refresh_token=credentials.refresh_token,
            expires_at=credentials.expires_at,
            options=dict(credentials.options),
        )

    def refresh(self, credentials: Credentials) -> None:
        """An access token with under RENEW_WITHIN left (or past its hour) is renewed."""
        if renewal_due(credentials, RENEW_WITHIN) and credentials.refresh_token:
            self._renew(credentials)

    def _renew(self, credentials: Credentials) -> None:
        """`grant_type=refresh_token`: a new hourly access token (the refresh token stays);
        `invalid_grant` (the user revoked the app) is an authentication failure."""
        renew(credentials, self._token, refused="Reddit", passed_on=(outbound.AuthenticationError,))

    def revoke(self, credentials: Credentials) -> None:
        """`POST {auth}/revoke_token` with the refresh token (best effort)."""
        token = credentials.refresh_token or credentials.access_token
        if not token:
            return
        hint = "refresh_token" if credentials.refresh_token else "access_token"
        self._client.call(
            "POST",
            f"{settings.REDDIT_AUTH_URL}/revoke_token",
            data={"token": token, "token_type_hint": hint},
            headers={**agent(), **_basic()},
        )
