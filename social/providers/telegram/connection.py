"""Telegram's connection: the user's own bot (a token from @BotFather) and the channel or group
it posts to, checked with getMe, getChat and getChatMember; the Bot API's answers (`{ok: true,
result}` or `{ok: false, error_code, description, parameters}`) read into our error classes.

The token travels in the URL's path (`{}/bot{token}/{method}`): core.logs redacts it from every
line, and it is checked to be a token before any call, so nothing else reaches that path. What
is kept, encrypted in the account's access token: the bot token, the chat's id (replaced when a
group becomes a supergroup) and the bot's id."""

import json
import re
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from core import outbound
from social.providers.base import ConnectionRefused, ConnectRequest, Credentials, Identity, OAuthApp
from social.providers.client import ProviderClient, body_of, json_of, json_of_excerpt
from social.providers.text import Composer

# A bot token: the bot's id, a colon, then its secret (letters, digits, `_` and `-`).
TOKEN = re.compile(r"(\d{1,20}):[A-Za-z0-9_-]{20,100}")
MIGRATED = "upgraded to a supergroup"
# Who may post: in a channel an administrator with can_post_messages (or its creator); in a
# group or supergroup any member not restricted from sending messages.
CHANNEL = "channel"
GROUP_STATUSES = ("creator", "administrator", "member")


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """The Bot API's own error answers (`ok: false`): 429 with `parameters.retry_after`
    (nothing was sent), a group upgraded to a supergroup (`migrate_to_chat_id`: nothing sent,
    sent again to the new id), 401 and 404 the token (revoked, or not a token), 403 and 400
    refusals (permanent, never the token's end: a bot removed from a channel is a permission),
    5xx Telegram's failure before it sent anything (networks/telegram.md). An answer that is not
    the Bot API's (a proxy's page) keeps the default classification."""
    status, body = response.status_code, body_of(response)
    if 200 <= status < 300 or body.get("ok") is not False:
        return None
    said = str(body.get("description") or "")
    found = body.get("parameters")
    parameters: dict[str, Any] = found if isinstance(found, dict) else {}
    text = outbound.excerpt(response)
    if status == 429:
        wait = parameters.get("retry_after")
        return outbound.TransientError(
            f"Telegram's rate limit was reached: {said}",
            status=429,
            retry_after=float(wait) if isinstance(wait, int | float) else None,
            excerpt=text,
        )
    if parameters.get("migrate_to_chat_id"):
        return outbound.TransientError(f"Telegram {MIGRATED}: {said}", status=status, excerpt=text)
    if status in (401, 404):
        return outbound.AuthenticationError(
            f"Telegram refused the bot token: {said}", status=status, excerpt=text
        )
    if status >= 500:
        return outbound.TransientError(
            f"Telegram is unavailable: {said}", status=status, excerpt=text
        )
    return outbound.PermanentError(
        f"Telegram refused the request: {said}", status=status, excerpt=text
    )


@dataclass(frozen=True, slots=True)
class Bot:
    """What the account's encrypted access token holds."""

    token: str
    chat: str
    bot: str

    def sealed(self) -> str:
        return json.dumps({"token": self.token, "chat": self.chat, "bot": self.bot})


def bot_of(credentials: Credentials) -> Bot:
    found = json.loads(credentials.access_token)
    return Bot(token=str(found["token"]), chat=str(found["chat"]), bot=str(found["bot"]))


def may_post(chat_type: str, member: dict[str, Any]) -> bool:
    """Whether a ChatMember may post in a chat of this type (networks/telegram.md, Connect)."""
    status = str(member.get("status") or "")
    if chat_type == CHANNEL:
        return status == "creator" or (
            status == "administrator" and member.get("can_post_messages") is True
        )
    if status == "restricted":
        return bool(member.get("is_member")) and member.get("can_send_messages") is not False
    return status in GROUP_STATUSES


class TelegramConnection(Composer):
    """The adapter's login and its calls (social.providers.telegram.TelegramAdapter builds on
    it)."""

    _client = ProviderClient("telegram", classify)

    @staticmethod
    def configured() -> bool:
        return True  # each user brings a bot

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        raise NotImplementedError("Telegram connects with a bot token")

    def _method(self, token: str, method: str, **kwargs: Any) -> Any:
        """One Bot API call; its `result`."""
        if not TOKEN.fullmatch(token):
            raise outbound.AuthenticationError("That is not a Telegram bot token.")
        url = f"{settings.TELEGRAM_API_URL}/bot{token}/{method}"
        answer = json_of(self._client.call("POST", url, **kwargs))
        if not isinstance(answer, dict) or answer.get("ok") is not True or "result" not in answer:
            raise outbound.TransientError(
                "Telegram's answer could not be read.", maybe_delivered=True
            )
        return answer["result"]

    def connect(self, request: ConnectRequest) -> Identity:
        """getMe (the token), getChat (the channel or group, by @name or id), getChatMember
        (the bot may post there)."""
        token = request.code.strip()
        me = self._method(token, "getMe", json={})
        bot = str(me["id"])
        try:
            chat = self._method(token, "getChat", json={"chat_id": request.identifier.strip()})
        except outbound.AuthenticationError:
            raise
        except outbound.PermanentError as error:
            if error.status == 403:  # the bot is not in that private chat
                raise ConnectionRefused("telegram_bot_not_admin", error.message) from None
            raise ConnectionRefused("telegram_chat_not_found", error.message) from None
        if chat.get("type") == "private":
            raise ConnectionRefused(
                "telegram_chat_not_found",
                "That is a person's chat: connect a channel or a group the bot posts to.",
            )
        sealed = Bot(token=token, chat=str(chat["id"]), bot=bot)
        self._allowed(sealed, str(chat.get("type") or ""), refuse=True)
        return self._identity(sealed, chat)

    def _allowed(self, sealed: Bot, chat_type: str, *, refuse: bool = False) -> None:
        """getChatMember of the bot: it may post in the chat (else a refusal at connect, a
        permission problem afterwards: health and the pre-flight report it)."""
        member = self._method(
            sealed.token, "getChatMember", json={"chat_id": sealed.chat, "user_id": int(sealed.bot)}
        )
        if may_post(chat_type, member):
            return
        status = str(member.get("status") or "unknown")
        if refuse:
            raise ConnectionRefused(
                "telegram_bot_not_admin",
                f"The bot may not post in this chat (its status there: {status}): make it an "
                "administrator allowed to post, then connect again.",
            )
        raise outbound.PermanentError(
            f"The bot is no longer allowed to post in the Telegram chat (its status there: "
            f"{status})."
        )

    @staticmethod
    def _identity(sealed: Bot, chat: dict[str, Any]) -> Identity:
        return Identity(
            provider_user_id=str(chat["id"]),
            username=str(chat.get("username") or ""),
            display_name=str(chat.get("title") or ""),
            access_token=sealed.sealed(),
            expires_at=None,  # a bot token does not expire: only @BotFather revokes it
        )

    def identity(self, credentials: Credentials) -> Identity:
        """Health's check: getMe (the token still works), getChat, then getChatMember (the
        bot may still post there)."""
        sealed = bot_of(credentials)
        self._method(sealed.token, "getMe", json={})
        try:
            chat = self._call(credentials, "getChat", {})
            sealed = bot_of(credentials)  # the chat's id, if it moved meanwhile
            self._allowed(sealed, str(chat.get("type") or ""))
        except outbound.AuthenticationError:
            raise
        except outbound.PermanentError as error:  # removed from the chat, or the chat gone
            if error.status is None:
                raise
            raise outbound.PermanentError(
                f"The bot is no longer allowed to post in the Telegram chat: {error.message}"
            ) from None
        return self._identity(sealed, chat)

    def refresh(self, credentials: Credentials) -> None:
        return None  # a bot token is not renewed

    def revoke(self, credentials: Credentials) -> None:
        return None  # nothing to revoke: the user may revoke the token at @BotFather

    def _call(
        self,
        credentials: Credentials,
        method: str,
        fields: dict[str, Any],
        files: dict[str, Any] | None = None,
    ) -> Any:
        """A call about the account's chat (`chat_id` added). A group Telegram upgraded to a
        supergroup answers with the new id (nothing was sent): kept, and the call made once
        more to it."""
        sealed = bot_of(credentials)
        try:
            return self._chat_call(sealed, method, fields, files)
        except outbound.TransientError as error:
            moved = (json_of_excerpt(error.excerpt).get("parameters") or {}).get(
                "migrate_to_chat_id"
            )
            if MIGRATED not in error.message or not moved:
                raise
        sealed = Bot(token=sealed.token, chat=str(moved), bot=sealed.bot)
        credentials.renew(access_token=sealed.sealed(), expires_at=None)
        return self._chat_call(sealed, method, fields, files)

    def _chat_call(
        self, sealed: Bot, method: str, fields: dict[str, Any], files: dict[str, Any] | None
    ) -> Any:
        if files is None:
            return self._method(sealed.token, method, json={"chat_id": sealed.chat, **fields})
        form = {"chat_id": sealed.chat}
        for name, value in fields.items():  # multipart: objects as JSON, booleans as words
            form[name] = value if isinstance(value, str) else json.dumps(value)
        return self._method(sealed.token, method, data=form, files=files)
