"""YouTube: a channel, by Google OAuth (networks/youtube.md). A post is one video with a title."""

from social.networks.base import AppCap, Capabilities, Network, Option, Rule, VideoRules, limits
from social.providers.youtube import SCOPES, YouTubeAdapter

SOURCE = "youtube"


def _reason(reason: str, category: str, meaning: str, remedy: str = "") -> Rule:
    """A Data API error, named by its `errors[0].reason` (the adapter's message carries it)."""
    return Rule(SOURCE, category, meaning, text=f"({reason.lower()})", remedy=remedy)


# `{error: {code, message, errors: [{domain, reason, message}], status}}`; the token
# endpoint's `{error, error_description}`.
ERRORS: tuple[Rule, ...] = (
    _reason(
        "quotaExceeded",
        "account_limit",
        "The project's daily quota (youtube.quota) is used up.",
        remedy="Nothing to do: the upload waits for midnight Pacific Time, when YouTube's "
        "quota renews.",
    ),
    _reason(
        "uploadLimitExceeded",
        "account_limit",
        "The channel uploaded as many videos as YouTube allows today.",
        remedy="Nothing to do: the upload waits for midnight Pacific Time.",
    ),
    _reason("rateLimitExceeded", "rate_limited", "Too many requests in a short time."),
    _reason("userRateLimitExceeded", "rate_limited", "Too many requests by this user."),
    _reason(
        "youtubeSignupRequired",
        "permission_missing",
        "The Google account has no YouTube channel.",
        remedy="Create a YouTube channel for this Google account, then reconnect it.",
    ),
    _reason("insufficientPermissions", "permission_missing", "The token lacks a scope."),
    _reason("forbidden", "permission_missing", "The request is not allowed for this channel."),
    *(
        _reason(reason, "content_rejected", "YouTube refused the video's metadata.")
        for reason in (
            "invalidTitle",
            "invalidDescription",
            "invalidTags",
            "invalidCategoryId",
            "invalidVideoMetadata",
            "mediaBodyRequired",
        )
    ),
    Rule(
        SOURCE,
        "auth_expired",
        "invalid_grant: the refresh token was revoked, unused for 6 months, or a Testing "
        "app's 7 days ran out.",
        code="invalid_grant",
    ),
    Rule(
        SOURCE,
        "internal",
        "invalid_client: this server's Google app credentials were refused (an operator setting).",
        code="invalid_client",
        remedy="Contact support: this server's Google app credentials were refused.",
    ),
    Rule(SOURCE, "auth_expired", "authError: the access token was refused (HTTP 401).", status=401),
    Rule(SOURCE, "permission_missing", "Any other refusal (HTTP 403).", status=403),
    Rule(SOURCE, "rate_limited", "HTTP 429: too many requests.", status=429),
    Rule(
        SOURCE,
        "content_rejected",
        "Any other refused request (HTTP 4xx).",
        status=(400, 428),
    ),
)


NETWORK = Network(
    provider="youtube",
    name="YouTube",
    connect_method="oauth",
    settings=(
        "GOOGLE_CLIENT_ID",
        "GOOGLE_CLIENT_SECRET",
        "GOOGLE_AUTH_URL",
        "GOOGLE_TOKEN_URL",
        "GOOGLE_OAUTH_TESTING",
        "YOUTUBE_API_URL",
        "YOUTUBE_DAILY_UPLOADS",
    ),
    capabilities=Capabilities(
        text=False,  # the text is the video's description
        links=True,
        images=False,
        alt_text=False,
        video=VideoRules(  # uploaded from storage, resumably
            max_seconds=12 * 3600,
            max_bytes=256 * 1024**3,
            source="https://support.google.com/youtube/answer/71673",
        ),
        documents=False,
        carousel=False,
        threads=False,
        first_comment=False,  # a comment needs the youtube.force-ssl scope, not asked
        title=True,
    ),
    limits=limits(
        5000, max_media=1, media_required=True, max_hashtags=60, title_required=True, max_title=100
    ),
    options=(
        Option(
            "privacyStatus",
            str,
            "Who may watch the video.",
            choices=("public", "unlisted", "private"),
        ),
        Option("madeForKids", bool, "The video is made for children (an audience declaration)."),
        Option(
            "categoryId",
            str,
            "The video's category: YouTube's id, digits (22 People & Blogs).",
            pattern=r"\d{1,4}",
        ),
        Option("tags", list, "Tags: texts, 500 characters together."),
        Option("notifySubscribers", bool, "Tell the channel's subscribers about the video."),
    ),
    errors=ERRORS,
    # The session kept before any byte, asked after an interruption; a lost init, or a session
    # gone, looked up among the channel's uploads.
    exactly_once="lookup",
    adapter=YouTubeAdapter(),
    scopes=tuple(SCOPES.split()),
    best_times=(
        ("fri", "15:00"),
        ("thu", "15:00"),
        ("sat", "10:00"),
        ("sun", "10:00"),
        ("wed", "15:00"),
    ),
    app_cap=AppCap(setting="YOUTUBE_DAILY_UPLOADS", zone="America/Los_Angeles"),
)
