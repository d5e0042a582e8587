"""Personal API keys, each bound to a workspace: `GET/POST /api/auth/api-keys`, `DELETE
/api/auth/api-keys/{id}` (docs/api-keys.md), in the request's workspace (`X-Workspace-Id`),
for owners and admins. Sessions only: a key never manages keys."""

from typing import Any
from uuid import UUID

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api.scoping import WORKSPACE_PARAMETER, WorkspaceScoped, workspace_of
from accounts.authentication import request_user
from accounts.models import ApiKey, plain_name_pattern
from accounts.scopes import KEYS_REFUSED, Scope
from accounts.selectors import api_key_list, membership_get
from accounts.services.api_keys import api_key_create, api_key_revoke
from core.api.envelope import Envelope
from core.api.serializers import BodySerializer

EXAMPLE_API_KEY = {
    "id": "0c4b1e9e-8d8f-4f0e-9c83-2f7d9d3b5a61",
    "workspaceId": "5d0f3c52-9a57-4a1e-8d6e-0f4b9d1c2a77",
    "name": "Zapier: publish from Notion",
    "prefix": "fgp_Q2xqVmM4",
    "scopes": ["posts:read", "posts:write"],
    "created_at": "2026-11-22T09:30:00.123456Z",
    "expires_at": None,
    "last_used_at": None,
}
API_KEY_CREATED = "API key created. Copy it now: it is not shown again."


class ApiKeySerializer(serializers.ModelSerializer[ApiKey]):
    """A key as its owner sees it: never the secret, `prefix` to recognise it, `workspaceId`
    the workspace it acts in."""

    workspaceId = serializers.UUIDField(source="workspace_id", read_only=True)
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=Scope.choices))

    class Meta:
        model = ApiKey
        fields: tuple[str, ...] = (
            "id",
            "workspaceId",
            "name",
            "prefix",
            "scopes",
            "created_at",
            "expires_at",
            "last_used_at",
        )
        read_only_fields = fields


class ApiKeyCreatedSerializer(ApiKeySerializer):
    """The answer of creation: the one time the key itself is shown."""

    key = serializers.SerializerMethodField(
        help_text="The API key (`fgp_` and 40 characters): shown once, store it now."
    )

    class Meta(ApiKeySerializer.Meta):
        fields = (*ApiKeySerializer.Meta.fields, "key")
        read_only_fields = fields

    def get_key(self, key: ApiKey) -> str:
        return str(self.context["key"])


class ApiKeyListView(WorkspaceScoped, generics.ListAPIView[ApiKey]):
    """The signed-in user's API keys of the request's workspace (revoked ones are gone; expired
    ones stay until revoked, with their `expires_at` in the past), and creating one: owners and
    admins of the workspace (403 `permission_denied` otherwise). Sessions only: a key cannot
    list, create or revoke keys."""

    api_key_scopes = KEYS_REFUSED
    serializer_class = ApiKeySerializer
    queryset = ApiKey.objects.none()  # tells the schema generator the model only
    sort_fields = {"created_at": "created_at", "name": "name"}
    schema_error_statuses = (403, 404, 409)  # 404: `workspace_not_found`

    class InputSerializer(BodySerializer):
        name = serializers.CharField(max_length=80, validators=[plain_name_pattern])
        scopes = serializers.ListField(
            child=serializers.ChoiceField(choices=Scope.choices), min_length=1, max_length=20
        )
        expiresAt = serializers.DateTimeField(
            required=False,
            allow_null=True,
            help_text="When the key stops working (ISO 8601, in the future); absent: never.",
        )
        workspaceId = serializers.UUIDField(
            required=False,
            help_text=(
                "The workspace the key acts in, one where the caller is an owner or admin; "
                "absent: the request's workspace (`X-Workspace-Id`, else the personal one)."
            ),
        )

    def get_queryset(self) -> QuerySet[ApiKey]:
        return api_key_list(actor=self.membership)

    @extend_schema(
        operation_id="auth_api_keys_list", tags=["auth"], parameters=[WORKSPACE_PARAMETER]
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="auth_api_keys_create",
        tags=["auth"],
        parameters=[WORKSPACE_PARAMETER],
        request=InputSerializer,
        responses=ApiKeyCreatedSerializer,
        examples=[
            OpenApiExample(
                "A key for an automation",
                request_only=True,
                value={"name": "Zapier: publish from Notion", "scopes": ["posts:write"]},
            ),
            OpenApiExample(
                "Created",
                response_only=True,
                value={
                    "success": True,
                    "message": API_KEY_CREATED,
                    "data": {**EXAMPLE_API_KEY, "key": "fgp_Q2xqVmM4..."},
                },
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        workspace_id = data.get("workspaceId")
        actor = (
            workspace_of(request)
            if workspace_id is None
            else membership_get(user=request_user(request), workspace_id=workspace_id)
        )
        key, secret = api_key_create(
            actor=actor,
            name=data["name"],
            scopes=data["scopes"],
            expires_at=data.get("expiresAt"),
        )
        body = ApiKeyCreatedSerializer(key, context={"key": secret}).data
        return Response(Envelope(data=body, message=API_KEY_CREATED))


class ApiKeyDetailView(APIView):
    """Revoke a key of the request's workspace (owners and admins): the next request that
    sends it is refused (401). Another user's key, a key of another workspace, or one revoked
    already, is 404."""

    api_key_scopes = KEYS_REFUSED
    schema_error_statuses = (403,)

    @extend_schema(
        operation_id="auth_api_keys_revoke",
        tags=["auth"],
        parameters=[WORKSPACE_PARAMETER],
        responses={
            200: inline_serializer("ApiKeyRevoked", {"success": serializers.BooleanField()})
        },
    )
    def delete(self, request: Request, key_id: UUID) -> Response:
        api_key_revoke(actor=workspace_of(request), key_id=key_id)
        return Response(Envelope(data={"success": True}, message="API key revoked"))
