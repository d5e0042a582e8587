"""The preview: exactly what each target would be sent and what it would refuse (social.md
section 9)."""

from typing import Any

from drf_spectacular.utils import (
    extend_schema,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.scopes import Scope
from core.api.envelope import Envelope
from social.api.post_input import (
    MAX_TARGETS,
    PostFields,
    post_fields,
)
from social.content import post_preview


class PreviewPartSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    text = serializers.CharField(help_text="Exactly as sent to the network, escaped.")
    display = serializers.CharField(help_text="As readers see it, for rendering.")
    media = serializers.ListField(child=serializers.DictField())


class PreviewView(APIView):
    """What each target would be sent (social.md section 9): nothing is stored or sent, so a
    key that may read posts may preview them."""

    api_key_scopes = {"POST": Scope.POSTS_READ}
    schema_error_statuses = (404,)  # a `postId` that names no post of yours

    class InputSerializer(PostFields):
        existing = "postId"
        postId = serializers.UUIDField(required=False)
        url = serializers.URLField(required=False, allow_blank=True, max_length=2000)
        accountIds = serializers.ListField(
            child=serializers.UUIDField(), required=False, max_length=MAX_TARGETS
        )

    class TargetSerializer(serializers.Serializer[Any]):
        provider = serializers.CharField()
        accountId = serializers.UUIDField(required=False)
        parts = PreviewPartSerializer(many=True)
        counts = serializers.DictField()
        valid = serializers.BooleanField()
        problems = serializers.ListField(child=serializers.DictField())

    @extend_schema(
        operation_id="social_preview",
        tags=["social"],
        request=InputSerializer,
        responses=TargetSerializer(many=True),
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        fields = post_fields(data)
        platforms = fields.pop("platforms", None) if "accountIds" not in data else None
        previews = post_preview(
            user=request_user(request),
            fields=fields,
            post_id=data.get("postId"),
            account_ids=data.get("accountIds"),
            platforms=platforms,
        )
        valid = sum(preview["valid"] for preview in previews)
        return Response(Envelope(data=previews, message=f"{valid} of {len(previews)} targets fit"))
