"""Who the caller is: a Bearer JWT (a signed-in session) or a personal API key, with the
contract's two 401 messages, token revocation and the keys' scopes (docs/api-keys.md)."""

from typing import Any

from django.core.exceptions import ValidationError
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework_simplejwt.authentication import JWTAuthentication
from rest_framework_simplejwt.exceptions import AuthenticationFailed
from rest_framework_simplejwt.settings import api_settings

from accounts.models import API_KEY_PREFIX, ApiKey, User
from accounts.scopes import ANY_KEY, key_scope
from accounts.selectors import api_key_get_by_secret
from accounts.services.api_keys import api_key_touch
from accounts.services.sessions import VERSION_CLAIM, session_revoked

API_KEY_HEADER = "X-API-Key"
# A key its in-process caller authenticated already (an agent's OAuth grant, whose own key has
# no secret anyone holds: agents.mcp.dispatch). A WSGI environ entry, never an HTTP header: a
# request from the network cannot carry it.
IN_PROCESS_KEY = "accounts.api_key"


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
        """simplejwt's lookup, the user's personal workspace read in the same query: a request
        without `X-Workspace-Id` acts in it (accounts.selectors.personal_membership)."""
        try:
            user = (
                User.objects.select_related("personal_workspace")
                .filter(pk=validated_token[api_settings.USER_ID_CLAIM])
                .first()
            )
        except (KeyError, ValueError, ValidationError) as exc:
            raise AuthenticationFailed(str(exc)) from exc
        if user is None:
            raise AuthenticationFailed("User not found", code="user_not_found")
        if not user.is_active:
            raise AuthenticationFailed("User is inactive", code="user_inactive")
        if validated_token.get(VERSION_CLAIM) != user.token_version:
            raise AuthenticationFailed("Token revoked")
        if session_revoked(user=user, claims=validated_token):
            raise AuthenticationFailed("Session revoked")
        return user


class KeyRefused(exceptions.PermissionDenied):
    """A route no scope covers (account, billing, key management...): sessions only."""

    default_detail = "API keys cannot be used here; sign in instead."


class InsufficientScope(exceptions.PermissionDenied):
    default_code = "insufficient_scope"
    default_detail = "This API key lacks the scope this operation needs."

    def __init__(self, *, required: str, granted: list[str]) -> None:
        super().__init__()
        self.details = {"required": required, "granted": granted}


class ApiKeyAuthentication(BaseAuthentication):
    """`X-API-Key: fgp_...` or `Authorization: Bearer fgp_...` (a JWT is left to
    BearerAuthentication, next in DEFAULT_AUTHENTICATION_CLASSES).

    A key that is malformed, unknown, revoked or expired, or both headers at once: 401
    `invalid_token`. Then the view's declaration (accounts.scopes) decides: a method it does
    not open to keys is 403 `permission_denied`, a scope the key lacks 403
    `insufficient_scope` with `details.required`. Checked here, where keys are read, so a view
    that declares nothing is closed to keys whatever its permission classes.
    """

    def authenticate(self, request: Request) -> tuple[User, ApiKey] | None:
        handed = request.META.get(IN_PROCESS_KEY)
        if isinstance(handed, ApiKey):
            key: ApiKey | None = handed
        else:
            secret = self._presented(request)
            if secret is None:
                return None
            key = api_key_get_by_secret(secret=secret)
        if key is None:
            raise exceptions.AuthenticationFailed("Invalid API key")
        # The view is absent when a middleware asks who the caller is (Idempotency-Key).
        view = (getattr(request, "parser_context", None) or {}).get("view")
        if view is not None:
            self._check_scope(key, view, request.method or "GET")
        api_key_touch(key=key)  # writes at most once a minute
        return key.user, key

    def _presented(self, request: Request) -> str | None:
        header = request.headers.get(API_KEY_HEADER)
        authorization = request.headers.get("Authorization")
        if header is not None:
            if authorization is not None:
                raise exceptions.AuthenticationFailed(
                    "Send an API key or a session token, not both"
                )
            return header.strip()
        parts = (authorization or "").split()
        if len(parts) == 2 and parts[0] == "Bearer" and parts[1].startswith(API_KEY_PREFIX):
            return parts[1]
        return None

    def _check_scope(self, key: ApiKey, view: Any, method: str) -> None:
        needed = key_scope(view, method)
        if needed is None:
            raise KeyRefused()
        if needed != ANY_KEY and needed not in key.scopes:
            raise InsufficientScope(required=needed, granted=list(key.scopes))

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'


def request_user(request: Request) -> User:
    """The authenticated user of a view that requires one."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user


def optional_user(request: Request) -> User | None:
    user = request.user
    return user if isinstance(user, User) else None
