"""Google Business Profile: posts, events and offers on one business location, by Google OAuth
(networks/google_business.md)."""

from social.networks.base import Capabilities, Network, Option, Rule, limits, token_endpoint_rules
from social.providers.google_business import SCOPE, GoogleBusinessAdapter

SOURCE = "google_business"

# Google's `{error: {code, message, status, details}}` (the adapter's message carries the
# status, such as PERMISSION_DENIED); the token endpoint's `{error, error_description}`.
ERRORS: tuple[Rule, ...] = (
    *token_endpoint_rules(SOURCE),
    Rule(
        SOURCE,
        "auth_expired",
        "401 UNAUTHENTICATED: the access token was refused (renewing it failed too).",
        status=401,
    ),
    Rule(
        SOURCE,
        "permission_missing",
        "403 PERMISSION_DENIED: the Business Profile APIs are not enabled for the Google Cloud "
        "project, or the location is not the Google account's any more.",
        status=403,
        remedy="Ask the server's operator to have the Business Profile APIs enabled, or "
        "reconnect with a Google account that manages the location.",
    ),
    Rule(
        SOURCE,
        "permission_missing",
        "404 NOT_FOUND: the location is gone, not verified, or suspended.",
        status=404,
        remedy="Check the location in Google Business Profile (verified, not suspended), then "
        "reconnect it.",
    ),
    Rule(SOURCE, "rate_limited", "429 RESOURCE_EXHAUSTED: too many requests.", status=429),
    Rule(
        SOURCE,
        "media_invalid",
        "400 INVALID_ARGUMENT about the photo (Google could not fetch or take it).",
        status=(400, 428),
        text="media",
    ),
    Rule(
        SOURCE,
        "content_rejected",
        "400 INVALID_ARGUMENT, or any other refused request (HTTP 4xx).",
        status=(400, 428),
    ),
)

TOPICS = ("STANDARD", "EVENT", "OFFER")
ACTIONS = ("BOOK", "ORDER", "SHOP", "LEARN_MORE", "SIGN_UP", "CALL")
LOCAL_MOMENT = r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?"

NETWORK = Network(
    provider="google_business",
    name="Google Business Profile",
    connect_method="oauth",
    settings=(
        "GOOGLE_CLIENT_ID",
        "GOOGLE_CLIENT_SECRET",
        "GOOGLE_AUTH_URL",
        "GOOGLE_TOKEN_URL",
        "GOOGLE_OAUTH_TESTING",
        "GOOGLE_BUSINESS_ACCOUNTS_URL",
        "GOOGLE_BUSINESS_INFO_URL",
        "GOOGLE_BUSINESS_API_URL",
    ),
    capabilities=Capabilities(
        text=True,  # the post's summary
        links=True,  # the button's (callToAction) link
        images=True,  # one photo, fetched by Google from its public URL
        alt_text=False,  # a LocalPost's media has no alt text
        video=None,
        documents=False,
        carousel=False,
        threads=False,
        first_comment=False,
        title=True,  # an event's or offer's title
    ),
    limits=limits(1500, max_media=1, max_title=58),
    options=(
        Option("topicType", str, "The kind of post (STANDARD by default).", choices=TOPICS),
        Option(
            "actionType",
            str,
            "The post's button (LEARN_MORE by default with a link; CALL needs none).",
            choices=ACTIONS,
        ),
        Option(
            "eventStart",
            str,
            "An event's or offer's start: a local date or date-time (2025-06-01T18:00).",
            pattern=LOCAL_MOMENT,
        ),
        Option(
            "eventEnd",
            str,
            "An event's or offer's end: a local date or date-time, not before the start.",
            pattern=LOCAL_MOMENT,
        ),
        Option("couponCode", str, "An offer's coupon code (58 characters at most)."),
        Option(
            "redeemUrl", str, "Where an offer is redeemed: an http(s) URL.", pattern=r"https?://\S+"
        ),
        Option("terms", str, "An offer's terms and conditions (5,000 characters at most)."),
        Option(
            "languageCode",
            str,
            "The post's language: a BCP 47 tag (en by default).",
            pattern=r"[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*",
        ),
    ),
    errors=ERRORS,
    # No idempotency key: the location's posts are looked up before any retry.
    exactly_once="lookup",
    adapter=GoogleBusinessAdapter(),
    scopes=(SCOPE,),
    best_times=(
        ("tue", "10:00"),
        ("wed", "10:00"),
        ("thu", "10:00"),
        ("mon", "11:00"),
        ("fri", "10:00"),
    ),
)
