"""The error object of a record and of a publish result (social.md section 12): `{code,
category, message, remedy, retryable, platform?}`, built from what the record stores (its
history entries carry the category `social.outcomes.attempt_error` gave the attempt)."""

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from core.times import iso
from social.models import OPEN_STATUSES, RecordStatus, ScheduledRecord
from social.networks import NETWORKS
from social.outcomes import CATEGORIES, CODES, NOT_RETRYABLE, REMEDIES, WAITING_REMEDIES


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


class HistoryOutcome(StrEnum):
    """What an entry of a record's `history` says happened (its `outcome`)."""

    PUBLISHED = "published"
    ERROR = "error"  # an attempt the platform refused, or that could not reach it
    PROCESSING = "processing"  # a video the platform is still processing
    DEFERRED = "deferred"  # no slot at the platform in time, or its daily cap: our own wait
    LEASE_EXPIRED = "lease_expired"  # its worker went away mid-attempt
    RETRY_REQUESTED = "retry_requested"  # an operator's retry
    RETRIED = "retried"  # the user's retry
    RESOLVED = "resolved"  # the user said what became of an unconfirmed record


# The entries that say what went wrong last.
FAILED_OUTCOMES = (HistoryOutcome.ERROR, HistoryOutcome.LEASE_EXPIRED, HistoryOutcome.DEFERRED)


def _last_error(history: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    for entry in reversed(list(history)):
        if entry.get("outcome") in FAILED_OUTCOMES:
            return entry
    return None


def entry_category(entry: dict[str, Any]) -> str:
    """An attempt entry's category: as stored, or read from what older entries kept."""
    stored = entry.get("category")
    if stored in CATEGORIES:
        return str(stored)
    if entry.get("outcome") == HistoryOutcome.LEASE_EXPIRED:
        return "unconfirmed"
    if (
        entry.get("outcome") == HistoryOutcome.DEFERRED
    ):  # no slot at the platform in time: our own wait
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


def record_error(record: ScheduledRecord) -> dict[str, Any] | None:
    """The error object of a failed, unconfirmed, warned or waiting-to-retry record (social.md
    section 12), from what it stores: its error code and message, the last attempt's entry
    (category, platform answer), its warnings. None for a record with nothing wrong."""
    status = record.status
    warnings = list(record.warnings or [])
    if status == RecordStatus.CANCELLED or (not record.error_code and not warnings):
        return None
    if status == RecordStatus.PUBLISHED and not warnings and not record.next_attempt_at:
        return None  # out whole (a published record waiting for later parts says why)
    entry = _last_error(record.history or []) or {}
    if record.error_code == "daily_cap_reached":
        entry = {}
    code = record.error_code or (str(warnings[0].get("code") or "") if warnings else "")
    category = CODE_CATEGORY.get(record.error_code) or (
        entry_category(entry) if entry else "internal"
    )
    if status == RecordStatus.UNCONFIRMED:
        category = "unconfirmed"
    remedy = str(entry.get("remedy") or "")
    if record.error_code == "abandoned":
        remedy = ABANDONED_REMEDY.format(name=_name(record.provider))
    if status == RecordStatus.PUBLISHED and not record.next_attempt_at:  # parts missing for good
        message = "; ".join(str(warning.get("message") or "") for warning in warnings)
        return error_object(
            code=code,
            category=category,
            message=message,
            provider=record.provider,
            platform=entry.get("platform"),
            remedy=remedy,
            retryable=False,
        )
    # Waiting: for its attempt, or, published, for its later parts' next one.
    waiting = status in OPEN_STATUSES or record.next_attempt_at is not None
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
    if entry.get("outcome") in (HistoryOutcome.ERROR, HistoryOutcome.LEASE_EXPIRED):
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
