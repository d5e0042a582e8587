"""Every error an adapter can meet maps to a category (social.md section 12): the answers
providers.md documents, every error answer the stand-ins give (read from their source), the
adapters' own code tables, every error the adapters and the outbound layer raise themselves
(read from their source); an error no row of `social.outcomes.RULES` maps fails here. The
table in docs/social.md is the code's, row for row."""

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core import outbound
from social import outcomes
from social.providers import (
    bluesky,
    discord,
    google_business,
    linkedin,
    mastodon,
    meta,
    pinterest,
    reddit,
    slack,
    telegram,
    threads,
    tiktok,
    x,
    youtube,
)

ROOT = Path(__file__).resolve().parents[2]
CLASSIFIERS: dict[str, Any] = {
    "linkedin": linkedin.classify,
    "facebook": meta.classify,
    "instagram": meta.classify,
    "bluesky": bluesky.classify,
    "mastodon": mastodon.classify,
    "devto": None,  # the default classification by status fits Forem
    "threads": threads.classify,
    "x": x.classify,
    "linkedin_page": linkedin.classify,
    "youtube": youtube.classify,
    "tiktok": tiktok.classify,
    "pinterest": pinterest.classify,
    "telegram": telegram.classify,
    "discord": discord.classify,
    "google_business": google_business.classify,
    "slack": slack.classify,
    "reddit": reddit.classify,
}
STANDINS = {
    "LinkedInStandIn": ["linkedin", "linkedin_page"],
    "MetaStandIn": ["facebook", "instagram"],
    "BlueskyStandIn": ["bluesky"],
    "MastodonStandIn": ["mastodon"],
    "DevtoStandIn": ["devto"],
    "ThreadsStandIn": ["threads"],
    "XStandIn": ["x"],
    "YouTubeStandIn": ["youtube"],
    "GoogleOAuthStandIn": ["youtube", "google_business"],  # Google's OAuth, the app's two
    "GoogleBusinessStandIn": ["google_business"],
    "TikTokStandIn": ["tiktok"],
    "PinterestStandIn": ["pinterest"],
    "TelegramStandIn": ["telegram"],
    "DiscordStandIn": ["discord"],
    "SlackStandIn": ["slack"],
    "RedditStandIn": ["reddit"],
    "StandIn": list(CLASSIFIERS),  # every stand-in's outage, rate limit and unknown path
}


def answer(status: int, body: Any = None, headers: dict[str, str] | None = None) -> Any:
    content = json.dumps(body).encode() if body is not None else b""
    return outbound.Response(status, content, headers)


def error_of(provider: str, response: Any) -> outbound.OutboundError:
    classify = CLASSIFIERS[provider]
    error = (classify(response) if classify else None) or outbound.classify(response)
    assert error is not None
    return error


def reddit_errors(code: str, message: str, field: str) -> Any:
    """Reddit's refusal of a submit or a comment: HTTP 200, `json.errors`."""
    return answer(200, {"json": {"errors": [[code, message, field]]}})


def google(status: int, reason: str, domain: str = "youtube.video") -> Any:
    error = {"code": status, "message": "m", "errors": [{"domain": domain, "reason": reason}]}
    return answer(status, {"error": error})


def gbp(status: int, name: str, message: str = "m") -> Any:
    return answer(status, {"error": {"code": status, "message": message, "status": name}})


def tiktok_error(status: int, code: str) -> Any:
    return answer(status, {"data": {}, "error": {"code": code, "message": "m", "log_id": "x"}})


def bot_api(status: int, description: str, parameters: dict[str, Any] | None = None) -> Any:
    body = {"ok": False, "error_code": status, "description": description}
    return answer(status, {**body, "parameters": parameters} if parameters else body)


def slack_error(code: str) -> Any:
    return answer(200, {"ok": False, "error": code})


def graph(code: int, status: int = 400, subcode: int | None = None) -> Any:
    error: dict[str, Any] = {"message": "m", "type": "OAuthException", "code": code}
    if subcode is not None:
        error["error_subcode"] = subcode
    return answer(status, {"error": error})


# What providers.md documents, and the answers the real APIs give, each with its category.
DOCUMENTED: list[tuple[str, Any, str]] = [
    # LinkedIn: {message, serviceErrorCode, status}; 401 65602 expired; 429 and 5xx retried.
    ("linkedin", answer(401, {"serviceErrorCode": 65602, "code": "EXPIRED_ACCESS_TOKEN",
                              "status": 401, "message": "expired"}), "auth_expired"),
    ("linkedin", answer(401, {"serviceErrorCode": 65601, "status": 401}), "auth_expired"),
    ("linkedin", answer(401, {"serviceErrorCode": 65600, "status": 401}), "auth_expired"),
    ("linkedin", answer(403, {"serviceErrorCode": 100, "code": "ACCESS_DENIED", "status": 403,
                              "message": "Not enough permissions"}), "permission_missing"),
    ("linkedin", answer(422, {"code": "DUPLICATE_POST", "status": 422,
                              "message": "Content is a duplicate"}), "content_rejected"),
    ("linkedin", answer(400, {"status": 400, "message": "bad"}), "content_rejected"),
    ("linkedin", answer(422, {"status": 422, "code": "FIELD_VALIDATION_FAILED",
                              "message": "/content/media/id: urn:li:document:D41 not found"}),
     "media_invalid"),
    ("linkedin", answer(422, {"status": 422, "code": "FIELD_VALIDATION_FAILED",
                              "message": "/commentary: too long"}), "content_rejected"),
    ("linkedin_page", answer(403, {"serviceErrorCode": 100, "code": "ACCESS_DENIED",
                                   "status": 403}), "permission_missing"),
    ("linkedin", answer(426, {"code": "NONEXISTENT_VERSION", "status": 426}), "internal"),
    ("linkedin", answer(429, {"status": 429}, {"Retry-After": "60"}), "rate_limited"),
    ("linkedin", answer(500, {"status": 500}), "platform_outage"),
    ("linkedin", answer(503, None), "platform_outage"),
    ("linkedin", answer(400, {"error": "invalid_grant",
                              "error_description": "refresh token expired"}), "auth_expired"),
    ("linkedin", answer(401, {"error": "invalid_client"}), "internal"),
    # Graph: retry 1, 2, 4, 17, 32, 613; re-auth 190/102; permanent 10, 100, 200-299, 506.
    ("facebook", graph(190), "auth_expired"),
    ("facebook", graph(190, status=401), "auth_expired"),
    ("facebook", graph(102), "auth_expired"),
    ("facebook", graph(1), "platform_outage"),
    ("facebook", graph(2, status=500), "platform_outage"),
    *[("facebook", graph(code), "rate_limited") for code in (4, 17, 32, 613, 341)],
    ("facebook", graph(10), "permission_missing"),
    *[("facebook", graph(code), "permission_missing") for code in (200, 230, 283, 299)],
    ("facebook", graph(100), "content_rejected"),
    ("facebook", graph(506), "content_rejected"),
    ("facebook", graph(368), "content_rejected"),
    ("instagram", graph(9, status=400, subcode=2207042), "account_limit"),
    ("instagram", graph(100, subcode=2207052), "media_invalid"),
    ("instagram", graph(9004), "media_invalid"),
    ("instagram", graph(9007), "media_invalid"),
    ("instagram", graph(36003), "media_invalid"),
    ("instagram", graph(24), "media_invalid"),
    ("facebook", graph(2635), "internal"),
    ("facebook", answer(502, None), "platform_outage"),
    # Bluesky: XRPC errors by name; expired sessions are HTTP 400.
    ("bluesky", answer(400, {"error": "ExpiredToken", "message": "m"}), "auth_expired"),
    ("bluesky", answer(400, {"error": "InvalidToken"}), "auth_expired"),
    ("bluesky", answer(401, {"error": "AuthenticationRequired"}), "auth_expired"),
    ("bluesky", answer(400, {"error": "AccountTakedown"}), "auth_expired"),
    ("bluesky", answer(429, {"error": "RateLimitExceeded"}, {"RateLimit-Reset": "1"}),
     "rate_limited"),
    ("bluesky", answer(400, {"error": "BlobTooLarge"}), "media_invalid"),
    ("bluesky", answer(400, {"error": "InvalidMimeType"}), "media_invalid"),
    ("bluesky", answer(400, {"error": "InvalidRequest", "message": "Record/text must not be "
                             "longer than 300 graphemes"}), "content_rejected"),
    ("bluesky", answer(400, {"error": "InvalidSwap"}), "content_rejected"),
    ("bluesky", answer(502, {"error": "UpstreamFailure"}), "platform_outage"),
    ("bluesky", answer(500, {"error": "InternalServerError"}), "platform_outage"),
    # Mastodon: 401, 422 validation, 429 with X-RateLimit-Reset.
    ("mastodon", answer(401, {"error": "The access token is invalid"}), "auth_expired"),
    ("mastodon", answer(403, {"error": "This action is outside the authorized scopes"}),
     "permission_missing"),
    ("mastodon", answer(403, {"error": "Your login is currently disabled"}), "auth_expired"),
    ("mastodon", answer(422, {"error": "Validation failed: Text character limit of 500 "
                              "exceeded"}), "content_rejected"),
    ("mastodon", answer(422, {"error": "Validation failed: Text can't be blank"}),
     "content_rejected"),
    ("mastodon", answer(422, {"error": "Cannot attach files that have not finished "
                              "processing. Try again in a moment!"}), "platform_outage"),
    ("mastodon", answer(422, {"error": "Validation failed: File content type is invalid"}),
     "media_invalid"),
    ("mastodon", answer(422, {"error": "Validation failed: Scheduled at is invalid"}),
     "content_rejected"),
    ("mastodon", answer(404, {"error": "Record not found"}), "content_rejected"),
    ("mastodon", answer(429, {"error": "Too many requests"},
                        {"X-RateLimit-Reset": "2030-01-01T00:00:00.000Z"}), "rate_limited"),
    ("mastodon", answer(400, {"error": "invalid_grant"}), "auth_expired"),
    # Forem: 401 unauthorized, 422 {error}, 429 with Retry-After.
    ("devto", answer(401, {"error": "unauthorized", "status": 401}), "auth_expired"),
    ("devto", answer(403, {"error": "forbidden", "status": 403}), "permission_missing"),
    ("devto", answer(422, {"error": "Title can't be blank", "status": 422}), "content_rejected"),
    ("devto", answer(422, {"error": "Canonical url has already been taken", "status": 422}),
     "content_rejected"),
    ("devto", answer(422, {"error": "Main image is invalid", "status": 422}), "media_invalid"),
    ("devto", answer(429, {"error": "Rate limit reached"}, {"Retry-After": "1"}),
     "rate_limited"),
    ("devto", answer(500, None), "platform_outage"),
    # Threads: Graph errors of its own API (networks/threads.md).
    ("threads", graph(190, status=401), "auth_expired"),
    ("threads", graph(102), "auth_expired"),
    ("threads", graph(10), "permission_missing"),
    *[("threads", graph(code), "permission_missing") for code in (200, 299)],
    ("threads", graph(100), "content_rejected"),
    ("threads", graph(4, subcode=2207042), "account_limit"),
    *[("threads", graph(code), "rate_limited") for code in (4, 17, 32, 613)],
    ("threads", answer(429, None, {"Retry-After": "30"}), "rate_limited"),
    ("threads", graph(1), "platform_outage"),
    ("threads", graph(2, status=503), "platform_outage"),
    ("threads", answer(400, {"error": {"message": "m", "code": 100, "is_transient": True}}),
     "platform_outage"),
    ("threads", graph(24, subcode=4279009), "platform_outage"),
    ("threads", graph(24), "media_invalid"),
    ("threads", answer(500, None), "platform_outage"),
    # X: problem bodies {title, detail, type, status}; OAuth {error, error_description}.
    ("x", answer(401, {"title": "Unauthorized", "type": "about:blank", "status": 401,
                       "detail": "Unauthorized"}), "auth_expired"),
    ("x", answer(403, {"title": "Forbidden", "type": "about:blank", "status": 403,
                       "detail": "You are not allowed to create a Tweet with duplicate "
                                 "content."}), "content_rejected"),
    ("x", answer(403, {"title": "Client Forbidden", "type": "https://api.twitter.com/2/problems/"
                       "client-forbidden", "reason": "client-not-enrolled", "status": 403,
                       "detail": "This request must be made using an approved developer "
                                 "account."}), "permission_missing"),
    ("x", answer(400, {"title": "Invalid Request", "detail": "One or more parameters to your "
                       "request was invalid.", "type": "https://api.twitter.com/2/problems/"
                       "invalid-request", "errors": [{"message": "text too long",
                                                      "parameters": {"text": []}}]}),
     "content_rejected"),
    ("x", answer(429, {"title": "Too Many Requests", "detail": "Too Many Requests",
                       "type": "about:blank", "status": 429},
                 {"x-rate-limit-reset": "1900000000"}), "rate_limited"),
    ("x", answer(429, {"title": "UsageCapExceeded", "detail": "Usage cap exceeded: Monthly "
                       "product cap", "type": "https://api.twitter.com/2/problems/usage-capped",
                       "status": 429}), "platform_outage"),
    ("x", answer(400, {"error": "invalid_request", "error_description": "Value passed for the "
                       "token was invalid."}), "content_rejected"),
    ("x", answer(401, {"error": "unauthorized_client",
                       "error_description": "Missing valid authorization header"}), "internal"),
    ("x", answer(503, None), "platform_outage"),
    # YouTube: Google's {error: {code, message, errors: [{domain, reason}]}}, by reason.
    ("youtube", google(403, "quotaExceeded", "youtube.quota"), "account_limit"),
    ("youtube", google(400, "uploadLimitExceeded"), "account_limit"),
    ("youtube", google(403, "rateLimitExceeded", "usageLimits"), "rate_limited"),
    ("youtube", google(403, "userRateLimitExceeded", "usageLimits"), "rate_limited"),
    ("youtube", answer(429, None, {"Retry-After": "30"}), "rate_limited"),
    ("youtube", google(401, "authError", "global"), "auth_expired"),
    ("youtube", google(401, "youtubeSignupRequired"), "permission_missing"),
    ("youtube", google(403, "forbidden"), "permission_missing"),
    ("youtube", google(403, "insufficientPermissions", "global"), "permission_missing"),
    *[("youtube", google(400, reason), "content_rejected")
      for reason in ("invalidTitle", "invalidDescription", "invalidTags", "invalidCategoryId",
                     "invalidVideoMetadata", "mediaBodyRequired")],
    ("youtube", google(500, "backendError", "global"), "platform_outage"),
    ("youtube", google(503, "backendError", "global"), "platform_outage"),
    ("youtube", answer(400, {"error": "invalid_grant", "error_description": "revoked"}),
     "auth_expired"),
    ("youtube", answer(401, {"error": "invalid_client"}), "internal"),
    # TikTok: {data, error: {code, message, log_id}} by code, whatever the status.
    *[("tiktok", tiktok_error(status, code), category) for status, code, category in (
        (401, "access_token_invalid", "auth_expired"),
        (401, "scope_not_authorized", "permission_missing"),
        (401, "scope_permission_missed", "permission_missing"),
        (403, "unaudited_client_can_only_post_to_private_accounts", "permission_missing"),
        (403, "url_ownership_unverified", "permission_missing"),
        (400, "privacy_level_option_mismatch", "permission_missing"),
        (403, "spam_risk_user_banned_from_posting", "permission_missing"),
        (403, "spam_risk_too_many_posts", "account_limit"),
        (403, "reached_active_user_cap", "account_limit"),
        (429, "rate_limit_exceeded", "rate_limited"),
        (400, "invalid_params", "content_rejected"),
        (400, "invalid_file_upload", "media_invalid"),
        (500, "internal_error", "platform_outage"),
        (200, "invalid_params", "content_rejected"),
    )],
    ("tiktok", answer(200, {"error": "invalid_grant", "error_description": "expired"}),
     "auth_expired"),
    ("tiktok", answer(401, {"error": "invalid_client", "error_description": "x"}), "internal"),
    ("tiktok", answer(502, None), "platform_outage"),
    # Pinterest: API v5's {code, message}.
    ("pinterest", answer(401, {"code": 2, "message": "Authentication failed."}), "auth_expired"),
    ("pinterest", answer(403, {"code": 29, "message": "You are not permitted to access that "
                               "resource."}), "permission_missing"),
    ("pinterest", answer(404, {"code": 40, "message": "Board not found."}), "permission_missing"),
    ("pinterest", answer(400, {"code": 1, "message": "Invalid parameters."}), "content_rejected"),
    ("pinterest", answer(400, {"code": 1, "message": "Invalid image url."}), "media_invalid"),
    ("pinterest", answer(429, {"code": 8, "message": "Rate limit exceeded."},
                         {"X-RateLimit-Reset": "30"}), "rate_limited"),
    ("pinterest", answer(500, {"code": 0, "message": "Internal error."}), "platform_outage"),
    ("pinterest", answer(503, None), "platform_outage"),
    # Telegram: {ok: false, error_code, description, parameters?} (networks/telegram.md).
    ("telegram", bot_api(401, "Unauthorized"), "auth_expired"),
    ("telegram", bot_api(404, "Not Found"), "auth_expired"),
    *[("telegram", bot_api(403, said), "permission_missing")
      for said in ("Forbidden: bot is not a member of the channel chat",
                   "Forbidden: bot was kicked from the channel chat",
                   "Forbidden: need administrator rights in the channel chat")],
    ("telegram", bot_api(400, "Bad Request: chat not found"), "permission_missing"),
    ("telegram", bot_api(400, "Bad Request: not enough rights to send text messages to the chat"),
     "permission_missing"),
    ("telegram", bot_api(400, "Bad Request: group chat was upgraded to a supergroup chat",
                         {"migrate_to_chat_id": -1001}), "platform_outage"),
    *[("telegram", bot_api(400, f"Bad Request: {said}"), "content_rejected")
      for said in ("message is too long", "message caption is too long",
                   "message to be replied not found", "text must be non-empty")],
    *[("telegram", bot_api(400, f"Bad Request: {said}"), "media_invalid")
      for said in ("wrong file identifier/HTTP URL specified", "IMAGE_PROCESS_FAILED",
                   "PHOTO_INVALID_DIMENSIONS")],
    ("telegram", answer(413, None), "media_invalid"),
    ("telegram", bot_api(413, "Request Entity Too Large"), "media_invalid"),
    ("telegram", bot_api(429, "Too Many Requests: retry after 7", {"retry_after": 7}),
     "rate_limited"),
    ("telegram", bot_api(502, "Bad Gateway"), "platform_outage"),
    ("telegram", bot_api(500, "Internal Server Error"), "platform_outage"),
    # Discord: {message, code, errors?}, by code; OAuth's {error} at the token endpoint.
    ("discord", answer(404, {"message": "Unknown Webhook", "code": 10015}), "auth_expired"),
    ("discord", answer(401, {"message": "Invalid Webhook Token", "code": 50027}), "auth_expired"),
    ("discord", answer(403, {"message": "Missing Permissions", "code": 50013}),
     "permission_missing"),
    ("discord", answer(403, {"message": "Missing Access", "code": 50001}), "permission_missing"),
    ("discord", answer(400, {"message": "Invalid Form Body", "code": 50035, "errors": {"content":
        {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Too long."}]}}}),
     "content_rejected"),
    ("discord", answer(400, {"message": "Cannot send an empty message", "code": 50006}),
     "content_rejected"),
    ("discord", answer(400, {"message": "Forum needs thread_name", "code": 220001}),
     "content_rejected"),
    ("discord", answer(413, {"message": "Request entity too large", "code": 40005}),
     "media_invalid"),
    ("discord", answer(413, None), "media_invalid"),
    ("discord", answer(429, {"message": "You are being rate limited.", "retry_after": 1.5,
                             "global": False}, {"Retry-After": "2"}), "rate_limited"),
    ("discord", answer(404, {"message": "Unknown Message", "code": 10008}), "content_rejected"),
    ("discord", answer(500, None), "platform_outage"),
    ("discord", answer(502, None), "platform_outage"),
    ("discord", answer(400, {"error": "invalid_grant"}), "auth_expired"),
    ("discord", answer(401, {"error": "invalid_client"}), "internal"),
    # Google Business Profile: Google's {error: {code, message, status, details}}.
    ("google_business", gbp(401, "UNAUTHENTICATED"), "auth_expired"),
    ("google_business", gbp(403, "PERMISSION_DENIED"), "permission_missing"),
    ("google_business", gbp(404, "NOT_FOUND"), "permission_missing"),
    ("google_business", gbp(400, "INVALID_ARGUMENT", "Invalid media: the photo could not be "
                            "fetched."), "media_invalid"),
    ("google_business", gbp(400, "INVALID_ARGUMENT", "Request contains an invalid argument."),
     "content_rejected"),
    ("google_business", answer(429, {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                                               "message": "Quota exceeded"}},
                               {"Retry-After": "30"}), "rate_limited"),
    ("google_business", gbp(500, "INTERNAL"), "platform_outage"),
    ("google_business", gbp(503, "UNAVAILABLE"), "platform_outage"),
    ("google_business", answer(400, {"error": "invalid_grant", "error_description": "revoked"}),
     "auth_expired"),
    ("google_business", answer(401, {"error": "invalid_client"}), "internal"),
    # Slack: HTTP 200 {ok: false, error}, by its code; 429 ratelimited with Retry-After; 5xx.
    *[("slack", slack_error(code), "auth_expired")
      for code in ("invalid_auth", "not_authed", "account_inactive", "token_revoked",
                   "token_expired", "invalid_refresh_token", "invalid_code",
                   "code_already_used", "bad_redirect_uri")],
    *[("slack", slack_error(code), "permission_missing")
      for code in ("channel_not_found", "not_in_channel", "is_archived", "missing_scope",
                   "restricted_action", "ekm_access_denied")],
    *[("slack", slack_error(code), "content_rejected")
      for code in ("msg_too_long", "no_text", "invalid_metadata_format", "metadata_too_large",
                   "thread_not_found", "invalid_arguments", "message_not_found")],
    *[("slack", slack_error(code), "media_invalid")
      for code in ("file_upload_size_restricted", "file_type_not_allowed",
                   "file_uploads_disabled", "alt_txt_too_large")],
    *[("slack", slack_error(code), "platform_outage")
      for code in ("internal_error", "fatal_error", "service_unavailable", "request_timeout")],
    ("slack", slack_error("invalid_client_id"), "internal"),
    ("slack", slack_error("bad_client_secret"), "internal"),
    ("slack", answer(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "30"}),
     "rate_limited"),
    ("slack", answer(503, {"ok": False, "error": "service_unavailable"}), "platform_outage"),
    ("slack", answer(500, None), "platform_outage"),
    # Reddit: /api/submit's json.errors with HTTP 200, by code; the token endpoint's {error}
    # with HTTP 200 or 400; the statuses.
    ("reddit", reddit_errors("RATELIMIT", "Looks like you've been doing that a lot. Take a "
                             "break for 9 minutes before trying again.", "ratelimit"),
     "rate_limited"),
    *[("reddit", reddit_errors(code, "refused", "sr"), "permission_missing")
      for code in ("SUBREDDIT_NOEXIST", "SUBREDDIT_NOTALLOWED", "SUBREDDIT_NOTALLOWED_BANNED",
                   "USER_REQUIRED")],
    *[("reddit", reddit_errors(code, "refused", "title"), "content_rejected")
      for code in ("NO_TEXT", "TOO_LONG", "TOO_SHORT", "NO_SELFS", "NO_LINKS", "BAD_URL",
                   "ALREADY_SUB", "SUBMIT_VALIDATION_FLAIR_REQUIRED",
                   "SUBMIT_VALIDATION_TITLE_REGEX", "INVALID_OPTION", "NO_IMAGES",
                   "SOMETHING_NEW")],
    ("reddit", answer(200, {"error": "invalid_grant"}), "auth_expired"),
    ("reddit", answer(400, {"error": "invalid_grant"}), "auth_expired"),
    ("reddit", answer(401, {"message": "Unauthorized", "error": 401}), "auth_expired"),
    ("reddit", answer(403, {"message": "Forbidden", "error": 403}), "permission_missing"),
    ("reddit", answer(404, {"message": "Not Found", "error": 404}), "content_rejected"),
    ("reddit", answer(429, {"message": "Too Many Requests", "error": 429},
                      {"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": "120"}), "rate_limited"),
    ("reddit", answer(500, None), "platform_outage"),
    ("reddit", answer(502, None), "platform_outage"),
    ("reddit", answer(503, {"message": "Service Unavailable", "error": 503}), "platform_outage"),
]  # fmt: skip


@pytest.mark.parametrize(("provider", "response", "category"), DOCUMENTED)
def test_each_documented_answer_has_its_category(provider, response, category):
    error = error_of(provider, response)
    rule = outcomes.rule_for(provider, error)
    assert rule is not None, (provider, error.message, error.excerpt)
    assert rule.category == category, (provider, error.excerpt, rule)


# --- The stand-ins' own error answers, read from their source ---------------------------------


def _value(node: ast.AST) -> Any:
    """A literal from the stand-ins' source; what is computed there (an f-string's
    expressions, a name) becomes a plausible string."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values, strict=True) if k}
    if isinstance(node, ast.List | ast.Tuple):
        return [_value(item) for item in node.elts]
    if isinstance(node, ast.JoinedStr):
        return "".join(str(_value(part)) for part in node.values)
    if isinstance(node, ast.FormattedValue):
        return "x"
    return "x"


# The stand-ins' modules, and the helpers they build error bodies with: (status, body) of a
# call's arguments.
STANDIN_SOURCES = (
    "tests/social/standins.py",
    "tests/social/threads_standin.py",
    "tests/social/x_standin.py",
    "tests/social/youtube_standin.py",
    "tests/social/google_oauth_standin.py",
    "tests/social/google_business_standin.py",
    "tests/social/tiktok_standin.py",
    "tests/social/pinterest_standin.py",
    "tests/social/telegram_standin.py",
    "tests/social/discord_standin.py",
    "tests/social/slack_standin.py",
    "tests/social/reddit_standin.py",
)
PROBLEMS: dict[str, Any] = {
    "problem": lambda args: (int(args[0]), {"title": args[1], "detail": args[2],
                                            "type": args[3] if len(args) > 3 else "about:blank",
                                            "status": args[0]}),
    "invalid": lambda args: (400, {"title": "Invalid Request", "detail": args[0],
                                   "type": "https://api.twitter.com/2/problems/invalid-request",
                                   "errors": [{"message": args[0]}]}),
    "_tiktok_error": lambda args: (int(args[0]), {"data": {}, "error": {
        "code": args[1], "message": args[2], "log_id": "x"}}),
    "_pin_error": lambda args: (int(args[0]), {"code": args[1], "message": args[2]}),
    "_gbp_error": lambda args: (int(args[0]), {"error": {"code": args[0], "message": args[1],
                                                         "status": "INVALID_ARGUMENT"}}),
    "_invalid": lambda args: (400, {"message": "Invalid Form Body", "code": 50035}),  # Discord
    "_slack_error": lambda args: (200, {"ok": False, "error": args[0]}),  # Slack: HTTP 200
    "bot_api_error": lambda args: (int(args[0]), {"ok": False, "error_code": args[0],
                                                  "description": args[1],
                                                  "parameters": args[2] if len(args) > 2 else {}}),
}  # fmt: skip


def standin_answers() -> Iterator[tuple[str, str, int, Any, dict[str, str]]]:
    """(stand-in, provider, status, body, headers) of every error answer a stand-in gives."""
    classes = [
        node
        for source in STANDIN_SOURCES
        for node in ast.parse((ROOT / source).read_text()).body
        if isinstance(node, ast.ClassDef)
    ]
    for cls in classes:
        for provider in STANDINS.get(cls.name, []):
            for node in ast.walk(cls):
                if isinstance(node, ast.Tuple) and len(node.elts) == 3:
                    status, body, headers = node.elts
                    if (
                        isinstance(status, ast.Constant)
                        and isinstance(status.value, int)
                        and status.value >= 400
                        and isinstance(body, ast.Dict)
                    ):
                        yield cls.name, provider, status.value, _value(body), _value(headers)
                elif (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "_graph_error"
                ):
                    args = [_value(arg) for arg in node.args]
                    graph_body = {"error": {"message": args[1], "type": "OAuthException",
                                            "code": args[0], "fbtrace_id": "x"}}  # fmt: skip
                    yield cls.name, provider, int(args[2] if len(args) > 2 else 400), graph_body, {}
                elif (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and (node.func.id in PROBLEMS)
                ):
                    status, body = PROBLEMS[node.func.id]([_value(arg) for arg in node.args])
                    yield cls.name, provider, status, body, {}
                elif (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "_google_error"
                ):
                    status, reason, said = (_value(arg) for arg in node.args[:3])
                    errors = [{"reason": reason, "message": said}]
                    google = {"error": {"code": status, "message": said, "errors": errors}}
                    yield cls.name, provider, int(status), google, {}


def test_the_walk_reads_every_stand_in():
    seen = {(name, provider) for name, provider, *_ in standin_answers()}
    assert {name for name, _ in seen} == set(STANDINS)
    assert len(list(standin_answers())) > 50


@pytest.mark.parametrize(
    ("standin", "provider", "status", "body", "headers"),
    list(standin_answers()),
    ids=lambda value: str(value)[:40],
)
def test_every_error_a_stand_in_answers_is_mapped(standin, provider, status, body, headers):
    headers = headers if isinstance(headers, dict) else {}
    error = error_of(provider, answer(status, body, {k: str(v) for k, v in headers.items()}))
    assert outcomes.rule_for(provider, error) is not None, (standin, status, body)


# --- The adapters' own tables -----------------------------------------------------------------


def test_every_code_an_adapter_names_has_a_row_of_its_own():
    for code in meta.TRANSIENT_CODES | meta.AUTHENTICATION_CODES:
        rule = outcomes.rule_for("facebook", error_of("facebook", graph(code)))
        assert rule is not None, code
        assert (rule.source, bool(rule.code)) == ("meta", True), code
    for name in bluesky.AUTH_ERRORS:
        rule = outcomes.rule_for("bluesky", error_of("bluesky", answer(400, {"error": name})))
        assert rule is not None, name
        assert rule.code == name
    for code in threads.TRANSIENT_CODES | threads.AUTHENTICATION_CODES:
        rule = outcomes.rule_for("threads", error_of("threads", graph(code)))
        assert rule is not None, code
        assert (rule.source, bool(rule.code)) == ("threads", True), code
    body = {"serviceErrorCode": linkedin.EXPIRED_TOKEN, "status": 401}
    rule = outcomes.rule_for("linkedin", error_of("linkedin", answer(401, body)))
    assert rule is not None
    assert rule.code == str(linkedin.EXPIRED_TOKEN)


# --- What the adapters and the outbound layer raise themselves, read from their source -------

ERRORS = {
    "TransientError": outbound.TransientError,
    "PermanentError": outbound.PermanentError,
    "AuthenticationError": outbound.AuthenticationError,
    "UnsafeURL": outbound.UnsafeURL,
}
SOURCES = [
    *sorted((ROOT / "social/providers").rglob("*.py")),
    *(ROOT / f"social/publishing/services/{name}.py" for name in ("attempts", "calls", "settle")),
    ROOT / "core/outbound.py",
]


def _messages(node: ast.AST) -> list[str]:
    if isinstance(node, ast.IfExp):
        return _messages(node.body) + _messages(node.orelse)
    if isinstance(node, ast.Constant | ast.JoinedStr):
        return [str(_value(node))]
    return []


def raised_errors() -> Iterator[tuple[str, str, type[outbound.OutboundError], bool]]:
    """(file, message, class, maybe delivered) of every error the code raises with a message
    of its own, outside the classifiers of HTTP answers (walked above)."""
    for path in SOURCES:
        tree = ast.parse(path.read_text())
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef) or function.name.startswith("classify"):
                continue
            for node in ast.walk(function):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
                if name not in ERRORS:
                    continue
                maybe = any(
                    k.arg == "maybe_delivered"
                    and isinstance(k.value, ast.Constant)
                    and k.value.value
                    for k in node.keywords
                )
                for message in _messages(node.args[0]):
                    yield path.relative_to(ROOT).as_posix(), message, ERRORS[name], bool(maybe)


def test_the_walk_finds_the_raised_errors():
    found = {(path, message) for path, message, _, _ in raised_errors()}
    assert ("core/outbound.py", "The server did not answer in time.") in found
    assert ("social/providers/meta/instagram.py", "Instagram needs an image.") in found
    assert len(found) > 25


@pytest.mark.parametrize(
    ("path", "message", "kind", "maybe"), sorted(set(raised_errors()), key=str), ids=str
)
def test_every_error_raised_in_code_is_mapped(path, message, kind, maybe):
    error = kind(message, maybe_delivered=maybe)
    for provider in CLASSIFIERS:
        assert outcomes.rule_for(provider, error) is not None, (path, message)


# --- Timeouts and lost answers, as the outbound layer raises them -----------------------------


@pytest.mark.parametrize(
    ("error", "category"),
    [
        (outbound.TransientError("The server could not be reached in time.", timed_out=True),
         "platform_outage"),
        (outbound.TransientError("The server did not answer in time.", maybe_delivered=True,
                                 timed_out=True), "platform_outage"),
        (outbound.TransientError("The connection broke while the server answered.",
                                 maybe_delivered=True), "unconfirmed"),
        (outbound.TransientError("The server could not be reached.", maybe_delivered=True),
         "unconfirmed"),
        (outbound.TransientError("The server could not be reached."), "platform_outage"),
        (outbound.UnsafeURL("The URL must use https."), "media_invalid"),
        (outbound.TransientError("Unexpected error (KeyError).", maybe_delivered=True),
         "internal"),
    ],
)  # fmt: skip
def test_timeouts_and_lost_answers(error, category):
    rule = outcomes.rule_for("mastodon", error)
    assert rule is not None
    assert rule.category == category


# --- The platform's own answer ------------------------------------------------------------------


def test_the_platforms_answer_keeps_its_error_fields_only():
    body = {"error": {"message": "Invalid OAuth access token.", "type": "OAuthException",
                      "code": 190, "error_subcode": 463, "fbtrace_id": "AbC"}}  # fmt: skip
    error = error_of("facebook", answer(400, body))
    assert outcomes.platform_answer(error) == {
        "status": 400, "code": "190", "subcode": "463", "message": "Invalid OAuth access token."
    }  # fmt: skip
    linkedin_error = error_of("linkedin", answer(401, {"serviceErrorCode": 65602, "status": 401,
                                                        "message": "expired"}))  # fmt: skip
    assert outcomes.platform_answer(linkedin_error) == {
        "status": 401, "code": "65602", "message": "expired"
    }  # fmt: skip
    masto = error_of("mastodon", answer(422, {"error": "Validation failed: Text can't be blank"}))
    assert outcomes.platform_answer(masto) == {
        "status": 422, "code": None, "message": "Validation failed: Text can't be blank"
    }  # fmt: skip
    token = error_of("linkedin", answer(400, {"error": "invalid_grant", "access_token": "SECRET",
                                              "error_description": "expired"}))  # fmt: skip
    assert "SECRET" not in json.dumps(outcomes.platform_answer(token))
    timeout = outbound.TransientError("The server did not answer in time.", timed_out=True)
    assert outcomes.platform_answer(timeout) is None


def test_every_category_has_its_remedy_and_every_rule_a_known_category():
    assert set(outcomes.REMEDIES) == set(outcomes.CATEGORIES)
    assert {rule.category for rule in outcomes.RULES} == set(outcomes.CATEGORIES)


def test_the_documented_table_is_the_codes():
    text = (ROOT / "docs/social.md").read_text()
    missing = [row for row in outcomes.catalog_rows() if row not in text]
    assert missing == [], "docs/social.md: paste social.outcomes.catalog_rows()"
