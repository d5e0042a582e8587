"""What an outcome means to the user (social.md section 12): every error an adapter can meet,
mapped once to a category, a remedy and whether trying again can help; the platform's own
answer kept beside it (never credentials).

An attempt's error is categorized where it happens (`attempt_error`, called when the attempt's
result is recorded: the full error is at hand there, its class, its answer's body) and the
category stored in the record's history entry; a record's `error` object is built from what
the record stores (social.error_objects). Each network's rows are in its module
(social.networks), the rows all share in social/networks/shared.py; `RULES`, all of them, is
the table `docs/social.md` shows, row for row (`catalog_rows`); a test walks each adapter's
known errors and fails on one no row maps.
"""

import json
import re
from collections.abc import Iterator
from typing import Any

from core import outbound
from social.networks import NETWORKS
from social.networks.base import Rule
from social.networks.shared import OURS, OUTBOUND, SHARED

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
    names, Mastodon's and Forem's `error` sentences, X's problem details, Telegram's
    `description`), or the start of a body that is not JSON. Only those fields are kept: never
    a token, never the whole body."""
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
        elif body.get("ok") is False:  # the Telegram Bot API: its code is the status
            message = body.get("description") or ""
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
