"""Session tokens: issue, refresh with rotation, log out, revoke everything."""

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from django.db import IntegrityError, transaction
from django.db.models import F
from rest_framework_simplejwt.exceptions import TokenBackendError
from rest_framework_simplejwt.state import token_backend
from rest_framework_simplejwt.token_blacklist.models import BlacklistedToken, OutstandingToken
from rest_framework_simplejwt.tokens import RefreshToken

from accounts.errors import InvalidSession
from accounts.models import User

VERSION_CLAIM = "ver"


@dataclass(frozen=True, slots=True)
class Session:
    token: str  # access JWT
    refresh_token: str


def session_issue(*, user: User) -> Session:
    refresh = RefreshToken.for_user(user)  # records the outstanding refresh token
    refresh[VERSION_CLAIM] = user.token_version  # copied into the access token below
    return Session(token=str(refresh.access_token), refresh_token=str(refresh))


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


@transaction.atomic
def session_refresh(*, refresh_token: str) -> Session:
    """Rotate: the presented refresh token is spent, a new pair is issued.

    Spending is an INSERT into the blacklist under a unique key, so of two concurrent
    refreshes with one token exactly one succeeds.
    """
    payload = _decode_refresh(refresh_token)
    user = User.objects.filter(pk=str(payload.get("user_id", "")), is_active=True).first()
    if user is None or payload.get(VERSION_CLAIM) != user.token_version:
        raise InvalidSession()
    outstanding = _outstanding(payload, user)
    try:
        with transaction.atomic():
            BlacklistedToken.objects.create(token=outstanding)
    except IntegrityError:
        raise InvalidSession() from None  # already spent: a replay after rotation
    return session_issue(user=user)


@transaction.atomic
def session_logout(*, user: User, refresh_token: str, everywhere: bool = False) -> None:
    """Spend the caller's refresh token (idempotent); `everywhere` revokes all sessions."""
    payload = _decode_refresh(refresh_token)
    if str(payload.get("user_id")) != str(user.pk):
        raise InvalidSession()
    BlacklistedToken.objects.get_or_create(token=_outstanding(payload, user))
    if everywhere:
        sessions_revoke_all(user=user)


def sessions_revoke_all(*, user: User) -> None:
    """Every access and refresh token issued so far stops working."""
    User.objects.filter(pk=user.pk).update(token_version=F("token_version") + 1)
    user.refresh_from_db(fields=["token_version"])
    live = OutstandingToken.objects.filter(user=user, blacklistedtoken__isnull=True)
    BlacklistedToken.objects.bulk_create(
        [BlacklistedToken(token=outstanding) for outstanding in live], ignore_conflicts=True
    )
