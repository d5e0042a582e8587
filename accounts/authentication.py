"""Bearer JWT authentication with the contract's two 401 messages and token revocation."""

from typing import Any

from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework_simplejwt.authentication import JWTAuthentication
from rest_framework_simplejwt.exceptions import AuthenticationFailed, InvalidToken

from accounts.models import User
from accounts.services.sessions import VERSION_CLAIM, session_revoked


class BearerAuthentication(JWTAuthentication):
    """No header: anonymous (the permission answers `Missing Authorization Header`).

    Any header that is not a valid, current `Bearer <access token>` is 401 `invalid_token`:
    malformed, another scheme, tampered, expired, `alg: none`, revoked, inactive user.
    """

    def get_raw_token(self, header: bytes) -> bytes | None:
        parts = header.split()
        if len(parts) != 2 or parts[0] != b"Bearer":
            raise AuthenticationFailed("Malformed Authorization header")
        return parts[1]

    def get_user(self, validated_token: Any) -> Any:
        try:
            user = super().get_user(validated_token)
        except (KeyError, InvalidToken) as exc:
            raise AuthenticationFailed(str(exc)) from exc
        if not isinstance(user, User) or validated_token.get(VERSION_CLAIM) != user.token_version:
            raise AuthenticationFailed("Token revoked")
        if session_revoked(user=user, claims=validated_token):
            raise AuthenticationFailed("Session revoked")
        return user


def request_user(request: Request) -> User:
    """The authenticated user of a view that requires one."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user


def optional_user(request: Request) -> User | None:
    user = request.user
    return user if isinstance(user, User) else None
