"""TikTok: a creator, by Login Kit OAuth (networks/tiktok.md). A post is one video or 1 to 35
photos (Direct Post), its privacy level chosen each time."""

from social.networks.base import Capabilities, Network, Option, Rule, VideoRules, limits
from social.providers.tiktok import PRIVACY_LEVELS, SCOPES, TikTokAdapter

SOURCE = "tiktok"
LIMITS = limits(2200, max_media=35, media_required=True, max_title=90)


def _code(code: str, category: str, meaning: str, remedy: str = "") -> Rule:
    """An API error, named by its `error.code` (the adapter's message carries it)."""
    return Rule(SOURCE, category, meaning, text=f"({code})", remedy=remedy)


# `{data, error: {code, message, log_id}}`; the token endpoint's `{error, error_description}`.
ERRORS: tuple[Rule, ...] = (
    _code(
        "spam_risk_too_many_posts",
        "account_limit",
        "The creator made as many Direct Posts as TikTok allows in 24 hours (every app).",
        remedy="Nothing to do: the post waits a day, then goes.",
    ),
    _code(
        "reached_active_user_cap",
        "account_limit",
        "The app reached its users a day (an unaudited app: 5).",
        remedy="Nothing to do: the post waits a day. Operators: have the TikTok app audited.",
    ),
    _code("rate_limit_exceeded", "rate_limited", "Too many requests for this user's token."),
    _code("access_token_invalid", "auth_expired", "The access token was refused."),
    _code("invalid_grant", "auth_expired", "The refresh token (or the code) was refused."),
    _code("scope_not_authorized", "permission_missing", "The user did not grant a scope."),
    _code("scope_permission_missed", "permission_missing", "The token lacks a scope."),
    _code(
        "unaudited_client_can_only_post_to_private_accounts",
        "permission_missing",
        "An unaudited app may post only SELF_ONLY, to private accounts.",
        remedy="Make the TikTok account private and post SELF_ONLY, or wait until the app is "
        "audited by TikTok.",
    ),
    _code(
        "url_ownership_unverified",
        "permission_missing",
        "The photos' domain is not verified for the TikTok app.",
        remedy="Contact support: the media domain must be verified in TikTok's developer portal.",
    ),
    _code(
        "privacy_level_option_mismatch",
        "permission_missing",
        "The privacy level is not among those the creator is offered.",
    ),
    _code(
        "spam_risk_user_banned_from_posting",
        "permission_missing",
        "TikTok banned the creator from posting.",
    ),
    _code("invalid_params", "content_rejected", "TikTok refused the post's fields."),
    _code("invalid_file_upload", "media_invalid", "TikTok refused the file or its chunks."),
    _code("internal_error", "platform_outage", "TikTok failed (retried)."),
    _code(
        "invalid_client",
        "internal",
        "invalid_client: this server's TikTok client key or secret was refused.",
        remedy="Contact support: this server's TikTok app credentials were refused.",
    ),
    Rule(SOURCE, "auth_expired", "HTTP 401: the token was refused.", status=401),
    Rule(SOURCE, "permission_missing", "Any other refusal (HTTP 403).", status=403),
    Rule(SOURCE, "rate_limited", "HTTP 429: too many requests.", status=429),
    Rule(SOURCE, "content_rejected", "Any other refused request (HTTP 4xx).", status=(400, 428)),
    Rule(SOURCE, "content_rejected", "An error TikTok answered with HTTP 200.", status=(200, 299)),
)


NETWORK = Network(
    provider="tiktok",
    name="TikTok",
    connect_method="oauth",
    settings=("TIKTOK_CLIENT_KEY", "TIKTOK_CLIENT_SECRET", "TIKTOK_AUTH_URL", "TIKTOK_API_URL"),
    capabilities=Capabilities(
        text=False,  # a video or photos; the text is their caption
        links=False,  # kept in the caption, not clickable
        images=True,  # photo posts, fetched by TikTok from their public URLs
        alt_text=False,
        video=VideoRules(  # uploaded from storage in chunks (FILE_UPLOAD)
            max_seconds=600,  # and the creator's own maximum, asked before each post
            max_bytes=4 * 1024**3,
            source="https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide",
            min_seconds=3,  # unverified
        ),
        documents=False,
        carousel=True,  # photo posts of up to 35 images
        threads=False,
        first_comment=False,
        title=True,  # a photo post's
    ),
    limits=LIMITS,
    options=(
        Option(
            "privacyLevel",
            str,
            "Who may see the post; chosen for each post (TikTok forbids a preset one).",
            choices=PRIVACY_LEVELS,
            required=True,
        ),
        Option("disableComment", bool, "Nobody may comment."),
        Option("disableDuet", bool, "Nobody may duet the video (videos only)."),
        Option("disableStitch", bool, "Nobody may stitch the video (videos only)."),
        Option(
            "videoCoverTimestampMs",
            int,
            "The video's moment, in milliseconds, shown as its cover (videos only).",
        ),
        Option(
            "brandContentToggle",
            bool,
            "A paid partnership promoting another brand (not with SELF_ONLY).",
        ),
        Option("brandOrganicToggle", bool, "Promotes the creator's own business."),
        Option("autoAddMusic", bool, "TikTok adds music to the photos (photo posts only)."),
    ),
    errors=ERRORS,
    # The publish_id kept before any byte, its status asked after an interruption; a lost
    # video init made nothing (initialized again); a lost photo init stays Unconfirmed.
    exactly_once="lookup",
    adapter=TikTokAdapter(LIMITS),
    scopes=tuple(SCOPES.split(",")),
    best_times=(
        ("tue", "19:00"),
        ("thu", "19:00"),
        ("fri", "17:00"),
        ("wed", "12:00"),
        ("sat", "11:00"),
    ),
)
