"""LinkedIn: a member's profile, by OAuth (social.md section 1). Its error rows are also those
of the pages a member administers (social.networks.linkedin_page): one API, one table."""

from social.networks.base import (
    Capabilities,
    Network,
    Rule,
    VideoRules,
    limits,
    token_endpoint_rules,
)
from social.providers.linkedin import SCOPES, LinkedInAdapter

SOURCE = "linkedin"
# Errors are `{status, serviceErrorCode, code, message}`.
ERRORS: tuple[Rule, ...] = (
    Rule(SOURCE, "auth_expired", "EXPIRED_ACCESS_TOKEN: the 60-day token ran out.", code="65602"),
    Rule(SOURCE, "auth_expired", "REVOKED_ACCESS_TOKEN: the member revoked the app.", code="65601"),
    Rule(SOURCE, "auth_expired", "INVALID_ACCESS_TOKEN.", code="65600"),
    Rule(SOURCE, "auth_expired", "Any other refused token (HTTP 401).", status=401),
    Rule(
        SOURCE,
        "permission_missing",
        "ACCESS_DENIED: the token lacks w_member_social (w_organization_social for a page), or "
        "the member lost the page's role (HTTP 403).",
        status=403,
    ),
    Rule(
        SOURCE,
        "content_rejected",
        "DUPLICATE_POST: the same text was published already.",
        code="DUPLICATE_POST",
        remedy="Change the text: LinkedIn refuses the same text twice.",
    ),
    Rule(
        SOURCE,
        "internal",
        "NONEXISTENT_VERSION: the LinkedIn-Version header names a "
        "retired version (an operator setting).",
        status=426,
        remedy="Contact support: this server calls a retired LinkedIn API version.",
    ),
    Rule(
        SOURCE,
        "media_invalid",
        "FIELD_VALIDATION_FAILED on a media field (`/content/media`: a document or image unknown, "
        "not processed or without a title).",
        status=422,
        text="/content/media",
    ),
    Rule(
        SOURCE,
        "content_rejected",
        "The post was refused as invalid (HTTP 400, 404, 422).",
        status=(400, 425),
    ),
    *token_endpoint_rules(SOURCE),  # renewing a token during an attempt
)


NETWORK = Network(
    provider="linkedin",
    name="LinkedIn",
    connect_method="oauth",
    settings=(
        "LINKEDIN_CLIENT_ID",
        "LINKEDIN_CLIENT_SECRET",
        "LINKEDIN_AUTH_URL",
        "LINKEDIN_API_URL",
        "LINKEDIN_API_VERSION",
    ),
    capabilities=Capabilities(
        text=True,
        links=True,
        images=True,  # up to 20, a `multiImage` post
        alt_text=True,
        video=VideoRules(
            min_seconds=3,
            max_seconds=1800,
            max_bytes=500 * 1024 * 1024,
            source="https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api",
        ),
        documents=True,  # a PDF through the Documents API, named by the post's title
        carousel=False,
        threads=False,
        first_comment=True,
        title=True,  # a video's or a document's title
    ),
    limits=limits(3000, max_media=20),
    options=(),
    errors=ERRORS,
    exactly_once="lookup",
    adapter=LinkedInAdapter(),
    scopes=tuple(SCOPES.split()),
    best_times=(
        ("tue", "09:00"),
        ("wed", "09:00"),
        ("thu", "09:00"),
        ("wed", "12:00"),
        ("tue", "12:00"),
    ),
)
