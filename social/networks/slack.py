"""Slack: messages to one public channel of a workspace as the app's bot (networks/slack.md)."""

from social.networks.base import Capabilities, Network, Option, Rule, VideoRules, limits
from social.providers.slack import SCOPES, SlackAdapter

SOURCE = "slack"
CHANNEL_REMEDY = (
    "Add the Slack app to the channel again (or unarchive it), or reconnect Slack and pick "
    "another channel, then retry the post."
)


def _code(code: str, category: str, meaning: str, remedy: str = "") -> Rule:
    """An `{ok: false, error}` answer (HTTP 200), by its `error` code."""
    return Rule(SOURCE, category, meaning, code=code, remedy=remedy)


ERRORS: tuple[Rule, ...] = (
    *(
        _code(code, "auth_expired", f"{code}: the bot token is no longer valid.")
        for code in ("invalid_auth", "not_authed", "account_inactive", "token_revoked")
    ),
    _code("token_expired", "auth_expired", "token_expired: a rotating token ran out (renewed)."),
    *(
        _code(code, "permission_missing", f"{code}: the bot may not post there.", CHANNEL_REMEDY)
        for code in ("channel_not_found", "not_in_channel", "is_archived")
    ),
    *(
        _code(code, "permission_missing", f"{code}: refused by the workspace's settings.")
        for code in ("missing_scope", "restricted_action", "ekm_access_denied")
    ),
    *(
        _code(code, "content_rejected", f"{code}: the message was refused.")
        for code in (
            "msg_too_long",
            "no_text",
            "invalid_metadata_format",
            "metadata_too_large",
            "thread_not_found",
        )
    ),
    *(
        _code(code, "media_invalid", f"{code}: the file was refused.")
        for code in (
            "file_upload_size_restricted",
            "file_type_not_allowed",
            "file_uploads_disabled",
            "alt_txt_too_large",
        )
    ),
    *(
        _code(code, "platform_outage", f"{code}: Slack failed or was unavailable (retried).")
        for code in ("internal_error", "fatal_error", "service_unavailable", "request_timeout")
    ),
    *(
        _code(code, "auth_expired", f"{code}: the consent's code was refused (connect again).")
        for code in ("invalid_code", "code_already_used", "bad_redirect_uri")
    ),
    *(
        _code(
            code,
            "internal",
            f"{code}: this server's Slack app was refused (an operator setting).",
            remedy="Contact support: this server's Slack app credentials were refused.",
        )
        for code in ("invalid_client_id", "bad_client_secret")
    ),
    _code(
        "invalid_refresh_token",
        "auth_expired",
        "invalid_refresh_token: the rotating token's refresh token was refused.",
    ),
    Rule(
        SOURCE,
        "media_invalid",
        "Slack's upload address refused the file (HTTP 4xx).",
        text="upload address refused",
    ),
    Rule(SOURCE, "rate_limited", "HTTP 429 ratelimited (Retry-After honoured).", status=429),
    Rule(SOURCE, "platform_outage", "HTTP 5xx: Slack failed or is down.", status=(500, 599)),
    Rule(
        SOURCE,
        "content_rejected",
        "Any other error code (HTTP 200, ok: false): the request was refused.",
        status=200,
        text="slack refused the request",
    ),
)


NETWORK = Network(
    provider="slack",
    name="Slack",
    connect_method="oauth",
    settings=("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_AUTH_URL", "SLACK_API_URL"),
    capabilities=Capabilities(
        text=True,
        links=True,  # in the text (unfurled unless the options say not)
        images=True,
        alt_text=True,  # `alt_txt` of the upload
        video=VideoRules(  # a file like any: Slack processes it for playback by itself
            max_seconds=24 * 3600.0,  # no length is documented; 1 GB is what binds
            max_bytes=1024**3,
            source="https://docs.slack.dev/messaging/working-with-files",
        ),
        documents=False,
        carousel=False,
        threads=True,  # flat: every later part replies to the first
        first_comment=True,  # one more reply in the thread
        title=False,
    ),
    limits=limits(40_000, max_media=10),
    options=(
        Option("unfurlLinks", bool, "Unfurl the text's links (default true)."),
        Option("unfurlMedia", bool, "Unfurl media links (default true)."),
    ),
    errors=ERRORS,
    # No idempotency key: every message carries its part's key in its metadata, and the
    # channel's history (a thread's replies) is read for it before any retry.
    exactly_once="lookup",
    adapter=SlackAdapter(),
    scopes=tuple(SCOPES.split(",")),
    best_times=(
        ("tue", "10:00"),
        ("wed", "10:00"),
        ("thu", "10:00"),
        ("mon", "14:00"),
        ("fri", "11:00"),
    ),
    renews_itself=True,  # a bot token has no end; a rotating one renews itself
    renews_after_expiry=True,  # a rotating token that ran out is renewed by its refresh token
)
