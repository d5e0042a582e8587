"""Session tokens: issue, refresh with rotation, log out, revoke everything.

A session is a family of tokens: the pair issued at sign-in and every pair rotated from it
share its `sid` and its `auth_time` (when the person signed in). Refreshing never extends a
session past `SESSION_MAX_AGE_DAYS` from `auth_time`. A refresh token presented again after it
was rotated means two parties hold the family (the owner and a thief): the whole family is
revoked, its refresh tokens and its access tokens alike (the user row keeps the revoked `sid`s
for as long as any of their tokens could live, so checking costs no query).
"""

import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from rest_framework_simplejwt.exceptions import TokenBackendError
from rest_framework_simplejwt.state import token_backend
from rest_framework_simplejwt.token_blacklist.models import BlacklistedToken, OutstandingToken
from rest_framework_simplejwt.tokens import RefreshToken

from accounts import hooks
from accounts.errors import InvalidSession
from accounts.models import User
from core.errors import ValidationFailed

VERSION_CLAIM = "ver"
SESSION_CLAIM = "sid"
AUTH_TIME_CLAIM = "auth_time"
# Two refreshes of one token this close together are one client racing itself (two tabs), not
# a stolen token: the loser is refused without ending the session.
REUSE_GRACE_SECONDS = 10


@dataclass(frozen=True, slots=True)
class Session:
    token: str  # access JWT
    refresh_token: str


def session_issue(*, user: User, sid: str | None = None, auth_time: int | None = None) -> Session:
    """A new session (sign-in), or the next pair of an existing one (`sid`, `auth_time`)."""
    refresh = RefreshToken.for_user(user)  # records the outstanding refresh token
    # Copied into the access token below.
    refresh[VERSION_CLAIM] = user.token_version
    refresh[SESSION_CLAIM] = sid or uuid.uuid4().hex
    refresh[AUTH_TIME_CLAIM] = auth_time or int(time.time())
    return Session(token=str(refresh.access_token), refresh_token=str(refresh))


def session_revoked(*, user: User, claims: Any) -> bool:
    """True when the token's session family was revoked (no query: the user row has it)."""
    return str(claims.get(SESSION_CLAIM, "")) in (user.revoked_sessions or {})


def _session_family_revoke(*, user_id: uuid.UUID, sid: str) -> None:
    """Revoke one family, in a transaction of its own (the caller then refuses the request);
    entries older than the longest session are dropped as they can no longer matter."""
    keep_after = time.time() - settings.SESSION_MAX_AGE_DAYS * 86400
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user_id)
        revoked = {k: v for k, v in (locked.revoked_sessions or {}).items() if v > keep_after}
        revoked[sid] = int(time.time())
        locked.revoked_sessions = revoked
        locked.save(update_fields=["revoked_sessions"])
        hooks.sessions_revoked(locked, sid)


def _decode_refresh(raw: str) -> dict[str, Any]:
    """Signature, expiry and type; HS256 only, so `alg: none` and forgeries fail here."""
    try:
        payload: dict[str, Any] = token_backend.decode(cast(Any, raw), verify=True)
    except TokenBackendError:
        raise InvalidSession() from None
    if payload.get("token_type") != "refresh" or "jti" not in payload:
        raise InvalidSession()
    return payload


def _outstanding(payload: dict[str, Any], user: User | None) -> OutstandingToken:
    outstanding, _ = OutstandingToken.objects.get_or_create(
        jti=payload["jti"],
        defaults={
            "user": user,
            "token": "",
            "expires_at": datetime.fromtimestamp(payload["exp"], tz=UTC),
        },
    )
    return outstanding


def session_refresh(*, refresh_token: str) -> Session:
    """Rotate: the presented refresh token is spent, a new pair of the same session is issued.

    Spending is an INSERT into the blacklist under a unique key, so of two concurrent
    refreshes with one token exactly one succeeds; a token spent already is a replay, and
    revokes its whole session.
    """
    payload = _decode_refresh(refresh_token)
    user = User.objects.filter(pk=str(payload.get("user_id", "")), is_active=True).first()
    if user is None or payload.get(VERSION_CLAIM) != user.token_version:
        raise InvalidSession()
    sid = str(payload.get(SESSION_CLAIM) or "")
    auth_time = payload.get(AUTH_TIME_CLAIM)
    max_age = settings.SESSION_MAX_AGE_DAYS * 86400
    if not sid or not isinstance(auth_time, int) or auth_time + max_age < time.time():
        raise InvalidSession()  # past the session's absolute lifetime: sign in again
    if session_revoked(user=user, claims=payload):
        raise InvalidSession()
    try:
        with transaction.atomic():
            outstanding = _outstanding(payload, user)
            BlacklistedToken.objects.create(token=outstanding)
            return session_issue(user=user, sid=sid, auth_time=auth_time)
    except IntegrityError:
        pass  # already spent
    spent_at = (
        BlacklistedToken.objects.filter(token__jti=payload["jti"])
        .values_list("blacklisted_at", flat=True)
        .first()
    )
    if spent_at is None or (timezone.now() - spent_at).total_seconds() > REUSE_GRACE_SECONDS:
        # A replay after rotation, not a client refreshing twice at once: someone else holds
        # the session. End it for both.
        _session_family_revoke(user_id=user.pk, sid=sid)
    raise InvalidSession()


@transaction.atomic
def session_logout(*, user: User, refresh_token: str, everywhere: bool = False) -> None:
    """End the sign-in this refresh token belongs to (its refresh and access tokens alike;
    idempotent); `everywhere` revokes all sessions.

    A body token that is not a refresh token of this user is bad input (400), not a dead
    session: a 401 would tell the client its access token died and sign the user out."""
    try:
        payload = _decode_refresh(refresh_token)
    except InvalidSession:
        payload = {}
    if not payload or str(payload.get("user_id")) != str(user.pk):
        raise ValidationFailed(
            details={"refreshToken": ["Not a valid, unexpired refresh token of this account."]}
        )
    BlacklistedToken.objects.get_or_create(token=_outstanding(payload, user))
    if everywhere:
        sessions_revoke_all(user=user)
    elif sid := str(payload.get(SESSION_CLAIM) or ""):
        # The whole sign-in ends: its access tokens (and the live-feed tickets and streams
        # they opened) stop working now, not when they expire.
        _session_family_revoke(user_id=user.pk, sid=sid)


@transaction.atomic
def sessions_revoke_all(*, user: User) -> None:
    """Every access and refresh token issued so far stops working, and the user's open
    live-feed streams end (the hook)."""
    User.objects.filter(pk=user.pk).update(token_version=F("token_version") + 1)
    hooks.sessions_revoked(user, None)
    user.refresh_from_db(fields=["token_version"])
    live = OutstandingToken.objects.filter(user=user, blacklistedtoken__isnull=True)
    BlacklistedToken.objects.bulk_create(
        [BlacklistedToken(token=outstanding) for outstanding in live], ignore_conflicts=True
    )


def sessions_end_all(user: User) -> list[str]:
    """The registry's cleanup (takeover, erasure): every session of the user ends."""
    sessions_revoke_all(user=user)
    return ["every other signed-in session"]
