"""X (Twitter): a user's account by OAuth 2.0 with PKCE (networks/x.md)."""

from django.conf import settings

from social.networks.base import Capabilities, Network, Option, Rule, VideoRules, limits
from social.providers.x import SCOPES, XAdapter

SOURCE = "x"
# Problem bodies `{title, detail, type, status}` (their `type`'s last segment is the code);
# invalid requests add `errors: [{message, parameters}]`; OAuth answers `{error,
# error_description}`.
ERRORS: tuple[Rule, ...] = (
    Rule(
        SOURCE,
        "platform_outage",
        "429 UsageCapExceeded: the app's credits or usage cap are used up (an operator must "
        "add credits; not retried).",
        status=429,
        text="usage cap",
        remedy="Contact support: this server's X credits are used up; the post can be retried "
        "once they are added.",
    ),
    Rule(
        SOURCE,
        "rate_limited",
        "429 Too Many Requests (x-rate-limit-reset honoured).",
        status=429,
    ),
    Rule(
        SOURCE,
        "auth_expired",
        "401 Unauthorized after one refresh, or the refresh refused.",
        status=(400, 401),
        text="renew the access token",
    ),
    Rule(SOURCE, "auth_expired", "401 Unauthorized after one refresh.", status=401),
    Rule(
        SOURCE,
        "content_rejected",
        "403 duplicate content: the same text was just published.",
        status=403,
        text="duplicate content",
        remedy="Change the text: X refuses the same text twice in a row.",
    ),
    Rule(
        SOURCE,
        "permission_missing",
        "403 client-not-enrolled, a scope missing or an action not permitted.",
        status=403,
    ),
    Rule(
        SOURCE,
        "media_invalid",
        "400 on a media upload: the file's type, size or duration refused.",
        status=400,
        text="media",
    ),
    Rule(
        SOURCE,
        "content_rejected",
        "400 Invalid Request (text too long, a field refused), or any other 4xx.",
        status=(400, 428),
    ),
    # OAuth token endpoint
    Rule(
        SOURCE,
        "internal",
        "unauthorized_client: this server's app credentials were refused (an operator setting).",
        code="unauthorized_client",
        remedy="Contact support: this server's X app credentials were refused.",
    ),
)


NETWORK = Network(
    provider="x",
    name="X",
    connect_method="oauth",
    settings=(
        "X_CLIENT_ID",
        "X_CLIENT_SECRET",
        "X_AUTH_URL",
        "X_API_URL",
        "X_MAX_VIDEO_SECONDS",
        "X_DAILY_POST_CAP",
    ),
    capabilities=Capabilities(
        text=True,
        links=True,  # in the text (X has no link field)
        images=True,
        alt_text=True,
        video=VideoRules(
            min_seconds=0.5,
            max_seconds=float(settings.X_MAX_VIDEO_SECONDS),
            max_bytes=512 * 1024 * 1024,
            source="https://docs.x.com/x-api/media/quickstart/best-practices",
        ),
        documents=False,
        carousel=False,
        threads=True,
        first_comment=True,  # the author's reply
        title=False,
    ),
    limits=limits(280, counts_by="weighted", max_media=4),
    options=(
        Option(
            "replySettings",
            str,
            "Who may reply to the post (its first part): people it follows, people it "
            "mentions, subscribers or verified accounts; everyone when left out.",
            choices=("following", "mentionedUsers", "subscribers", "verified"),
        ),
    ),
    errors=ERRORS,
    exactly_once="lookup",  # the account's own recent posts, before any retry
    adapter=XAdapter(),
    scopes=tuple(SCOPES.split()),
    best_times=(
        ("tue", "09:00"),
        ("wed", "09:00"),
        ("thu", "09:00"),
        ("wed", "12:00"),
        ("thu", "12:00"),
    ),
    renews_itself=True,  # a rotating refresh token, renewed as it is used
    renews_after_expiry=True,  # the two-hour access token's end is not the connection's
)
