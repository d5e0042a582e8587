"""Personal API keys: `GET/POST /api/auth/api-keys`, `DELETE /api/auth/api-keys/{id}`
(docs/api-keys.md). Sessions only: a key never manages keys."""

from typing import Any
from uuid import UUID

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.models import ApiKey, plain_name_pattern
from accounts.scopes import KEYS_REFUSED, Scope
from accounts.selectors import api_key_list
from accounts.services.api_keys import api_key_create, api_key_revoke
from core.api.envelope import Envelope
from core.api.serializers import BodySerializer

EXAMPLE_API_KEY = {
    "id": "0c4b1e9e-8d8f-4f0e-9c83-2f7d9d3b5a61",
    "name": "Zapier: publish from Notion",
    "prefix": "fgp_Q2xqVmM4",
    "scopes": ["posts:read", "posts:write"],
    "created_at": "2026-11-22T09:30:00.123456Z",
    "expires_at": None,
    "last_used_at": None,
}
API_KEY_CREATED = "API key created. Copy it now: it is not shown again."


class ApiKeySerializer(serializers.ModelSerializer[ApiKey]):
    """A key as its owner sees it: never the secret, `prefix` to recognise it."""

    scopes = serializers.ListField(child=serializers.ChoiceField(choices=Scope.choices))

    class Meta:
        model = ApiKey
        fields: tuple[str, ...] = (
            "id",
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


class ApiKeyListView(generics.ListAPIView[ApiKey]):
    """The signed-in user's API keys (revoked ones are gone; expired ones stay until revoked,
    with their `expires_at` in the past), and creating one. Sessions only: a key cannot list,
    create or revoke keys."""

    api_key_scopes = KEYS_REFUSED
    serializer_class = ApiKeySerializer
    queryset = ApiKey.objects.none()  # tells the schema generator the model only
    sort_fields = {"created_at": "created_at", "name": "name"}
    schema_error_statuses = (409,)

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

    def get_queryset(self) -> QuerySet[ApiKey]:
        return api_key_list(user=request_user(self.request))

    @extend_schema(operation_id="auth_api_keys_list", tags=["auth"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="auth_api_keys_create",
        tags=["auth"],
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
        key, secret = api_key_create(
            user=request_user(request),
            name=data["name"],
            scopes=data["scopes"],
            expires_at=data.get("expiresAt"),
        )
        body = ApiKeyCreatedSerializer(key, context={"key": secret}).data
        return Response(Envelope(data=body, message=API_KEY_CREATED))


class ApiKeyDetailView(APIView):
    """Revoke a key: the next request that sends it is refused (401). Another user's key, or
    one revoked already, is 404."""

    api_key_scopes = KEYS_REFUSED

    @extend_schema(
        operation_id="auth_api_keys_revoke",
        tags=["auth"],
        responses={
            200: inline_serializer("ApiKeyRevoked", {"success": serializers.BooleanField()})
        },
    )
    def delete(self, request: Request, key_id: UUID) -> Response:
        api_key_revoke(user=request_user(request), key_id=key_id)
        return Response(Envelope(data={"success": True}, message="API key revoked"))
