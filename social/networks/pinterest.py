"""Pinterest: an account's Pins on its boards, by OAuth (networks/pinterest.md)."""

from social.networks.base import Capabilities, Network, Option, Rule, VideoRules, limits
from social.providers.pinterest import SCOPES, PinterestAdapter

SOURCE = "pinterest"

# API v5's `{code, message}` (the adapter's message carries the code); the token endpoint's
# refusals as the adapter words them.
ERRORS: tuple[Rule, ...] = (
    Rule(
        SOURCE,
        "auth_expired",
        "The refresh token was refused (400 or 401 at /v5/oauth/token): reconnect.",
        text="refused to renew the access token",
    ),
    Rule(SOURCE, "auth_expired", "Code 2: authentication failed (HTTP 401).", status=401),
    Rule(SOURCE, "rate_limited", "Code 8: too many requests (HTTP 429).", status=429),
    Rule(
        SOURCE,
        "permission_missing",
        "Code 29: not permitted to access that resource (a board that is not the account's).",
        status=403,
    ),
    Rule(
        SOURCE,
        "permission_missing",
        "A board (or board section) not found for this account (HTTP 404).",
        status=404,
        remedy="Pick one of the account's boards in variants.pinterest.options.boardId, or "
        "reconnect the account with another default board.",
    ),
    Rule(
        SOURCE,
        "media_invalid",
        "Pinterest refused the image or the video (its URL could not be fetched, its format).",
        status=(400, 428),
        text="image",
    ),
    Rule(
        SOURCE,
        "media_invalid",
        "Pinterest refused the media of the Pin.",
        status=(400, 428),
        text="media",
    ),
    Rule(
        SOURCE,
        "media_invalid",
        "Pinterest's upload address refused the video's form.",
        text="upload address refused",
    ),
    Rule(
        SOURCE,
        "content_rejected",
        "Invalid parameters, a refused link (HTTP 4xx).",
        status=(400, 428),
    ),
)


NETWORK = Network(
    provider="pinterest",
    name="Pinterest",
    connect_method="oauth",
    settings=(
        "PINTEREST_CLIENT_ID",
        "PINTEREST_CLIENT_SECRET",
        "PINTEREST_AUTH_URL",
        "PINTEREST_API_URL",
    ),
    capabilities=Capabilities(
        text=False,  # a Pin is media; the text is its description
        links=True,  # the Pin's destination
        images=True,
        alt_text=True,
        video=VideoRules(  # registered, then its bytes sent to the upload address
            min_seconds=4,
            max_seconds=15 * 60,
            max_bytes=2 * 1024**3,
            source="https://help.pinterest.com/en/business/article/pinterest-product-specs",
        ),
        documents=False,
        carousel=True,  # 2 to 5 images
        threads=False,
        first_comment=False,  # no comment API in v5
        title=True,
    ),
    limits=limits(800, max_media=5, media_required=True, max_title=100),
    options=(
        Option(
            "boardId", str, "The board to save the Pin to: one of the account's.", pattern=r"\d+"
        ),
        Option("boardSectionId", str, "A section of that board (its id).", pattern=r"\d+"),
        Option(
            "coverImageUrl",
            str,
            "A video Pin's cover image: an http(s) URL.",
            pattern=r"https?://\S+",
        ),
        Option(
            "coverFrameSeconds",
            int,
            "A video Pin's cover: the frame at this second (0 or more; past the end, the last).",
        ),
    ),
    errors=ERRORS,
    # No idempotency key: the board's newest Pins are looked up before any retry.
    exactly_once="lookup",
    adapter=PinterestAdapter(),
    scopes=tuple(SCOPES.split(",")),
    best_times=(
        ("sat", "20:00"),
        ("fri", "15:00"),
        ("sun", "20:00"),
        ("tue", "21:00"),
        ("thu", "21:00"),
    ),
    renews_itself=True,  # continuous refresh: every refresh answers a new 60-day refresh token
    renews_after_expiry=True,  # a lapsed 30-day access token is renewed by its refresh token
)
