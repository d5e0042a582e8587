"""What Facebook Pages and Instagram share: Meta's app settings and the Graph API's errors."""

from typing import Any

from social.networks.base import Rule

SOURCE = "meta"
SETTINGS = (
    "FACEBOOK_APP_ID",
    "FACEBOOK_APP_SECRET",
    "FACEBOOK_DIALOG_URL",
    "FACEBOOK_GRAPH_URL",
    "FACEBOOK_GRAPH_VERSION",
)


def _graph(code: str, category: str, meaning: str, **more: Any) -> Rule:
    return Rule(SOURCE, category, meaning, code=code, **more)


# Graph errors are named by `error.code` (and `error_subcode`).
ERRORS: tuple[Rule, ...] = (
    _graph("190", "auth_expired", "Access token invalid, expired or revoked (OAuthException)."),
    _graph("102", "auth_expired", "API session invalid: the login must be renewed."),
    _graph(
        "9",
        "account_limit",
        "Instagram's publishing limit: too many posts in 24 hours.",
        subcode="2207042",
        remedy="Nothing to do: Instagram took its maximum of posts for today; this one "
        "waits for tomorrow's window.",
    ),
    _graph("4", "rate_limited", "Application request limit reached."),
    _graph("17", "rate_limited", "User request limit reached."),
    _graph("32", "rate_limited", "Page request limit reached."),
    _graph("613", "rate_limited", "Calls to this API exceeded the rate limit."),
    _graph("341", "rate_limited", "Application limit reached (temporary)."),
    _graph("1", "platform_outage", "Unknown Graph error (temporary, retried)."),
    _graph("2", "platform_outage", "Graph service temporarily unavailable."),
    _graph("10", "permission_missing", "The app lacks a permission for this action."),
    _graph(
        "200-299",
        "permission_missing",
        "Permission errors (#200 to #299): a permission the page token lacks.",
    ),
    _graph("368", "content_rejected", "Temporarily blocked for policy violations."),
    _graph(
        "506",
        "content_rejected",
        "Duplicate post: the same text was just published.",
        remedy="Change the text: Facebook refuses a copy of a recent post.",
    ),
    _graph(
        "100", "media_invalid", "The media could not be fetched from its URL.", subcode="2207052"
    ),
    _graph(
        "100",
        "content_rejected",
        "Invalid parameter (the post's fields, or an object that does not exist).",
    ),
    _graph("9004", "media_invalid", "Only photos or videos are accepted as media."),
    _graph("9007", "media_invalid", "The media container is not ready or not available."),
    _graph("36003", "media_invalid", "The image's aspect ratio is not supported."),
    _graph("24", "media_invalid", "The media container was not found."),
    _graph(
        "2635",
        "internal",
        "This Graph API version is deprecated (an operator setting).",
        remedy="Contact support: this server calls a retired Graph API version.",
    ),
    _graph(
        "101",
        "internal",
        "The app id is invalid (an operator setting).",
        remedy="Contact support: this server's Meta app is misconfigured.",
    ),
    Rule(
        "meta",
        "content_rejected",
        "Any other Graph error of a request (HTTP 4xx).",
        status=(400, 428),
    ),
)
