"""Pinterest's connection (networks/pinterest.md): OAuth 2.0 authorization code with the app's
id and secret as HTTP Basic at `/v5/oauth/token`, access tokens of 30 days renewed by
continuous refresh (each refresh answers a new 60-day refresh token too, so the connection
renews itself while the daily upkeep runs), the user account, its boards (every Pin is saved
to one: the account's default is chosen when connecting), and API v5's error bodies
`{code, message}`."""

import time
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
from social.providers.client import ProviderClient, body_of
from social.providers.oauth import (
    basic_auth,
    bearer,
    code_grant,
    credentials_of,
    renew,
    renewal_due,
)
from social.providers.text import Composer

SCOPES = "boards:read,pins:read,pins:write,user_accounts:read"
WRITE_SCOPE = "pins:write"
RENEW_WITHIN = timedelta(days=7)  # an access token with less left is refreshed (the daily task)
BOARDS_PAGE = 100  # `page_size`'s largest
BOARD_PAGES = 10  # an account's boards read at most (1,000 boards)
RATE_LIMIT_CODE = 8


def pinterest_error(response: outbound.Response) -> tuple[str, str]:
    """(code, message) of an API v5 error answer, ("", "") without one."""
    body = body_of(response)
    code = body.get("code")
    return ("" if code is None else str(code)), str(body.get("message") or "")


def _reset_seconds(response: outbound.Response) -> float | None:
    """When the rate limit's window resets: `X-RateLimit-Reset` (seconds to wait, or a Unix
    time: both are seen), else `Retry-After`."""
    reset = str(response.headers.get("X-RateLimit-Reset") or "")
    try:
        value = float(reset)
    except ValueError:
        return outbound.retry_after_seconds(response)
    return max(0.0, value - time.time()) if value > 10**9 else max(0.0, value)


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """401: the token; 429 (code 8): the rate limit, tried again at its reset; 403 and 404
    (a board that is not the account's): refusals; other 4xx refused; 5xx by status (retried).
    The code is in the message, where the error table (social.networks.pinterest) reads it."""
    status = response.status_code
    if 200 <= status < 300:
        return None
    code, message = pinterest_error(response)
    said = f"Pinterest refused the request ({code or f'HTTP {status}'}): {message}".rstrip(": ")
    text = outbound.excerpt(response)
    if status == 429:
        return outbound.TransientError(
            said, status=429, retry_after=_reset_seconds(response), excerpt=text
        )
    if status == 401:
        return outbound.AuthenticationError(said, status=401, excerpt=text)
    if 400 <= status < 500:
        return outbound.PermanentError(said, status=status, excerpt=text)
    return None


class PinterestConnection(Composer):
    """The consent, the tokens, the account and its boards; API v5's calls with the account's
    token (a refused token is refreshed once and the call repeated: a 401 did nothing)."""

    link_field = True  # the Pin's destination `link`, not in its description
    _client = ProviderClient("pinterest", classify)

    @staticmethod
    def configured() -> bool:
        return bool(settings.PINTEREST_CLIENT_ID and settings.PINTEREST_CLIENT_SECRET)

    @staticmethod
    def api(path: str) -> str:
        return f"{settings.PINTEREST_API_URL}/v5/{path}"

    def call(self, method: str, path: str, credentials: Credentials, **kwargs: Any) -> Any:
        try:
            return self._client.json(method, self.api(path), headers=bearer(credentials), **kwargs)
        except outbound.AuthenticationError:
            if not credentials.refresh_token:
                raise
            self._renew(credentials)
            return self._client.json(method, self.api(path), headers=bearer(credentials), **kwargs)

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        query = urlencode(
            {
                "client_id": settings.PINTEREST_CLIENT_ID,
                "redirect_uri": redirect_uri,
                "response_type": "code",
                "scope": SCOPES,
                "state": state,
            }
        )
        return f"{settings.PINTEREST_AUTH_URL}?{query}"

    def _token(self, form: dict[str, str]) -> dict[str, Any]:
        """`POST /v5/oauth/token`, the app's id and secret as HTTP Basic (the only client
        authentication Pinterest takes)."""
        token: dict[str, Any] = self._client.json(
            "POST",
            self.api("oauth/token"),
            data=form,
            headers=basic_auth(settings.PINTEREST_CLIENT_ID, settings.PINTEREST_CLIENT_SECRET),
        )
        return token

    def connect(self, request: ConnectRequest) -> Identity:
        """The code for tokens (`pins:write` must be granted), the account, then its default
        board: `boardId` when sent (one of its boards), else the first listed."""
        token = self._token(code_grant(request))
        granted = set(str(token.get("scope") or "").replace(" ", ",").split(","))
        missing = [scope for scope in SCOPES.split(",") if scope not in granted]
        if WRITE_SCOPE in missing:
            raise ConnectionRefused(
                "scope_missing",
                "The consent did not grant creating Pins (pins:write): connect again and "
                "allow every permission.",
                details={"missing": missing},
            )
        credentials = credentials_of(token, refresh_lifetime="refresh_token_expires_in")
        boards = self.boards(credentials)
        if not boards:
            raise ConnectionRefused(
                "no_pinterest_board",
                "This Pinterest account has no board to pin to: create one, then connect again.",
            )
        board = boards[0]
        if request.board_id:
            board = next((b for b in boards if str(b.get("id")) == request.board_id), {})
            if not board:
                raise ConnectionRefused(
                    "board_not_found",
                    "The board named is not one of this Pinterest account's boards.",
                    details={"boardId": request.board_id},
                )
        credentials.options = {"boardId": str(board["id"]), "boardName": str(board.get("name"))}
        return self.identity(credentials)

    def boards(self, credentials: Credentials) -> list[dict[str, Any]]:
        """The account's boards (`GET /v5/boards`, page after page by `bookmark`)."""
        found: list[dict[str, Any]] = []
        bookmark = ""
        for _ in range(BOARD_PAGES):
            params: dict[str, Any] = {"page_size": BOARDS_PAGE}
            if bookmark:
                params["bookmark"] = bookmark
            page = self.call("GET", "boards", credentials, params=params)
            found += [item for item in page.get("items") or [] if isinstance(item, dict)]
            bookmark = str(page.get("bookmark") or "")
            if not bookmark:
                break
        return found

    def identity(self, credentials: Credentials) -> Identity:
        """`GET /v5/user_account`: the id, the username, the business name where it has one."""
        me = self.call("GET", "user_account", credentials)
        username = str(me.get("username") or "")
        return Identity(
            provider_user_id=str(me.get("id") or username),
            username=username,
            display_name=str(me.get("business_name") or username),
            avatar=str(me.get("profile_image") or ""),
            access_token=credentials.access_token,
            refresh_token=credentials.refresh_token,
            expires_at=credentials.expires_at,
            refresh_expires_at=credentials.refresh_expires_at,
            options=dict(credentials.options),
        )

    def refresh(self, credentials: Credentials) -> None:
        """An access token with under RENEW_WITHIN left (or past its end) is renewed."""
        if renewal_due(credentials, RENEW_WITHIN) and credentials.refresh_token:
            self._renew(credentials)

    def _renew(self, credentials: Credentials) -> None:
        """Continuous refresh: a new access token (30 days) and a new refresh token (60 days);
        a refusal (400 or 401) is an authentication failure: the user reconnects."""
        renew(
            credentials,
            self._token,
            refused="Pinterest",
            refresh_lifetime="refresh_token_expires_in",
        )

    def revoke(self, credentials: Credentials) -> None:
        """`POST /v5/oauth/token/revoke` with the refresh token (best effort)."""
        if not credentials.refresh_token:
            return
        self._client.call(
            "POST",
            self.api("oauth/token/revoke"),
            data={"token": credentials.refresh_token, "token_type_hint": "refresh_token"},
            headers=basic_auth(settings.PINTEREST_CLIENT_ID, settings.PINTEREST_CLIENT_SECRET),
        )
