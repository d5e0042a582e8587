"""Acting on outcomes (social.md section 12): retry a failed record, retry by filter, resolve
an unconfirmed record; an account's health."""

from typing import Any
from uuid import UUID

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.authentication import request_user
from accounts.roles import Action
from accounts.scopes import Scope
from core.api.envelope import Envelope
from core.api.serializers import BodySerializer, NoBody
from social.api.post_output import RecordDetailSerializer
from social.api.scoping import WorkspaceView
from social.connections import account_health
from social.outcomes import CATEGORIES
from social.publishing import RESOLUTIONS, record_resolve, record_retry, records_retry


class RecordRetryView(WorkspaceView):
    api_key_scopes = {"POST": Scope.POSTS_WRITE}
    workspace_actions = {"POST": Action.PUBLISH}  # it publishes again

    @extend_schema(
        operation_id="social_schedule_retry_one",
        tags=["social"],
        request=None,
        responses=RecordDetailSerializer,
        description="A `Failed` record back to `Scheduled`, due now, its attempts reset (409 "
        "`not_failed` otherwise; 409 `account_not_connected` until the account is "
        "reconnected).",
    )
    def post(self, request: Request, record_id: UUID) -> Response:
        NoBody.check(request.data)
        record = record_retry(workspace_id=self.workspace_id, record_id=record_id)
        return Response(Envelope(data=RecordDetailSerializer(record).data, message="Retrying"))


class RecordsRetryView(WorkspaceView):
    api_key_scopes = {"POST": Scope.POSTS_WRITE}
    workspace_actions = {"POST": Action.PUBLISH}
    schema_error_statuses = (404,)  # an `accountId` or `postId` that names nothing of yours

    class InputSerializer(BodySerializer):
        accountId = serializers.UUIDField(required=False)
        category = serializers.ChoiceField(choices=CATEGORIES, required=False)
        postId = serializers.UUIDField(required=False)

    @extend_schema(
        operation_id="social_schedule_retry",
        tags=["social"],
        request=InputSerializer,
        responses=inline_serializer(
            "RetriedRecords",
            {
                "retriedCount": serializers.IntegerField(),
                "skipped": serializers.ListField(child=serializers.DictField()),
            },
        ),
        description="Every failed record of the workspace that matches, back to `Scheduled`, "
        "due now (`skipped`: those whose account is not connected, or whose target another "
        "record holds).",
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        done = records_retry(
            workspace_id=self.workspace_id,
            account_id=data.get("accountId"),
            category=data.get("category"),
            post_id=data.get("postId"),
        )
        return Response(
            Envelope(
                data={
                    "retriedCount": done.retried,
                    "skipped": [
                        {"recordId": str(skip.record_id), "reason": skip.reason}
                        for skip in done.skipped
                    ],
                },
                message=f"Retrying {done.retried} records",
            )
        )


class RecordResolveView(WorkspaceView):
    api_key_scopes = {"POST": Scope.POSTS_WRITE}
    workspace_actions = {"POST": Action.PUBLISH}  # published, retried or abandoned

    class InputSerializer(BodySerializer):
        action = serializers.ChoiceField(choices=RESOLUTIONS)
        url = serializers.URLField(required=False, max_length=2000)

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if attrs["action"] == "published" and not attrs.get("url"):
                raise serializers.ValidationError(
                    {"url": ["The post's address on the platform, as you saw it."]}
                )
            return attrs

        def schema_constraints(self) -> dict[str, Any]:
            others = "|".join(action for action in RESOLUTIONS if action != "published")
            return {
                "anyOf": [
                    {"properties": {"action": {"pattern": f"^({others})$"}}},
                    {"required": ["url"]},
                ]
            }

    @extend_schema(
        operation_id="social_schedule_resolve",
        tags=["social"],
        request=InputSerializer,
        responses=RecordDetailSerializer,
        description="An `Unconfirmed` record settled by the user (409 `not_unconfirmed` "
        "otherwise): `published` with its `url`, `retry` (looked up once more, then created "
        "if absent), or `abandon` (`Failed`).",
    )
    def post(self, request: Request, record_id: UUID) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        record = record_resolve(
            workspace_id=self.workspace_id,
            user=request_user(request),
            record_id=record_id,
            action=data["action"],
            url=data.get("url", ""),
        )
        return Response(Envelope(data=RecordDetailSerializer(record).data, message="Resolved"))


class AccountHealthView(WorkspaceView):
    api_key_scopes = {"GET": Scope.ACCOUNTS_READ}
    workspace_actions = {"GET": Action.READ}

    class HealthSerializer(serializers.Serializer[Any]):
        status = serializers.CharField()
        checkedAt = serializers.DateTimeField()
        tokenExpiresAt = serializers.DateTimeField(allow_null=True)
        renewable = serializers.BooleanField()
        scopesMissing = serializers.ListField(child=serializers.CharField())
        reachable = serializers.BooleanField(allow_null=True)
        dailyCap = serializers.DictField(allow_null=True)
        problems = serializers.ListField(child=serializers.DictField())

    @extend_schema(
        operation_id="social_account_health",
        tags=["social"],
        responses=HealthSerializer,
        description="One cheap identity call at the platform, answered from the last check "
        "for 5 minutes: the connection's state and expiry, missing permissions, whether the "
        "platform answers, the daily cap's use, and each problem with what to do.",
    )
    def get(self, request: Request, account_id: UUID) -> Response:
        return Response(account_health(workspace_id=self.workspace_id, account_id=account_id))
