"""Threads: a profile, by OAuth with Meta's Threads app (networks/threads.md)."""

from typing import Any

from social.networks.base import Capabilities, Network, Option, Rule, VideoRules, limits
from social.providers.threads import SCOPES, ThreadsAdapter

SOURCE = "threads"


def _graph(code: str, category: str, meaning: str, **more: Any) -> Rule:
    return Rule(SOURCE, category, meaning, code=code, **more)


# Graph errors, named by `error.code` (and `error_subcode`).
ERRORS: tuple[Rule, ...] = (
    Rule(
        SOURCE,
        "platform_outage",
        "A temporary error (`is_transient: true`, whatever its code).",
        text="reports a temporary error",
    ),
    _graph("190", "auth_expired", "Access token invalid, expired or revoked (OAuthException)."),
    _graph("102", "auth_expired", "API session invalid: the login must be renewed."),
    _graph(
        "4",
        "account_limit",
        "The 250 API posts a day are used up (read before publishing, so rarely met).",
        subcode="2207042",
        remedy="Nothing to do: Threads took its maximum of posts for today; this one waits "
        "for the next window.",
    ),
    _graph("4", "rate_limited", "Application request limit reached."),
    _graph("17", "rate_limited", "User request limit reached."),
    _graph("32", "rate_limited", "Page request limit reached."),
    _graph("613", "rate_limited", "Calls to this API exceeded the rate limit."),
    _graph("1", "platform_outage", "Unknown error (temporary, retried)."),
    _graph("2", "platform_outage", "Service temporarily unavailable."),
    _graph("10", "permission_missing", "The token lacks a permission for this action."),
    _graph(
        "200-299",
        "permission_missing",
        "Permission errors (#200 to #299): a permission the token lacks.",
    ),
    _graph(
        "24",
        "platform_outage",
        "The container is not ready to publish yet (retried; unverified subcode).",
        subcode="4279009",
    ),
    _graph("24", "media_invalid", "The media container was not found."),
    _graph(
        "100",
        "content_rejected",
        "Invalid parameter: the post's fields, too long a text, more than 5 links, an unknown "
        "option.",
    ),
    Rule(SOURCE, "auth_expired", "Any other refused token (HTTP 401).", status=401),
    Rule(
        SOURCE,
        "content_rejected",
        "Any other Graph error of a request (HTTP 4xx).",
        status=(400, 428),
    ),
)


NETWORK = Network(
    provider="threads",
    name="Threads",
    connect_method="oauth",
    settings=(
        "THREADS_APP_ID",
        "THREADS_APP_SECRET",
        "THREADS_AUTH_URL",
        "THREADS_GRAPH_URL",
        "THREADS_GRAPH_VERSION",
    ),
    capabilities=Capabilities(
        text=True,
        links=True,  # in the text: the first URL becomes the preview
        images=True,
        alt_text=True,
        video=VideoRules(  # fetched by URL; in a carousel with images too
            max_seconds=300,
            max_bytes=1024 * 1024 * 1024,
            carousel=True,
            by_url=True,
            source="https://developers.facebook.com/docs/threads/overview#video-specifications",
        ),
        documents=False,
        carousel=True,  # 2 to 20 images and videos, one post
        threads=True,  # replies, each to the part before
        first_comment=True,  # the author's reply to the post
        title=False,
    ),
    limits=limits(500, max_media=20),
    options=(
        Option(
            "replyControl",
            str,
            "Who may reply to the post.",
            choices=(
                "everyone",
                "accounts_you_follow",
                "mentioned_only",
                "parent_post_author_only",
                "followers_only",
            ),
        ),
        Option(
            "topicTag",
            str,
            "The post's topic: 1 to 50 characters, without '.' or '&'.",
            pattern=r"[^.&]{1,50}",
        ),
    ),
    errors=ERRORS,
    # The container kept before it is published, its status read after a lost answer, the
    # post looked up by its text when the status says PUBLISHED.
    exactly_once="lookup",
    adapter=ThreadsAdapter(),
    scopes=tuple(SCOPES.split(",")),
    best_times=(
        ("tue", "08:00"),
        ("wed", "08:00"),
        ("thu", "08:00"),
        ("wed", "12:00"),
        ("fri", "09:00"),
    ),
    renews_itself=True,  # the 60-day token is renewed while it is used
)
