"""Bluesky: an AT Protocol account, by app password (social.md section 1)."""

from social.networks.base import Capabilities, Network, Rule, VideoRules, limits
from social.providers.bluesky import BlueskyAdapter

SOURCE = "bluesky"
# XRPC errors are named by `error`.
ERRORS: tuple[Rule, ...] = (
    Rule(SOURCE, "auth_expired", "ExpiredToken: the session ran out.", code="ExpiredToken"),
    Rule(SOURCE, "auth_expired", "InvalidToken: the session is not valid.", code="InvalidToken"),
    Rule(
        SOURCE,
        "auth_expired",
        "AuthenticationRequired: the app password was refused or revoked.",
        code="AuthenticationRequired",
    ),
    Rule(
        SOURCE,
        "auth_expired",
        "AccountTakedown: the account was taken down.",
        code="AccountTakedown",
    ),
    Rule(
        SOURCE,
        "auth_expired",
        "AccountDeactivated: the account is deactivated.",
        code="AccountDeactivated",
    ),
    Rule(
        SOURCE,
        "rate_limited",
        "RateLimitExceeded (HTTP 429, RateLimit-Reset).",
        code="RateLimitExceeded",
    ),
    Rule(
        SOURCE, "media_invalid", "BlobTooLarge: an image over 1,000,000 bytes.", code="BlobTooLarge"
    ),
    Rule(
        SOURCE,
        "media_invalid",
        "InvalidMimeType: a file type Bluesky refuses.",
        code="InvalidMimeType",
    ),
    Rule(
        SOURCE,
        "content_rejected",
        "InvalidSwap: a record with this key exists already.",
        code="InvalidSwap",
    ),
    Rule(
        SOURCE,
        "content_rejected",
        "RecordNotFound: the post replied to is gone.",
        code="RecordNotFound",
    ),
    Rule(
        SOURCE,
        "content_rejected",
        "InvalidRequest: the record was refused (length, facets, an unknown handle).",
        code="InvalidRequest",
    ),
    Rule(
        SOURCE,
        "platform_outage",
        "UpstreamFailure, InternalServerError, ServiceUnavailable (HTTP 5xx).",
        status=(500, 599),
    ),
    Rule(
        SOURCE,
        "content_rejected",
        "Any other XRPC error of a request (HTTP 4xx).",
        status=(400, 428),
    ),
)


NETWORK = Network(
    provider="bluesky",
    name="Bluesky",
    connect_method="app_password",
    settings=("BLUESKY_SERVICE_URL", "BLUESKY_VIDEO_SERVICE_URL"),
    capabilities=Capabilities(
        text=True,
        links=True,
        images=True,
        alt_text=True,
        # 300 MB (decimal, the lexicon's maxSize) since September 2025, 100 MB before.
        video=VideoRules(
            max_seconds=180,
            max_bytes=300_000_000,
            source="https://github.com/bluesky-social/atproto/blob/main/lexicons/app/bsky/embed/video.json",
        ),
        documents=False,
        carousel=False,
        threads=True,
        first_comment=True,  # the author's reply
        title=False,
    ),
    limits=limits(300, counts_by="graphemes"),
    options=(),
    errors=ERRORS,
    exactly_once="chosen_id",  # each part's record key (rkey) is chosen before it is sent
    adapter=BlueskyAdapter(),
    scopes=(),
    best_times=(
        ("tue", "09:00"),
        ("wed", "09:00"),
        ("thu", "09:00"),
        ("tue", "17:00"),
        ("wed", "17:00"),
    ),
    renews_itself=True,
    connect_fields=(("identifier", "Your Bluesky handle or e-mail is required."),),
)
