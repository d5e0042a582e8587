"""Telegram: messages to a channel or group as the user's own bot (networks/telegram.md)."""

from social.networks.base import Capabilities, Network, Option, Rule, VideoRules, limits
from social.providers.telegram import TelegramAdapter

SOURCE = "telegram"
ADD_THE_BOT = (
    "Add the bot to the channel or group again as an administrator allowed to post, then retry "
    "the post."
)


def _said(status: int, text: str, category: str, meaning: str, remedy: str = "") -> Rule:
    """A Bot API refusal, named by a piece of its `description` (lowercase)."""
    return Rule(SOURCE, category, meaning, status=status, text=text, remedy=remedy)


# `{ok: false, error_code, description, parameters?: {retry_after, migrate_to_chat_id}}`.
ERRORS: tuple[Rule, ...] = (
    _said(
        400,
        "upgraded to a supergroup",
        "platform_outage",
        "The group became a supergroup (migrate_to_chat_id): the new id kept, sent again.",
    ),
    _said(400, "chat not found", "permission_missing", "Bad Request: chat not found.", ADD_THE_BOT),
    _said(
        400,
        "not enough rights",
        "permission_missing",
        "Bad Request: not enough rights to send messages to the chat.",
        ADD_THE_BOT,
    ),
    *(
        _said(400, text, "content_rejected", f"Bad Request: {text}.")
        for text in (
            "message is too long",
            "message caption is too long",
            "message to be replied not found",
            "text must be non-empty",
        )
    ),
    *(
        _said(400, text, "media_invalid", f"Bad Request: {text}.")
        for text in ("wrong file identifier", "image_process_failed", "photo_invalid_dimensions")
    ),
    Rule(
        SOURCE,
        "auth_expired",
        "401 Unauthorized: the bot token was revoked at @BotFather (404: not a token).",
        status=401,
        remedy="Get the bot's new token from @BotFather, then reconnect the Telegram chat with it.",
    ),
    Rule(SOURCE, "auth_expired", "404 Not Found: the token is not a bot's.", status=404),
    Rule(
        SOURCE,
        "permission_missing",
        "403 Forbidden: the bot is not a member of the chat, was kicked, or needs "
        "administrator rights.",
        status=403,
        remedy=ADD_THE_BOT,
    ),
    Rule(SOURCE, "media_invalid", "413 Request Entity Too Large: a file too big.", status=413),
    Rule(
        SOURCE,
        "rate_limited",
        "429 Too Many Requests: retry after parameters.retry_after seconds.",
        status=429,
    ),
    Rule(SOURCE, "content_rejected", "Any other Bad Request (HTTP 4xx).", status=(400, 428)),
    Rule(SOURCE, "platform_outage", "HTTP 5xx: Telegram failed before sending.", status=(500, 599)),
)


NETWORK = Network(
    provider="telegram",
    name="Telegram",
    connect_method="api_key",
    settings=("TELEGRAM_API_URL",),
    capabilities=Capabilities(
        text=True,
        links=True,
        images=True,
        alt_text=False,  # the Bot API has no alt text field
        video=VideoRules(  # its bytes sent with the message: nothing to await
            max_seconds=24 * 3600.0,  # no length is documented; 50 MB is what binds
            max_bytes=50 * 1024 * 1024,
            source="https://core.telegram.org/bots/api#sending-files",
        ),
        documents=False,
        carousel=True,  # 2 to 10 photos as one media group
        threads=True,
        first_comment=True,
        title=False,
    ),
    limits=limits(4096, max_media=10),
    options=(
        Option("disableLinkPreview", bool, "No preview of the text's first link."),
        Option("disableNotification", bool, "A silent message: members get no sound."),
        Option("protectContent", bool, "The message cannot be forwarded or saved."),
    ),
    errors=ERRORS,
    # No key and no read: a lost answer leaves the record Unconfirmed, never sent again.
    exactly_once="none",
    adapter=TelegramAdapter(),
    scopes=(),
    best_times=(
        ("tue", "09:00"),
        ("wed", "09:00"),
        ("thu", "09:00"),
        ("mon", "12:00"),
        ("fri", "12:00"),
    ),
    connect_fields=(("identifier", "The channel or group: its @username or its numeric id."),),
    metrics=False,
)
