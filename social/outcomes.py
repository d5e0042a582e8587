"""What an outcome means to the user (social.md section 12): every error an adapter can meet,
mapped once to a category, a remedy and whether trying again can help; the platform's own
answer kept beside it (never credentials).

An attempt's error is categorized where it happens (`attempt_error`, called when the attempt's
result is recorded: the full error is at hand there, its class, its answer's body) and the
category stored in the record's history entry; a record's `error` object is built from what
the record stores (social.error_objects). Each network's rows are in its module
(social.networks), the rows all share here; `RULES`, all of them, is the table
`docs/social.md` shows, row for row (`catalog_rows`); a test walks each adapter's known errors
and fails on one no row maps.
"""

import json
import re
from collections.abc import Iterator
from typing import Any

from core import outbound
from social.networks import NETWORKS
from social.networks.base import Rule

CATEGORIES = (
    "auth_expired",
    "permission_missing",
    "content_rejected",
    "media_invalid",
    "rate_limited",
    "platform_outage",
    "unconfirmed",
    "account_limit",
    "internal",
)
# Trying the same post again cannot succeed: the content or its media must change first.
NOT_RETRYABLE = frozenset({"content_rejected", "media_invalid"})

# What the user can do, per category: {name} is the platform's name. `waiting`: the record
# will be tried again by itself (a retry is scheduled, or it waits for its cap).
REMEDIES = {
    "auth_expired": "Reconnect your {name} account, then retry the post.",
    "permission_missing": "Reconnect {name} and grant every permission it asks for (publishing "
    "included), then retry the post.",
    "content_rejected": "Edit the post to meet {name}'s rules (its message says which), then "
    "publish it again.",
    "media_invalid": "Replace or fix the attached media ({name} could not use it), then publish "
    "the post again.",
    "rate_limited": "Retry the post later: {name} limits how often an account may post.",
    "platform_outage": "Retry the post once {name} is back: it was unavailable or did not answer.",
    "unconfirmed": "Check your {name} profile: if the post is there, resolve it as published "
    "with its URL; if not, resolve it with retry.",
    "account_limit": "Nothing to do: the post waits for {name}'s next daily window.",
    "internal": "Retry the post; if it fails again, contact support.",
}
WAITING_REMEDIES = {
    "rate_limited": "Nothing to do: we try again when {name}'s limit resets.",
    "platform_outage": "Nothing to do: we try again shortly.",
    "unconfirmed": "Nothing to do: we look the post up on {name} before trying again, so it "
    "is never published twice.",
    "auth_expired": "Reconnect your {name} account before the next attempt.",
    "permission_missing": "Reconnect {name} with every permission before the next attempt.",
}
# A record's error code (social.md section 4) for an attempt's category.
CODES = {
    "auth_expired": "account_expired",
    "permission_missing": "provider_rejected",
    "content_rejected": "provider_rejected",
    "media_invalid": "provider_rejected",
    "rate_limited": "provider_unavailable",
    "platform_outage": "provider_unavailable",
    "unconfirmed": "unconfirmed",
    "account_limit": "daily_cap_reached",
    "internal": "internal_error",
}
# Where an error comes from beside the network's own answers: the adapters' own refusals (no
# HTTP answer), then the outbound layer.
OURS = "ours"
OUTBOUND = "outbound"


# The rows every network shares; each network's own are in its module (social.networks).
SHARED: tuple[Rule, ...] = (
    # --- The adapters' own refusals and what they make of odd answers (no HTTP status) -------
    Rule(
        OURS,
        "media_invalid",
        "The platform could not process the video (its reason).",
        text="could not process the video",
    ),
    Rule(
        OURS,
        "platform_outage",
        "The platform did not finish processing the video in time.",
        text="did not finish processing the video",
    ),
    Rule(
        OURS,
        "media_invalid",
        "LinkedIn could not process the document (PROCESSING_FAILED, its reason).",
        text="could not process the document",
    ),
    Rule(
        OURS,
        "platform_outage",
        "The platform did not finish processing the document in time.",
        text="did not finish processing the document",
    ),
    Rule(
        OURS,
        "permission_missing",
        "A LinkedIn page's member lost the page's approved ADMINISTRATOR role (health).",
        text="no longer an administrator of the linkedin page",
        problem="not_page_admin",
        remedy="Ask a super admin of the LinkedIn page to restore your administrator role, "
        "then reconnect the page.",
    ),
    Rule(
        OURS,
        "media_invalid",
        "Instagram could not process the image (ERROR, EXPIRED).",
        text="could not process the image",
    ),
    Rule(
        OURS,
        "platform_outage",
        "The platform is still processing the media (retried).",
        text="still processing",
    ),
    Rule(OURS, "media_invalid", "The media file is too large to publish.", text="too large"),
    Rule(
        OURS,
        "account_limit",
        "The platform's own daily quota of the account is used up (read before the create; "
        "the rest of a thread waits for it).",
        text="daily quota is used up",
    ),
    Rule(
        OURS,
        "media_invalid",
        "The network needs the video's bytes (a hosted video).",
        text="needs the video's bytes",
    ),
    Rule(OURS, "media_invalid", "Instagram needs an image.", text="needs an image"),
    Rule(
        OURS,
        "permission_missing",
        "YouTube: the Google account has no channel (youtubeSignupRequired).",
        text="has no channel",
    ),
    Rule(OURS, "content_rejected", "The network has no threads.", text="has no threads"),
    Rule(
        OURS,
        "content_rejected",
        "The network takes no first comment.",
        text="takes no first comment",
    ),
    Rule(OURS, "media_invalid", "The network takes no video.", text="takes no video"),
    Rule(
        OURS,
        "auth_expired",
        "The platform refused to renew the access token (its refresh token is no longer valid).",
        text="refused to renew the access token",
    ),
    Rule(
        OURS,
        "unconfirmed",
        "The platform did not name what it created (maybe published).",
        text="did not name the created",
    ),
    Rule(
        OURS,
        "unconfirmed",
        "A success whose answer could not be read (maybe published).",
        text="answer could not be read",
    ),
    Rule(
        OURS,
        "unconfirmed",
        "The outcome could not be established (the last attempt's, or "
        "a lookup whose pages did not reach back to the attempt).",
        text="outcome could not be established",
    ),
    Rule(
        OURS,
        "internal",
        "The last attempt stopped before its result was recorded, and the "
        "post is not on the platform.",
        text="stopped before its result was recorded",
    ),
    Rule(
        OURS,
        "platform_outage",
        "An answer of a shape the platform's API does not document.",
        text="shape its api does not document",
    ),
    Rule(
        OURS,
        "content_rejected",
        "DEV: the article was deleted there (its counters).",
        text="no longer among",
    ),
    Rule(OURS, "internal", "An unexpected error in our code (logged).", text="unexpected error"),
    Rule(
        OURS,
        "unconfirmed",
        "Nothing was recorded for the attempt (maybe published).",
        text="no result",
    ),
    # --- The outbound layer: timeouts, lost answers, refusals by status -----------------------
    Rule(
        OUTBOUND,
        "platform_outage",
        "Timeout before sending: nothing reached the platform.",
        text="could not be reached in time",
    ),
    Rule(
        OUTBOUND,
        "platform_outage",
        "Timeout after sending: no answer in time (looked up before the next attempt).",
        text="did not answer in time",
    ),
    Rule(
        OUTBOUND,
        "platform_outage",
        "The answer did not finish in time (looked up before the next attempt).",
        text="did not finish answering in time",
    ),
    Rule(
        OUTBOUND,
        "unconfirmed",
        "Lost answer: the connection broke while the platform answered.",
        text="connection broke",
    ),
    Rule(
        OUTBOUND,
        "unconfirmed",
        "Lost answer: the connection dropped after sending.",
        text="could not be reached",
        maybe_delivered=True,
    ),
    Rule(
        OUTBOUND,
        "platform_outage",
        "Connection refused or the name did not resolve.",
        text="could not be reached",
        maybe_delivered=False,
    ),
    Rule(
        OUTBOUND,
        "platform_outage",
        "Too many calls to one server at once (retried).",
        text="too many calls",
    ),
    Rule(
        OUTBOUND,
        "media_invalid",
        "A media URL the guard refused (not https, not public, no such host).",
        text="the url",
    ),
    Rule(
        OUTBOUND,
        "media_invalid",
        "A media URL's server sent the request elsewhere.",
        text="left the checked host",
    ),
    Rule(
        OUTBOUND,
        "internal",
        "The platform's answer was larger than we read.",
        text="answer is larger",
    ),
    Rule(
        OUTBOUND,
        "auth_expired",
        "A credential HTTP cannot carry in a header.",
        text="header cannot carry",
    ),
    Rule(OUTBOUND, "internal", "The request could not be sent.", text="request could not be sent"),
    Rule(OUTBOUND, "auth_expired", "HTTP 401: the credentials were refused.", status=401),
    Rule(
        OUTBOUND, "permission_missing", "HTTP 403: not allowed with these credentials.", status=403
    ),
    Rule(OUTBOUND, "platform_outage", "HTTP 408: the platform timed the request out.", status=408),
    Rule(
        OUTBOUND, "rate_limited", "HTTP 429: too many requests (Retry-After honoured).", status=429
    ),
    Rule(
        OUTBOUND, "platform_outage", "HTTP 5xx: the platform failed or is down.", status=(500, 599)
    ),
    Rule(
        OUTBOUND,
        "content_rejected",
        "Any other HTTP 4xx: the request was refused.",
        status=(400, 499),
    ),
)


def _catalog() -> tuple[Rule, ...]:
    """Every network's rows (one copy of those networks share), then the shared ones."""
    tables = {network.source: network.errors for network in NETWORKS.values()}
    return (*(rule for rows in tables.values() for rule in rows), *SHARED)


RULES = _catalog()


def rule_for(provider: str, error: outbound.OutboundError) -> Rule | None:
    """The row that maps this error, or None: an error no row knows (the test of the table
    walks every known one). The network's own rows are asked first, when the platform
    answered."""
    answer = platform_answer(error)
    own = NETWORKS[provider].errors if provider in NETWORKS else ()
    shared = ([r for r in SHARED if r.source == source] for source in (OURS, OUTBOUND))
    for rules in ([*own], *shared) if error.status is not None else shared:
        # The rows naming a code or a message first, then those of a status alone.
        for rule in [r for r in rules if r.code or r.text] + [
            r for r in rules if not (r.code or r.text)
        ]:
            if rule.matches(error, answer):
                return rule
    return None


def _fallback(error: outbound.OutboundError) -> str:
    """A category for an error no row maps, by its class (never expected: see rule_for)."""
    if isinstance(error, outbound.AuthenticationError):
        return "auth_expired"
    if isinstance(error, outbound.TransientError):
        return "unconfirmed" if error.maybe_delivered else "platform_outage"
    return "content_rejected" if error.status else "internal"


CODE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.]{0,80}")
MAX_MESSAGE = 500


def platform_answer(error: outbound.OutboundError) -> dict[str, Any] | None:
    """The platform's own answer to the call that failed, `{status, code, subcode?,
    message}` (None when nothing answered): the error fields of its JSON body, whichever API
    it is (Graph's `error` object, LinkedIn's `serviceErrorCode`, XRPC's and OAuth's `error`
    names, Mastodon's and Forem's `error` sentences, X's problem details), or the start of a
    body that is not JSON. Only those fields are kept: never a token, never the whole body."""
    if error.status is None:
        return None
    try:
        body = json.loads(error.excerpt) if error.excerpt else None
    except ValueError:
        body = None
    code: Any = None
    subcode: Any = None
    message: Any = ""
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict):  # Graph
            code, subcode = inner.get("code"), inner.get("error_subcode")
            message = inner.get("error_user_msg") or inner.get("message") or ""
        elif "serviceErrorCode" in body:  # LinkedIn
            code, message = body.get("serviceErrorCode"), body.get("message") or ""
        elif isinstance(inner, str) and CODE_NAME.fullmatch(inner):  # XRPC, OAuth
            code = inner
            message = body.get("message") or body.get("error_description") or inner
        elif isinstance(inner, str):  # Mastodon, Forem: the error is a sentence
            message = inner
        elif "title" in body and ("detail" in body or "type" in body):  # problem (X)
            kind = str(body.get("type") or "").rsplit("/", 1)[-1]
            code = kind if CODE_NAME.fullmatch(kind.replace("-", "_")) else None
            message = body.get("detail") or body.get("title") or ""
        else:
            code, message = body.get("code"), body.get("message") or ""
    elif error.excerpt:
        message = re.sub(r"<[^>]+>", " ", error.excerpt)
    answer: dict[str, Any] = {
        "status": error.status,
        "code": str(code)[:100] if code not in (None, "") else None,
        "message": " ".join(str(message).split())[:MAX_MESSAGE],
    }
    if subcode not in (None, ""):
        answer["subcode"] = str(subcode)[:100]
    return answer


def attempt_error(provider: str, error: outbound.OutboundError) -> dict[str, Any]:
    """What a failed attempt's history entry keeps beside the message: its `category`, the
    platform's answer (`platform`, when one came), and the row's own remedy (`remedy`)."""
    rule = rule_for(provider, error)
    facts: dict[str, Any] = {"category": rule.category if rule else _fallback(error)}
    answer = platform_answer(error)
    if answer is not None:
        facts["platform"] = answer
    if rule is not None and rule.remedy:
        facts["remedy"] = rule.remedy
    return facts


def catalog_rows() -> Iterator[str]:
    """The table of docs/social.md, one markdown row per rule."""
    for rule in RULES:
        if isinstance(rule.status, tuple):
            status = f"{rule.status[0]}-{rule.status[1]}"
        else:
            status = str(rule.status) if rule.status is not None else ""
        code = rule.code + (f"/{rule.subcode}" if rule.subcode else "")
        text = f'"{rule.text}"' if rule.text else ""
        yield (
            f"| {rule.source} | {status} | {code} | {text} | {rule.meaning} | `{rule.category}` |"
        )
