"""Social hub endpoints: platforms, connect, accounts, disconnect (social.md sections 1, 2)."""

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.authentication import request_user
from accounts.roles import Action
from accounts.scopes import KEYS_REFUSED, Scope
from core.api.envelope import Envelope
from core.api.serializers import BodySerializer
from core.errors import ValidationFailed
from social.api.providers import ProviderField
from social.api.scoping import WorkspaceView
from social.connections import (
    account_connect,
    account_disconnect,
    connect_authorize,
    consent_decline,
)
from social.models import SocialAccount
from social.networks import NETWORKS
from social.providers.base import ConnectRequest
from social.selectors import account_list

MAX_CODE_LENGTH = 4096  # OAuth codes, app passwords and API keys are far shorter
# The platforms connected through a consent page (the others take credentials at connect).
CONSENT_PROVIDERS = [str(name) for name, p in NETWORKS.items() if p.connect_method == "oauth"]


class AccountSerializer(serializers.ModelSerializer[SocialAccount]):
    """The social account record; credentials are never part of it."""

    user_id = serializers.UUIDField(read_only=True)
    provider = ProviderField()
    limits = serializers.SerializerMethodField()

    class Meta:
        model = SocialAccount
        fields = (
            "id",
            "user_id",
            "provider",
            "provider_user_id",
            "username",
            "display_name",
            "email",
            "avatar",
            "status",
            "last_sync",
            "created_at",
            "expires_at",
            "instance",
            "limits",
            "options",
        )

    def get_limits(self, account: SocialAccount) -> dict[str, Any]:
        """The platform's limits (`/api/social/platforms`' shape) with the account's own live
        values over them (a Mastodon instance's `max_characters`, `charactersPerUrl`)."""
        return {**NETWORKS[account.provider].limits, **(account.limits or {})}


class AuthorizeView(WorkspaceView):
    # Connecting a provider takes a session, and an owner or admin of the workspace.
    api_key_scopes = KEYS_REFUSED
    workspace_actions = {"GET": Action.MANAGE}

    class InputSerializer(serializers.Serializer[Any]):
        redirectUri = serializers.URLField(max_length=2000)
        instance = serializers.URLField(required=False, max_length=255)

    class OutputSerializer(serializers.Serializer[Any]):
        provider = serializers.CharField()
        url = serializers.CharField()
        state = serializers.CharField()
        expiresAt = serializers.DateTimeField(source="expires_at")

    @extend_schema(
        operation_id="social_connect_authorize",
        tags=["social"],
        parameters=[
            OpenApiParameter("provider", str, OpenApiParameter.PATH, enum=CONSENT_PROVIDERS),
            InputSerializer,
        ],
        responses=OutputSerializer,
    )
    def get(self, request: Request, provider: str) -> Response:
        if provider not in NETWORKS:
            raise ValidationFailed(details={"provider": [f'"{provider}" is not a platform.']})
        serializer = self.InputSerializer(data=request.query_params)
        serializer.is_valid(raise_exception=True)
        consent = connect_authorize(
            workspace_id=self.workspace_id,
            user=request_user(request),
            provider=provider,
            redirect_uri=serializer.validated_data["redirectUri"],
            instance=serializer.validated_data.get("instance", ""),
        )
        return Response(self.OutputSerializer(consent).data)


class ConnectView(WorkspaceView):
    # Connecting a provider takes a session, and an owner or admin of the workspace.
    api_key_scopes = KEYS_REFUSED
    workspace_actions = {"POST": Action.MANAGE}

    class InputSerializer(BodySerializer):
        provider = ProviderField()
        code = serializers.CharField(
            required=False, max_length=MAX_CODE_LENGTH, trim_whitespace=False
        )
        redirectUri = serializers.URLField(required=False, max_length=2000)
        state = serializers.CharField(required=False, max_length=200)
        identifier = serializers.CharField(required=False, max_length=254)
        instance = serializers.URLField(required=False, max_length=255)
        pageId = serializers.CharField(required=False, max_length=64)
        boardId = serializers.RegexField(r"^\d{1,32}$", required=False)  # Pinterest's board
        # Google Business Profile's location: `locations/{id}` or the bare id.
        locationId = serializers.RegexField(r"^(locations/)?\d{1,32}$", required=False)
        channelId = serializers.RegexField(r"^[A-Z0-9]{1,32}$", required=False)  # Slack's
        # Reddit's default subreddit (without `r/`), or a profile's `u_{name}`.
        subreddit = serializers.RegexField(
            r"^(?:r/)?(?:[A-Za-z0-9_]{3,21}|u_[A-Za-z0-9_-]{3,20})$", required=False
        )
        # The consent page's `error` (the user declined): reported instead of a code.
        error = serializers.CharField(required=False, max_length=200)

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            """`code`, and the fields the network needs besides it (its `connect_fields`),
            unless the consent page sent back an `error` instead."""
            if attrs.get("error"):
                return attrs
            if not attrs.get("code"):
                raise serializers.ValidationError({"code": ["This field is required."]})
            network = NETWORKS[attrs["provider"]]
            missing = {
                name: [message] for name, message in network.connect_fields if not attrs.get(name)
            }
            if missing:
                raise serializers.ValidationError(missing)
            return attrs

    @extend_schema(
        operation_id="social_connect",
        tags=["social"],
        request=InputSerializer,
        responses=AccountSerializer,
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if data.get("error"):
            consent_decline(
                workspace_id=self.workspace_id,
                user=request_user(request),
                provider=data["provider"],
                state=data.get("state", ""),
                redirect_uri=data.get("redirectUri", ""),
                error=data["error"],
            )
        account = account_connect(
            workspace_id=self.workspace_id,
            user=request_user(request),
            provider=data["provider"],
            request=ConnectRequest(
                code=data["code"],
                identifier=data.get("identifier", ""),
                redirect_uri=data.get("redirectUri", ""),
                instance=data.get("instance", ""),
                page_id=data.get("pageId", ""),
                board_id=data.get("boardId", ""),
                location_id=data.get("locationId", ""),
                channel_id=data.get("channelId", ""),
                subreddit=data.get("subreddit", ""),
            ),
            state=data.get("state", ""),
        )
        return Response(Envelope(data=AccountSerializer(account).data, message="Connected"))


class AccountListView(WorkspaceView):
    api_key_scopes = {"GET": Scope.ACCOUNTS_READ}
    workspace_actions = {"GET": Action.READ}

    @extend_schema(
        operation_id="social_accounts", tags=["social"], responses=AccountSerializer(many=True)
    )
    def get(self, request: Request) -> Response:
        accounts = account_list(workspace_id=self.workspace_id)
        return Response(AccountSerializer(accounts, many=True).data)


class DisconnectView(WorkspaceView):
    # Disconnecting a provider takes a session, and an owner or admin of the workspace.
    api_key_scopes = KEYS_REFUSED
    workspace_actions = {"POST": Action.MANAGE}
    schema_error_statuses = (404,)  # an `accountId` that names no account of yours

    class InputSerializer(BodySerializer):
        accountId = serializers.UUIDField()

    @extend_schema(
        operation_id="social_disconnect",
        tags=["social"],
        request=InputSerializer,
        responses=inline_serializer(
            "Disconnected",
            {"success": serializers.BooleanField(), "cancelledCount": serializers.IntegerField()},
        ),
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        cancelled = account_disconnect(
            workspace_id=self.workspace_id, account_id=serializer.validated_data["accountId"]
        )
        return Response(
            Envelope(
                data={"success": True, "cancelledCount": cancelled},
                message="Account disconnected",
            )
        )
