"""What an outcome means to the user (social.md section 12): every error an adapter can meet,
mapped once to a category, a remedy and whether trying again can help; the platform's own
answer kept beside it (never credentials); the error object of records and publish results.

An attempt's error is categorized where it happens (`attempt_error`, called when the attempt's
result is recorded: the full error is at hand there, its class, its answer's body) and the
category stored in the record's history entry; a record's `error` object is built from what
the record stores (`record_error`). Each network's rows are in its module (social.networks),
the rows all share here; `RULES`, all of them, is the table `docs/social.md` shows, row for row
(`catalog_rows`); a test walks each adapter's known errors and fails on one no row maps.
"""

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from core import outbound
from core.times import iso
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
# fmt: off
SHARED: tuple[Rule, ...] = (
    # --- The adapters' own refusals and what they make of odd answers (no HTTP status) -------
    Rule(OURS, "media_invalid", "The platform could not process the video (its reason).",
         text="could not process the video"),
    Rule(OURS, "platform_outage", "The platform did not finish processing the video in time.",
         text="did not finish processing the video"),
    Rule(OURS, "media_invalid", "Instagram could not process the image (ERROR, EXPIRED).",
         text="could not process the image"),
    Rule(OURS, "platform_outage", "The platform is still processing the media (retried).",
         text="still processing"),
    Rule(OURS, "media_invalid", "The media file is too large to publish.", text="too large"),
    Rule(OURS, "media_invalid", "The network needs the video's bytes (a hosted video).",
         text="needs the video's bytes"),
    Rule(OURS, "media_invalid", "Instagram needs an image.", text="needs an image"),
    Rule(OURS, "content_rejected", "The network has no threads.", text="has no threads"),
    Rule(OURS, "content_rejected", "The network takes no first comment.",
         text="takes no first comment"),
    Rule(OURS, "media_invalid", "The network takes no video.", text="takes no video"),
    Rule(OURS, "unconfirmed", "The platform did not name what it created (maybe published).",
         text="did not name the created"),
    Rule(OURS, "unconfirmed", "A success whose answer could not be read (maybe published).",
         text="answer could not be read"),
    Rule(OURS, "unconfirmed", "The outcome could not be established (the last attempt's, or "
         "a lookup whose pages did not reach back to the attempt).",
         text="outcome could not be established"),
    Rule(OURS, "internal", "The last attempt stopped before its result was recorded, and the "
         "post is not on the platform.", text="stopped before its result was recorded"),
    Rule(OURS, "platform_outage", "An answer of a shape the platform's API does not document.",
         text="shape its api does not document"),
    Rule(OURS, "content_rejected", "DEV: the article was deleted there (its counters).",
         text="no longer among"),
    Rule(OURS, "internal", "An unexpected error in our code (logged).",
         text="unexpected error"),
    Rule(OURS, "unconfirmed", "Nothing was recorded for the attempt (maybe published).",
         text="no result"),
    # --- The outbound layer: timeouts, lost answers, refusals by status -----------------------
    Rule(OUTBOUND, "platform_outage", "Timeout before sending: nothing reached the platform.",
         text="could not be reached in time"),
    Rule(OUTBOUND, "platform_outage", "Timeout after sending: no answer in time (looked up "
         "before the next attempt).", text="did not answer in time"),
    Rule(OUTBOUND, "platform_outage", "The answer did not finish in time (looked up before "
         "the next attempt).", text="did not finish answering in time"),
    Rule(OUTBOUND, "unconfirmed", "Lost answer: the connection broke while the platform "
         "answered.", text="connection broke"),
    Rule(OUTBOUND, "unconfirmed", "Lost answer: the connection dropped after sending.",
         text="could not be reached", maybe_delivered=True),
    Rule(OUTBOUND, "platform_outage", "Connection refused or the name did not resolve.",
         text="could not be reached", maybe_delivered=False),
    Rule(OUTBOUND, "platform_outage", "Too many calls to one server at once (retried).",
         text="too many calls"),
    Rule(OUTBOUND, "media_invalid", "A media URL the guard refused (not https, not public, "
         "no such host).", text="the url"),
    Rule(OUTBOUND, "media_invalid", "A media URL's server sent the request elsewhere.",
         text="left the checked host"),
    Rule(OUTBOUND, "internal", "The platform's answer was larger than we read.",
         text="answer is larger"),
    Rule(OUTBOUND, "auth_expired", "A credential HTTP cannot carry in a header.",
         text="header cannot carry"),
    Rule(OUTBOUND, "internal", "The request could not be sent.",
         text="request could not be sent"),
    Rule(OUTBOUND, "auth_expired", "HTTP 401: the credentials were refused.", status=401),
    Rule(OUTBOUND, "permission_missing", "HTTP 403: not allowed with these credentials.",
         status=403),
    Rule(OUTBOUND, "platform_outage", "HTTP 408: the platform timed the request out.",
         status=408),
    Rule(OUTBOUND, "rate_limited", "HTTP 429: too many requests (Retry-After honoured).",
         status=429),
    Rule(OUTBOUND, "platform_outage", "HTTP 5xx: the platform failed or is down.",
         status=(500, 599)),
    Rule(OUTBOUND, "content_rejected", "Any other HTTP 4xx: the request was refused.",
         status=(400, 499)),
)
# fmt: on


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
    names, Mastodon's and Forem's `error` sentences), or the start of a body that is not JSON.
    Only those fields are kept: never a token, never the whole body."""
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


# --- The error object ---------------------------------------------------------------------


def _name(provider: str) -> str:
    network = NETWORKS.get(provider)
    return network.name if network else provider


def remedy_for(category: str, provider: str, *, waiting: bool = False, own: str = "") -> str:
    """One sentence saying what the user can do."""
    if waiting and category in WAITING_REMEDIES:
        return WAITING_REMEDIES[category].format(name=_name(provider))
    if own and not waiting:
        return own
    return REMEDIES.get(category, REMEDIES["internal"]).format(name=_name(provider))


def error_object(
    *,
    code: str,
    category: str,
    message: str,
    provider: str,
    platform: dict[str, Any] | None = None,
    waiting: bool = False,
    remedy: str = "",
    retry_at: Any = None,
    retryable: bool | None = None,
) -> dict[str, Any]:
    """`{code, category, message, remedy, retryable, platform?}` (and `retryAt` when the
    record will be tried again by itself). `retryable`: whether trying the same post again
    can succeed (after the remedy): not when its content or media must change first."""
    found: dict[str, Any] = {
        "code": code,
        "category": category,
        "message": message,
        "remedy": remedy_for(category, provider, waiting=waiting, own=remedy),
        "retryable": category not in NOT_RETRYABLE if retryable is None else retryable,
    }
    if platform:
        found["platform"] = platform
    if retry_at is not None:
        found["retryAt"] = iso(retry_at)
    return found


def _last_error(history: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    for entry in reversed(list(history)):
        if entry.get("outcome") in ("error", "lease_expired", "deferred"):
            return entry
    return None


def entry_category(entry: dict[str, Any]) -> str:
    """An attempt entry's category: as stored, or read from what older entries kept."""
    stored = entry.get("category")
    if stored in CATEGORIES:
        return str(stored)
    if entry.get("outcome") == "lease_expired":
        return "unconfirmed"
    if entry.get("outcome") == "deferred":  # no slot at the platform in time: our own wait
        return "platform_outage"
    status = entry.get("status")
    if status == 401:
        return "auth_expired"
    if status == 403:
        return "permission_missing"
    if status == 429:
        return "rate_limited"
    if (isinstance(status, int) and status >= 500) or status == 408:
        return "platform_outage"
    if isinstance(status, int):
        return "content_rejected"
    return "unconfirmed" if entry.get("maybeDelivered") else "platform_outage"


# A record's own codes that say what it is, whatever the last attempt's category.
CODE_CATEGORY = {
    "unconfirmed": "unconfirmed",
    "daily_cap_reached": "account_limit",
    "lease_expired": "unconfirmed",
    "abandoned": "unconfirmed",
}


ABANDONED_REMEDY = (
    "Retry the post if you still want it on {name}: it is looked up there first, so it is "
    "never published twice."
)


def record_error(record: Any) -> dict[str, Any] | None:
    """The error object of a failed, unconfirmed, warned or waiting-to-retry record (social.md
    section 12), from what it stores: its error code and message, the last attempt's entry
    (category, platform answer), its warnings. None for a record with nothing wrong."""
    status = str(record.status)
    warnings = list(record.warnings or [])
    if status == "Cancelled" or (not record.error_code and not warnings):
        return None
    if status == "Published" and not warnings and not record.next_attempt_at:
        return None  # out whole (a published record waiting for later parts says why)
    entry = _last_error(record.history or []) or {}
    if record.error_code == "daily_cap_reached":
        entry = {}
    code = record.error_code or (str(warnings[0].get("code") or "") if warnings else "")
    category = CODE_CATEGORY.get(record.error_code) or (
        entry_category(entry) if entry else "internal"
    )
    if status == "Unconfirmed":
        category = "unconfirmed"
    remedy = str(entry.get("remedy") or "")
    if record.error_code == "abandoned":
        remedy = ABANDONED_REMEDY.format(name=_name(record.provider))
    if status == "Published" and not record.next_attempt_at:  # parts missing for good
        message = "; ".join(str(warning.get("message") or "") for warning in warnings)
        return error_object(code=code, category=category, message=message,
                            provider=record.provider, platform=entry.get("platform"),
                            remedy=remedy, retryable=False)  # fmt: skip
    # Waiting: for its attempt, or, published, for its later parts' next one.
    waiting = status in ("Scheduled", "Publishing") or record.next_attempt_at is not None
    return error_object(
        code=code,
        category=category,
        message=record.error or str(entry.get("error") or ""),
        provider=record.provider,
        platform=entry.get("platform"),
        waiting=waiting,
        remedy=remedy,
        retry_at=record.next_attempt_at if waiting else None,
    )


def history_entry(entry: dict[str, Any], provider: str) -> dict[str, Any]:
    """One history entry as the API shows it: `{attempt, at, outcome, error?, found?}`, and
    what else the entry says (`url` of a publication, `until` of a deferral, `action` of a
    user's resolution)."""
    shown: dict[str, Any] = {
        "attempt": entry.get("attempt"),
        "at": entry.get("at"),
        "outcome": entry.get("outcome"),
    }
    if entry.get("outcome") in ("error", "lease_expired"):
        category = entry_category(entry)
        shown["error"] = error_object(
            code=CODES[category],
            category=category,
            message=str(entry.get("error") or ""),
            provider=provider,
            platform=entry.get("platform"),
            remedy=str(entry.get("remedy") or ""),
        )
    elif entry.get("error"):
        shown["reason"] = entry["error"]
    if "found" in entry:
        shown["found"] = bool(entry["found"])
    for key in ("url", "until", "action", "by"):
        if entry.get(key):
            shown[key] = entry[key]
    return shown


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
