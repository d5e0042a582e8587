"""Discord: messages to one channel through the incoming webhook its OAuth consent creates
(networks/discord.md)."""

from social.networks.base import Capabilities, Network, Option, Rule, VideoRules, limits
from social.providers.discord import SCOPES, DiscordAdapter

SOURCE = "discord"
RECONNECT = "Reconnect Discord and pick the channel again: its webhook was deleted in Discord."


def _code(code: int, category: str, meaning: str, remedy: str = "") -> Rule:
    """A JSON error answer `{message, code, errors?}`, by its numeric `code`."""
    return Rule(SOURCE, category, meaning, code=str(code), remedy=remedy)


ERRORS: tuple[Rule, ...] = (
    _code(10015, "auth_expired", "Unknown Webhook: the webhook was deleted.", remedy=RECONNECT),
    _code(50027, "auth_expired", "Invalid Webhook Token.", remedy=RECONNECT),
    _code(50013, "permission_missing", "Missing Permissions in the channel."),
    _code(50001, "permission_missing", "Missing Access to the channel."),
    _code(
        50035,
        "content_rejected",
        "Invalid Form Body: a field refused (`errors` names it; the text too long...).",
    ),
    _code(50006, "content_rejected", "Cannot send an empty message."),
    _code(
        220001,
        "content_rejected",
        "A forum or media channel needs a post title (thread_name).",
        remedy="Set variants.discord.options.threadName (the forum post's title), then publish "
        "the post again.",
    ),
    _code(10008, "content_rejected", "Unknown Message: the message was deleted (its metrics)."),
    _code(40005, "media_invalid", "Request entity too large: the files exceed the message's."),
    Rule(SOURCE, "media_invalid", "HTTP 413: the files exceed the message's size.", status=413),
    Rule(SOURCE, "rate_limited", "HTTP 429: rate limited (retry_after honoured).", status=429),
    Rule(
        SOURCE,
        "auth_expired",
        "invalid_grant: the consent's code was refused (connect again).",
        code="invalid_grant",
    ),
    Rule(
        SOURCE,
        "internal",
        "invalid_client: this server's Discord application was refused (an operator setting).",
        code="invalid_client",
        remedy="Contact support: this server's Discord application credentials were refused.",
    ),
    Rule(SOURCE, "auth_expired", "HTTP 401: the webhook's token was refused.", status=401),
    Rule(SOURCE, "permission_missing", "Any other refusal (HTTP 403).", status=403),
    Rule(SOURCE, "content_rejected", "Any other refused request (HTTP 4xx).", status=(400, 428)),
)


NETWORK = Network(
    provider="discord",
    name="Discord",
    connect_method="oauth",
    settings=("DISCORD_CLIENT_ID", "DISCORD_CLIENT_SECRET", "DISCORD_AUTH_URL", "DISCORD_API_URL"),
    capabilities=Capabilities(
        text=True,
        links=True,  # in the text (Discord previews them unless disableLinkPreview)
        images=True,
        alt_text=True,  # the attachment's `description`
        video=VideoRules(  # an attachment, sent with the message: nothing to await
            max_seconds=24 * 3600.0,
            max_bytes=10 * 1024 * 1024,
            source="https://discord.com/developers/docs/reference#uploading-files",
        ),
        documents=False,
        carousel=False,
        threads=False,  # a webhook cannot reply
        first_comment=False,
        title=False,
    ),
    limits=limits(2000, max_media=10),
    options=(
        Option(
            "username",
            str,
            "The name the message shows instead of the webhook's: 1 to 80 characters, "
            "without 'discord' or 'clyde'.",
            pattern=r"(?is)(?!.*(?:discord|clyde))(?=.*\S).{1,80}",
        ),
        Option(
            "avatarUrl",
            str,
            "The picture the message shows instead of the webhook's: an https URL.",
            pattern=r"https://[^\s/]+(?:/\S*)?",
        ),
        Option(
            "threadName",
            str,
            "The post's title in a forum or media channel (which needs one): 1 to 100 characters.",
            pattern=r"(?s)(?=.*\S).{1,100}",
        ),
        Option("disableLinkPreview", bool, "Hide the previews of the text's links."),
    ),
    errors=ERRORS,
    # No idempotency key, and a webhook cannot list its channel: a lost answer stays
    # Unconfirmed at once, never sent again.
    exactly_once="none",
    adapter=DiscordAdapter(),
    scopes=tuple(SCOPES.split()),
    best_times=(
        ("fri", "18:00"),
        ("sat", "15:00"),
        ("thu", "18:00"),
        ("sun", "15:00"),
        ("wed", "18:00"),
    ),
)
