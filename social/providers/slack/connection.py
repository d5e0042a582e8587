"""Slack's connection (networks/slack.md): OAuth v2 installing the app's bot in the user's
workspace (`oauth.v2.access`: a bot token, `xoxb-`), the workspace and bot (`auth.test`), the
public channel it posts to (`conversations.list`, joined with `conversations.join`), health
(`auth.test`, then `conversations.info`: the channel still there, not archived), and the
token's revocation (`auth.revoke`). A bot token does not expire; with token rotation enabled
for the app the answer adds `expires_in` and `refresh_token`, and the token renews itself
(`grant_type=refresh_token`).

What is kept, encrypted in the account's access token: the bot token, the team, the channel, the
bot's user and bot ids (the refresh token, when rotating, in the account's refresh token). The
token travels in the `Authorization` header only: never in a URL, never in a log line
(core.logs redacts `xox*-` tokens wherever one would appear).

Every Web API method answers HTTP 200 `{ok: true, ...}` or `{ok: false, error: "<code>"}`;
only a rate limit (429, `Retry-After`) and outages (5xx) use other statuses. `classify` reads
the code into our error classes; the error table (social.networks.slack) maps it by code."""

import json
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

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
from social.providers.client import ProviderClient, body_of, json_of, seconds_from_now
from social.providers.oauth import basic_auth, renew
from social.providers.text import Composer

SCOPES = "chat:write,channels:read,channels:join,channels:history,files:write"
AUTH_CODES = frozenset(
    {"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"}
)
# Slack failed or was unavailable: nothing done (a retry), or, for the first two, "some aspect
# of the operation may have succeeded" (Slack's words): looked up before any retry.
OUTAGE_CODES = frozenset(
    {"internal_error", "fatal_error", "service_unavailable", "request_timeout"}
)
MAYBE_DONE_CODES = frozenset({"internal_error", "fatal_error"})
CHANNELS_PAGE = 200
CHANNEL_PAGES = 10  # a workspace's public channels read at most (2,000)
RENEW_WITHIN = timedelta(hours=2)  # a rotating token (12 hours) with less left is renewed


def slack_code(response: outbound.Response) -> str:
    """The `error` code of a Web API answer with `ok: false`; "" otherwise."""
    body = body_of(response)
    code = body.get("error")
    return str(code) if body.get("ok") is False and isinstance(code, str) else ""


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """429: retried not before `Retry-After` (nothing was done); 5xx by status (the default);
    `ok: false` by its code: the token's (authentication: the account expires), Slack's own
    failures (retried; `internal_error` and `fatal_error` may have done the work), any other
    a refusal. An HTTP 200 with `ok: true` is a success."""
    status = response.status_code
    text = outbound.excerpt(response)
    if status == 429:
        return outbound.TransientError(
            "Slack's rate limit was reached (ratelimited).",
            status=429,
            retry_after=outbound.retry_after_seconds(response),
            excerpt=text,
        )
    if status >= 500:
        return None  # the default: an outage, retried
    code = slack_code(response)
    if not code:
        return None
    if code in AUTH_CODES:
        return outbound.AuthenticationError(
            f"Slack refused the bot token ({code}): reconnect Slack.", status=status, excerpt=text
        )
    if code in OUTAGE_CODES:
        return outbound.TransientError(
            f"Slack failed to complete the request ({code}).",
            status=status,
            maybe_delivered=code in MAYBE_DONE_CODES,
            excerpt=text,
        )
    return outbound.PermanentError(
        f"Slack refused the request ({code}).", status=status, excerpt=text
    )


@dataclass(frozen=True, slots=True)
class Bot:
    """What the account's encrypted access token holds."""

    token: str
    team: str
    channel: str
    bot_user: str = ""
    bot: str = ""

    def sealed(self) -> str:
        return json.dumps(
            {
                "token": self.token,
                "team": self.team,
                "channel": self.channel,
                "botUser": self.bot_user,
                "bot": self.bot,
            }
        )

    def __repr__(self) -> str:  # never the token in a log line or a traceback
        return f"Bot(team={self.team!r}, channel={self.channel!r}, ...)"


def bot_of(credentials: Credentials) -> Bot:
    """The account's bot, from its stored (decrypted) access token; an unreadable one is sent
    as it is (Slack then refuses it: `invalid_auth`)."""
    try:
        kept = json.loads(credentials.access_token)
    except ValueError:
        kept = None
    if not isinstance(kept, dict):
        team, _, channel = credentials.provider_user_id.partition("/")
        return Bot(token=credentials.access_token, team=team, channel=channel)
    return Bot(
        token=str(kept.get("token") or ""),
        team=str(kept.get("team") or ""),
        channel=str(kept.get("channel") or ""),
        bot_user=str(kept.get("botUser") or ""),
        bot=str(kept.get("bot") or ""),
    )


def archived_error(name: str) -> outbound.PermanentError:
    """Health's finding: the channel was archived (posts there would be refused)."""
    return outbound.PermanentError(
        f"The Slack channel is archived (#{name}): posts to it are refused."
    )


class SlackConnection(Composer):
    """The consent, the bot token and its renewal, the channel; the Web API's calls."""

    _client = ProviderClient("slack", classify)

    @staticmethod
    def configured() -> bool:
        return bool(settings.SLACK_CLIENT_ID and settings.SLACK_CLIENT_SECRET)

    @staticmethod
    def api(method: str) -> str:
        return f"{settings.SLACK_API_URL}/{method}"

    def call(
        self,
        http_method: str,
        method: str,
        credentials: Credentials,
        *,
        params: dict[str, Any] | None = None,
        json_body: dict[str, Any] | None = None,
        form: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """One Web API method with the account's bot token; a token that ran out
        (`token_expired`, rotation) is renewed once and the call made again (Slack did
        nothing with it)."""
        try:
            return self._method(
                http_method, method, bot_of(credentials).token, params, json_body, form
            )
        except outbound.AuthenticationError as error:
            if "token_expired" not in error.message or not credentials.refresh_token:
                raise
        self._renew(credentials)
        return self._method(http_method, method, bot_of(credentials).token, params, json_body, form)

    def _method(
        self,
        http_method: str,
        method: str,
        token: str,
        params: dict[str, Any] | None = None,
        json_body: dict[str, Any] | None = None,
        form: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"headers": {"Authorization": f"Bearer {token}"}}
        if params:
            kwargs["params"] = params
        if json_body is not None:
            kwargs["data"] = json.dumps(json_body).encode()
            kwargs["headers"]["Content-Type"] = "application/json; charset=utf-8"
        elif form is not None:
            kwargs["data"] = form
        return _answer(self._client.call(http_method, self.api(method), **kwargs))

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        query = urlencode(
            {
                "client_id": settings.SLACK_CLIENT_ID,
                "scope": SCOPES,
                "redirect_uri": redirect_uri,
                "state": state,
            }
        )
        return f"{settings.SLACK_AUTH_URL}?{query}"

    def _access(self, form: dict[str, str]) -> dict[str, Any]:
        """`POST oauth.v2.access`, the app's id and secret as HTTP Basic."""
        return _answer(
            self._client.call(
                "POST",
                self.api("oauth.v2.access"),
                data=form,
                headers=basic_auth(settings.SLACK_CLIENT_ID, settings.SLACK_CLIENT_SECRET),
            )
        )

    def connect(self, request: ConnectRequest) -> Identity:
        """The code for the bot token, the workspace and bot (`auth.test`), then the channel:
        `channelId` when sent (one of the workspace's public channels), else its general
        channel; joined unless the bot is a member already."""
        token = self._access({"code": request.code, "redirect_uri": request.redirect_uri})
        credentials = Credentials(
            provider_user_id="",
            access_token=Bot(token=str(token["access_token"]), team="", channel="").sealed(),
            refresh_token=str(token.get("refresh_token") or ""),
            expires_at=seconds_from_now(token.get("expires_in")),
        )
        me = self.call("POST", "auth.test", credentials, form={})
        channels = self.channels(credentials)
        if request.channel_id:
            channel = next((c for c in channels if str(c.get("id")) == request.channel_id), None)
        else:
            channel = next((c for c in channels if c.get("is_general")), None)
        if channel is None:
            raise ConnectionRefused(
                "slack_channel_not_found",
                "The channel named is not one of this Slack workspace's public channels."
                if request.channel_id
                else "This Slack workspace has no general channel: send a channelId.",
                details={"channelId": request.channel_id} if request.channel_id else None,
            )
        channel_id = str(channel["id"])
        if not channel.get("is_member"):
            self.call("POST", "conversations.join", credentials, json_body={"channel": channel_id})
        found = token.get("team")
        team: dict[str, Any] = found if isinstance(found, dict) else {}
        bot = Bot(
            token=str(token["access_token"]),
            team=str(me.get("team_id") or team.get("id") or ""),
            channel=channel_id,
            bot_user=str(token.get("bot_user_id") or me.get("user_id") or ""),
            bot=str(me.get("bot_id") or ""),
        )
        team_name = str(team.get("name") or me.get("team") or "")
        return _identity(bot, credentials, team_name, str(channel.get("name") or channel_id))

    def channels(self, credentials: Credentials) -> list[dict[str, Any]]:
        """The workspace's public channels, not archived (`conversations.list`, page after page
        by `response_metadata.next_cursor`)."""
        found: list[dict[str, Any]] = []
        cursor = ""
        for _ in range(CHANNEL_PAGES):
            params: dict[str, Any] = {
                "types": "public_channel",
                "exclude_archived": "true",
                "limit": CHANNELS_PAGE,
            }
            if cursor:
                params["cursor"] = cursor
            page = self.call("GET", "conversations.list", credentials, params=params)
            found += [c for c in page.get("channels") or [] if isinstance(c, dict)]
            cursor = str((page.get("response_metadata") or {}).get("next_cursor") or "")
            if not cursor:
                break
        return found

    def identity(self, credentials: Credentials) -> Identity:
        """Health's check and the pre-flight's: `auth.test` (the token still works), then
        `conversations.info` (the channel is still there and not archived: an archived one is
        a problem of the account's before a post is due)."""
        me = self.call("POST", "auth.test", credentials, form={})
        bot = bot_of(credentials)
        info = self.call("GET", "conversations.info", credentials, params={"channel": bot.channel})
        channel = info.get("channel") or {}
        name = str(channel.get("name") or bot.channel)
        if channel.get("is_archived"):
            raise archived_error(name)
        return _identity(bot, credentials, str(me.get("team") or ""), name)

    def refresh(self, credentials: Credentials) -> None:
        """A rotating token with under RENEW_WITHIN left (or past its end) is renewed; a bot
        token without an end is never."""
        expires_at = credentials.expires_at
        if expires_at is None or not credentials.refresh_token:
            return
        if expires_at - timezone.now() < RENEW_WITHIN:
            self._renew(credentials)

    def _renew(self, credentials: Credentials) -> None:
        """`oauth.v2.access` with `grant_type=refresh_token`: a new token (12 hours) and a new
        refresh token; a refusal is an authentication failure (the user reconnects)."""
        renew(
            credentials,
            self._access,
            refused="Slack",
            sealed=lambda token: replace(bot_of(credentials), token=token).sealed(),
        )

    def revoke(self, credentials: Credentials) -> None:
        """`auth.revoke` (best effort: the caller ignores a failure)."""
        self.call("POST", "auth.revoke", credentials, form={})


def _answer(response: outbound.Response) -> dict[str, Any]:
    """A Web API answer that is `ok: true` (classify raised the others)."""
    answer = json_of(response)
    if not isinstance(answer, dict) or answer.get("ok") is not True:
        # No excerpt: a success's body may carry a token.
        raise outbound.TransientError("Slack's answer could not be read.", maybe_delivered=True)
    return answer


def _identity(bot: Bot, credentials: Credentials, team_name: str, channel_name: str) -> Identity:
    return Identity(
        provider_user_id=f"{bot.team}/{bot.channel}",
        username=channel_name,
        display_name=f"{team_name} #{channel_name}".strip(),
        access_token=bot.sealed(),
        refresh_token=credentials.refresh_token,
        expires_at=credentials.expires_at,  # a rotating token's 12 hours; None: no end
    )
