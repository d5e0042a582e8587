"""Auth endpoints: login, magic links, refresh, logout, the current user's profile (API keys:
accounts/api/api_keys.py)."""

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import optional_user, request_user
from accounts.models import User, plain_name_pattern
from accounts.scopes import ANY_KEY, KEYS_REFUSED
from accounts.services.login import LoginResult, login
from accounts.services.magic_links import magic_link_request, magic_link_verify
from accounts.services.sessions import session_logout, session_refresh
from accounts.services.users import (
    ERASE_FRESH_SESSION_SECONDS,
    account_erase,
    user_update_profile,
)
from core.api.envelope import Envelope
from core.api.serializers import BodySerializer
from core.ratelimit import client_ip

MAGIC_LINK_SENT = "If this address can receive e-mail, a sign-in link is on its way."
EXAMPLE_USER = {
    "id": "5d7f0e0a-3f3c-4f59-9a57-2b8e1f6c9a10",
    "email": "ada@example.com",
    "full_name": "Ada Lovelace",
    "avatar_url": "",
    "role": "user",
    "credits_remaining": 20,
    "monthly_quota": 20,
}
EXAMPLE_TOKENS = {"token": "eyJhbGciOiJIUzI1NiIs...", "refreshToken": "eyJhbGciOiJIUzI1NiIs..."}


class ProfileSerializer(serializers.ModelSerializer[User]):
    class Meta:
        model = User
        fields: tuple[str, ...] = (
            "id",
            "email",
            "full_name",
            "avatar_url",
            "role",
            "credits_remaining",
            "monthly_quota",
        )


class SessionSerializer(serializers.Serializer[Any]):
    token = serializers.CharField(help_text="Access token (JWT), sent as `Bearer` on requests.")
    refreshToken = serializers.CharField(
        help_text="Refresh token: trade it at POST /api/auth/refresh for a new pair."
    )


class SignedInSerializer(SessionSerializer):
    user = ProfileSerializer()


def signed_in_body(result: LoginResult) -> dict[str, Any]:
    return {
        "token": result.session.token,
        "refreshToken": result.session.refresh_token,
        "user": ProfileSerializer(result.user).data,
    }


class LoginView(APIView):
    """Sign in with e-mail (and password); creates the account on first login.

    An optional Bearer token syncs the profile of its own user instead.
    """

    permission_classes = [AllowAny]
    api_key_scopes = KEYS_REFUSED  # a key must not trade itself for a session
    schema_error_statuses = (401, 409)

    class InputSerializer(BodySerializer):
        email = serializers.EmailField(max_length=254)
        fullName = serializers.CharField(
            max_length=200, required=False, allow_blank=True, validators=[plain_name_pattern]
        )
        # min_length mirrors MinimumLengthValidator (documented in the schema); the rest of
        # the strength rules are Django's password validators, run when a password is set.
        password = serializers.CharField(
            min_length=settings.PASSWORD_MIN_LENGTH,
            max_length=128,
            required=False,
            trim_whitespace=False,
        )

    @extend_schema(
        operation_id="auth_login",
        tags=["auth"],
        request=InputSerializer,
        responses=SignedInSerializer,
        examples=[
            OpenApiExample(
                "New account",
                request_only=True,
                value={
                    "email": "ada@example.com",
                    "fullName": "Ada Lovelace",
                    "password": "s3cret!",
                },
            ),
            OpenApiExample(
                "Signed in",
                response_only=True,
                value={
                    "success": True,
                    "message": "Login successful",
                    "data": {**EXAMPLE_TOKENS, "user": EXAMPLE_USER},
                },
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        result = login(
            email=data["email"],
            password=data.get("password"),
            full_name=data.get("fullName"),
            bearer_user=optional_user(request),
            client_ip=client_ip(request),
        )
        message = "Account created" if result.created else "Login successful"
        return Response(Envelope(data=signed_in_body(result), message=message))


class MagicLinkView(APIView):
    """E-mail a single-use sign-in link (15 minutes). Same answer for every address."""

    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []
    api_key_scopes = KEYS_REFUSED

    class InputSerializer(BodySerializer):
        email = serializers.EmailField(max_length=254)

    class OutputSerializer(serializers.Serializer[Any]):
        magicUrl = serializers.URLField(
            required=False,
            help_text="Only when the server runs with MAGIC_LINK_EXPOSE_URL (development).",
        )

    @extend_schema(
        operation_id="auth_magic_link",
        tags=["auth"],
        request=InputSerializer,
        responses=OutputSerializer,
        examples=[
            OpenApiExample(
                "Development (URL exposed)",
                response_only=True,
                value={
                    "success": True,
                    "message": MAGIC_LINK_SENT,
                    "data": {"magicUrl": "http://localhost:3000/auth/magic-verify?token=..."},
                },
            )
        ],
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        url = magic_link_request(
            email=serializer.validated_data["email"], client_ip=client_ip(request)
        )
        data = {"magicUrl": url} if settings.MAGIC_LINK_EXPOSE_URL else {}
        return Response(Envelope(data=data, message=MAGIC_LINK_SENT))


class MagicLinkVerifyView(APIView):
    """Trade a magic-link token for a session, like login. Creates the account if needed."""

    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []
    api_key_scopes = KEYS_REFUSED
    schema_error_statuses = (401,)

    class InputSerializer(BodySerializer):
        token = serializers.CharField(max_length=200)

    @extend_schema(
        operation_id="auth_magic_link_verify",
        tags=["auth"],
        request=InputSerializer,
        responses=SignedInSerializer,
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = magic_link_verify(token=serializer.validated_data["token"])
        return Response(Envelope(data=signed_in_body(result), message="Login successful"))


class RefreshView(APIView):
    """Trade a refresh token for a new pair; the old refresh token stops working."""

    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []
    api_key_scopes = KEYS_REFUSED
    schema_error_statuses = (401,)

    class InputSerializer(BodySerializer):
        refreshToken = serializers.CharField(max_length=2000)

    @extend_schema(
        operation_id="auth_refresh",
        tags=["auth"],
        request=InputSerializer,
        responses=SessionSerializer,
        examples=[
            OpenApiExample(
                "Rotated", response_only=True, value={"success": True, "data": EXAMPLE_TOKENS}
            )
        ],
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        session = session_refresh(refresh_token=serializer.validated_data["refreshToken"])
        return Response({"token": session.token, "refreshToken": session.refresh_token})


class LogoutView(APIView):
    """End the session of this refresh token; `everywhere` ends every session of the user."""

    api_key_scopes = KEYS_REFUSED

    class InputSerializer(BodySerializer):
        refreshToken = serializers.CharField(max_length=2000)
        everywhere = serializers.BooleanField(default=False)

    class OutputSerializer(serializers.Serializer[Any]):
        success = serializers.BooleanField()

    @extend_schema(
        operation_id="auth_logout",
        tags=["auth"],
        request=InputSerializer,
        responses=OutputSerializer,
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        session_logout(
            user=request_user(request),
            refresh_token=serializer.validated_data["refreshToken"],
            everywhere=serializer.validated_data["everywhere"],
        )
        return Response(Envelope(data={"success": True}, message="Logged out"))


class MeView(APIView):
    """The signed-in user's profile and credit balance; edit the profile; erase the account."""

    # Any key may read its owner's profile (how an automation platform tests a connection);
    # changing or erasing the account takes a session.
    api_key_scopes = {"GET": ANY_KEY}

    class OutputSerializer(ProfileSerializer):
        class Meta(ProfileSerializer.Meta):
            # The plan and whether the address is proven too: a client shows both.
            fields = (*ProfileSerializer.Meta.fields, "plan", "email_verified", "created_at")

    class UpdateSerializer(BodySerializer):
        fullName = serializers.CharField(
            max_length=200, required=False, allow_blank=True, validators=[plain_name_pattern]
        )
        avatarUrl = serializers.URLField(max_length=1000, required=False, allow_blank=True)

        def validate_avatarUrl(self, value: str) -> str:
            if value and not value.lower().startswith(("https://", "http://")):
                raise serializers.ValidationError("Use an http(s) address.")
            return value

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if not attrs:
                raise serializers.ValidationError("Send fullName, avatarUrl or both.")
            return attrs

        def schema_constraints(self) -> dict[str, Any]:
            return {"minProperties": 1}

    class EraseSerializer(BodySerializer):
        password = serializers.CharField(max_length=128, required=False, trim_whitespace=False)

    @extend_schema(operation_id="auth_me", tags=["auth"], responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(request_user(request)).data)

    @extend_schema(
        operation_id="auth_me_update",
        tags=["auth"],
        request=UpdateSerializer,
        responses=OutputSerializer,
    )
    def patch(self, request: Request) -> Response:
        serializer = self.UpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        user = user_update_profile(
            user=request_user(request),
            full_name=data.get("fullName"),
            avatar_url=data.get("avatarUrl"),
        )
        return Response(Envelope(data=self.OutputSerializer(user).data, message="Profile updated"))

    @extend_schema(
        operation_id="auth_me_erase",
        tags=["auth"],
        request=EraseSerializer,
        responses={200: inline_serializer("Erased", {"success": serializers.BooleanField()})},
        description=(
            "Erase the account: with the password, or, for an account without one, from a "
            "session signed in (by magic link) within the last "
            f"{ERASE_FRESH_SESSION_SECONDS // 60} minutes. See docs/accounts.md."
        ),
    )
    def delete(self, request: Request) -> Response:
        serializer = self.EraseSerializer(data=request.data or {})
        serializer.is_valid(raise_exception=True)
        # The validated access token says when this session signed in.
        claims: Any = request.auth
        account_erase(
            user=request_user(request),
            password=serializer.validated_data.get("password"),
            signed_in_at=claims.get("auth_time") if claims is not None else None,
        )
        return Response(Envelope(data={"success": True}, message="Account erased"))
