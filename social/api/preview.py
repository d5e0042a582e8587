"""The preview: exactly what each target would be sent and what it would refuse (social.md
section 9)."""

from dataclasses import replace
from typing import Any

from drf_spectacular.utils import (
    extend_schema,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.roles import Action
from accounts.scopes import Scope
from core.api.envelope import Envelope
from core.inputs import UNSET
from social.api.post_input import (
    MAX_TARGETS,
    PostFields,
    post_input,
)
from social.api.scoping import WorkspaceView
from social.content import TargetPreview, post_preview


class PreviewPartSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    text = serializers.CharField(help_text="Exactly as sent to the network, escaped.")
    display = serializers.CharField(help_text="As readers see it, for rendering.")
    media = serializers.ListField(child=serializers.DictField())


class PreviewView(WorkspaceView):
    """What each target would be sent (social.md section 9): nothing is stored or sent, so a
    key that may read posts may preview them."""

    api_key_scopes = {"POST": Scope.POSTS_READ}
    workspace_actions = {"POST": Action.WRITE}  # the contract's table: preview is writing's
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
        fields = post_input(data)
        platforms: list[str] | None = None
        if "accountIds" not in data:  # the platforms are the targets, not the post's own
            if fields.platforms is not UNSET and fields.platforms:
                platforms = fields.platforms
            fields = replace(fields, platforms=UNSET)
        previews = post_preview(
            workspace_id=self.workspace_id,
            fields=fields,
            post_id=data.get("postId"),
            account_ids=data.get("accountIds"),
            platforms=platforms,
        )
        valid = sum(preview.valid for preview in previews)
        return Response(
            Envelope(
                data=[target_data(preview) for preview in previews],
                message=f"{valid} of {len(previews)} targets fit",
            )
        )


def target_data(preview: TargetPreview) -> dict[str, Any]:
    """One target's preview as PreviewView.TargetSerializer describes it (`accountId` only
    for an account)."""
    found: dict[str, Any] = {"provider": preview.provider}
    if preview.account_id:
        found["accountId"] = preview.account_id
    found.update(
        parts=[
            {
                "kind": part.kind,
                "text": part.text,
                "display": part.display,
                "media": [{"url": media.url, "alt": media.alt} for media in part.media],
            }
            for part in preview.parts
        ],
        counts={"used": preview.used, "limit": preview.limit, "countsBy": preview.counts_by},
        valid=preview.valid,
        problems=[{"field": name, "message": message} for name, message in preview.problems],
    )
    return found
