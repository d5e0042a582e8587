"""Mastodon: an account on any instance, by OAuth with an app registered there."""

from social.networks.base import (
    Capabilities,
    Network,
    Rule,
    VideoRules,
    limits,
    token_endpoint_rules,
)
from social.providers.mastodon import SCOPES, MastodonAdapter

SOURCE = "mastodon"
# Errors are `{"error": "<text>"}`, 422 for validation.
ERRORS: tuple[Rule, ...] = (
    Rule(
        SOURCE,
        "permission_missing",
        "This action is outside the authorized scopes (HTTP 403).",
        status=403,
        text="outside the authorized scopes",
    ),
    Rule(
        SOURCE, "auth_expired", "The access token was revoked or is invalid (HTTP 401).", status=401
    ),
    Rule(
        SOURCE,
        "auth_expired",
        "The login is disabled or the account suspended (HTTP 403).",
        status=403,
    ),
    Rule(
        SOURCE,
        "content_rejected",
        "422 Text character limit exceeded.",
        status=422,
        text="character limit",
        remedy="Shorten the post to your instance's character limit.",
    ),
    Rule(SOURCE, "content_rejected", "422 Text can't be blank.", status=422, text="can't be blank"),
    Rule(
        SOURCE,
        "platform_outage",
        "422 Cannot attach files that have not finished processing (try again in a moment).",
        status=422,
        text="finished processing",
    ),
    Rule(
        SOURCE,
        "media_invalid",
        "422 on an attachment: the file's type, size or processing.",
        status=422,
        text="file",
    ),
    Rule(
        SOURCE,
        "media_invalid",
        "422 on an attachment: the media refused.",
        status=422,
        text="media",
    ),
    Rule(SOURCE, "content_rejected", "Any other 422 Validation failed.", status=422),
    Rule(
        SOURCE,
        "content_rejected",
        "Record not found: the status replied to is gone (HTTP 404).",
        status=404,
    ),
    Rule(
        SOURCE, "content_rejected", "Any other refusal of a request (HTTP 4xx).", status=(400, 428)
    ),
    *token_endpoint_rules(SOURCE),  # renewing a token during an attempt
)


NETWORK = Network(
    provider="mastodon",
    name="Mastodon",
    connect_method="oauth",
    settings=("MASTODON_CLIENT_NAME",),
    capabilities=Capabilities(
        text=True,
        links=True,
        images=True,
        alt_text=True,
        video=VideoRules(  # Mastodon 4's defaults (an instance may set others); no length limit
            max_seconds=24 * 3600,
            max_bytes=99 * 1024 * 1024,
            source="https://github.com/mastodon/mastodon/blob/main/app/models/media_attachment.rb",
        ),
        documents=False,
        carousel=False,
        threads=True,
        first_comment=True,  # the author's reply
        title=False,
    ),
    # An account carries its instance's live limits over these (social.md section 1).
    limits=limits(500),
    options=(),
    errors=ERRORS,
    exactly_once="idempotency_key",  # each part's own `Idempotency-Key`
    adapter=MastodonAdapter(),
    scopes=tuple(SCOPES.split()),
    best_times=(
        ("tue", "09:00"),
        ("wed", "09:00"),
        ("thu", "09:00"),
        ("tue", "17:00"),
        ("wed", "17:00"),
    ),
    connect_fields=(("instance", "Your Mastodon server's address is required."),),
)
