"""Reads on users and their API keys."""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet
from django.db.models.functions import Lower
from django.utils import timezone

from accounts.models import API_KEY_PREFIX, ApiKey, User, api_key_hash, email_key

# What a key looks like: the prefix, then 40 URL-safe base64 characters (32 to 64 accepted,
# so a future length still parses); anything else is refused before the database is asked.
API_KEY_SHAPE = re.compile(rf"{re.escape(API_KEY_PREFIX)}[A-Za-z0-9_-]{{32,64}}")


def user_get_by_email(*, email: str) -> User | None:
    """Case-insensitive, through Lower() so the unique functional index serves it."""
    return (
        User.objects.alias(email_lower=Lower("email")).filter(email_lower=email_key(email)).first()
    )


@dataclass(frozen=True, slots=True)
class Standing:
    """What decides whether an active user's session tokens still work: the version every
    token carries, and the sessions revoked one by one (`sid` -> when)."""

    token_version: int
    revoked_sessions: dict[str, Any]


def users_standing(*, user_ids: Iterable[Any]) -> dict[str, Standing]:
    """The standing of those of these users who are active (one query), by user id as text;
    an inactive, erased or unknown user is absent."""
    rows = User.objects.filter(pk__in=list(user_ids), is_active=True).values_list(
        "pk", "token_version", "revoked_sessions"
    )
    return {str(pk): Standing(version, revoked or {}) for pk, version, revoked in rows}


def api_key_list(*, user: User) -> QuerySet[ApiKey]:
    """The user's keys that are not revoked, expired ones included (shown as expired)."""
    return ApiKey.objects.filter(user=user, revoked_at__isnull=True)


def api_keys_live(*, user: User, at: datetime | None = None) -> QuerySet[ApiKey]:
    """The user's keys that work: neither revoked nor expired."""
    now = at or timezone.now()
    return api_key_list(user=user).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))


def api_key_get_by_secret(*, secret: str) -> ApiKey | None:
    """The live key `secret` is, with its active owner (one query, by the hash's unique
    index); None for a key that is malformed, unknown, revoked, expired or whose owner is
    inactive or erased."""
    if not API_KEY_SHAPE.fullmatch(secret):
        return None
    key = (
        ApiKey.objects.select_related("user")
        .filter(key_hash=api_key_hash(secret), revoked_at__isnull=True)
        .first()
    )
    if key is None or not key.is_live() or not key.user.is_active or key.user.erased_at:
        return None
    return key
