"""DEV Community (Forem): articles, by API key (social.md section 1)."""

from social.networks.base import Capabilities, Network, Rule, limits
from social.providers.devto import DevtoAdapter

SOURCE = "devto"
# Errors are `{"error": "<text>", "status"}`.
ERRORS: tuple[Rule, ...] = (
    Rule(SOURCE, "auth_expired", "unauthorized: the API key was revoked (HTTP 401).", status=401),
    Rule(
        SOURCE, "permission_missing", "forbidden: the key may not do this (HTTP 403).", status=403
    ),
    Rule(
        SOURCE,
        "content_rejected",
        "422 Canonical url has already been taken (a duplicate guard).",
        status=422,
        text="canonical",
        remedy="Change the post's link: DEV refuses a canonical URL it already has.",
    ),
    Rule(SOURCE, "media_invalid", "422 on the main image.", status=422, text="image"),
    Rule(
        SOURCE,
        "content_rejected",
        "422 Title can't be blank, Tag list exceeds 4 tags, other validation.",
        status=422,
    ),
    Rule(
        SOURCE, "content_rejected", "Any other refusal of a request (HTTP 4xx).", status=(400, 428)
    ),
)


NETWORK = Network(
    provider="devto",
    name="DEV Community",
    connect_method="api_key",
    settings=("DEVTO_API_URL",),
    capabilities=Capabilities(
        text=True,
        links=True,  # the canonical URL
        images=True,  # the main image
        alt_text=False,
        video=None,
        documents=False,
        carousel=False,
        threads=False,
        first_comment=False,  # an article's comments are the readers'
        title=True,
    ),
    limits=limits(100_000, max_media=1, max_hashtags=4, title_required=True, max_title=128),
    options=(),
    errors=ERRORS,
    exactly_once="lookup",
    adapter=DevtoAdapter(),
    scopes=(),
    best_times=(
        ("tue", "08:00"),
        ("wed", "08:00"),
        ("thu", "08:00"),
        ("mon", "08:00"),
        ("tue", "14:00"),
    ),
)
