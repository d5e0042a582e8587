"""Publishing now and scheduling: a post's records placed, moved and cancelled (social.md
sections 3 and 4)."""

from typing import Any
from uuid import UUID

from django.db.models import QuerySet
from drf_spectacular.utils import (
    extend_schema,
    inline_serializer,
)
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.authentication import request_user
from accounts.roles import Action
from accounts.scopes import Scope
from core.api.envelope import Envelope
from core.api.serializers import (
    BodySerializer,
    LocalDateTimeField,
    TimeZoneField,
    not_blank,
)
from core.inputs import UNSET
from core.times import iso
from social.api.errors import (
    PublishResultSerializer,
    outcomes_errors,
)
from social.api.filters import RangeFilter
from social.api.post_input import (
    MAX_MEDIA,
    MAX_TARGETS,
    PostFields,
    post_input,
)
from social.api.post_output import (
    PostSerializer,
    RecordDetailSerializer,
    RecordSerializer,
    scheduled_data,
)
from social.api.providers import ProviderListField
from social.api.recurrence import RecurrenceFields, recurrence_input
from social.api.scoping import WorkspaceView
from social.content import PostInput
from social.models import RecordStatus, ScheduledRecord
from social.planning import (
    record_cancel,
    record_move,
    schedule_to_accounts,
    schedule_to_platforms,
)
from social.publishing import publish_now
from social.selectors import (
    record_calendar,
    workspace_record,
)


class PublishView(WorkspaceView):
    api_key_scopes = {"POST": Scope.POSTS_WRITE}
    workspace_actions = {"POST": Action.PUBLISH}

    class InputSerializer(PostFields):
        existing = "postId"
        postId = serializers.UUIDField(required=False)
        url = serializers.URLField(required=False, allow_blank=True, max_length=2000)
        accountIds = serializers.ListField(
            child=serializers.UUIDField(), min_length=1, max_length=MAX_TARGETS
        )

    @extend_schema(
        operation_id="social_publish",
        tags=["social"],
        request=InputSerializer,
        responses=PublishResultSerializer(many=True),
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        _, outcomes = publish_now(
            workspace_id=self.workspace_id,
            user=request_user(request),
            account_ids=data["accountIds"],
            fields=post_input(data),
            post_id=data.get("postId"),
        )
        published = sum(outcome.success for outcome in outcomes)
        errors = outcomes_errors(outcomes)
        return Response(
            Envelope(
                data=PublishResultSerializer(outcomes, many=True, context={"errors": errors}).data,
                message=f"Published to {published} of {len(outcomes)} accounts",
            )
        )


class ScheduleView(WorkspaceView, generics.ListAPIView[ScheduledRecord]):
    """POST: schedule (shape A with `accountIds`, shape B with `platforms`); GET: the
    calendar of the workspace's scheduled records."""

    api_key_scopes = {"GET": Scope.POSTS_READ, "POST": Scope.POSTS_WRITE}
    workspace_actions = {"GET": Action.READ, "POST": Action.PUBLISH}
    serializer_class = RecordSerializer
    queryset = ScheduledRecord.objects.none()
    page_size = 20  # the list convention's default (contract.md)
    max_page_size = 100
    sort_fields = {"scheduled_time": "scheduled_time", "created_at": "created_at"}
    default_sort = "scheduled_time"
    default_order = "asc"

    class ShapeA(PostFields):
        existing = "postId"
        postId = serializers.UUIDField(required=False)
        url = serializers.URLField(required=False, allow_blank=True, max_length=2000)
        scheduledTime = LocalDateTimeField()
        timezone = TimeZoneField(required=False)
        accountIds = serializers.ListField(
            child=serializers.UUIDField(), min_length=1, max_length=MAX_TARGETS
        )
        recurrence = RecurrenceFields(required=False)

    class ShapeB(BodySerializer):
        content = serializers.CharField(
            max_length=100_000, trim_whitespace=False, validators=[not_blank]
        )
        platforms = ProviderListField(min_length=1)
        scheduledAt = LocalDateTimeField()
        mediaIds = serializers.ListField(
            child=serializers.UUIDField(), required=False, max_length=MAX_MEDIA
        )

    class FilterSerializer(RangeFilter):
        status = serializers.ChoiceField(choices=RecordStatus.choices, required=False)
        accountId = serializers.UUIDField(required=False)
        start = serializers.DateTimeField(required=False, help_text="ISO 8601, inclusive")
        end = serializers.DateTimeField(required=False, help_text="ISO 8601, inclusive")

    def get_queryset(self) -> QuerySet[ScheduledRecord]:
        filters = self.FilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        found = filters.validated_data
        return record_calendar(
            workspace_id=self.workspace_id,
            status=found.get("status"),
            account_id=found.get("accountId"),
            start=found.get("from"),
            end=found.get("to"),
        )

    @extend_schema(
        operation_id="social_schedule_list",
        tags=["social"],
        parameters=[FilterSerializer],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="social_schedule",
        tags=["social"],
        request=ShapeA,
        responses=inline_serializer(
            "ScheduleResult",
            {"post": PostSerializer(), "scheduledRecords": RecordSerializer(many=True)},
        ),
    )
    def post(self, request: Request) -> Response:
        user = request_user(request)
        if "accountIds" not in request.data and "platforms" in request.data:
            shape_b = self.ShapeB(data=request.data)
            shape_b.is_valid(raise_exception=True)
            data = shape_b.validated_data
            fields = PostInput(content=data["content"], media_ids=data.get("mediaIds") or UNSET)
            platforms = list(dict.fromkeys(data["platforms"]))
            done = schedule_to_platforms(
                workspace_id=self.workspace_id,
                user=user,
                platforms=platforms,
                scheduled_at=data["scheduledAt"],
                fields=fields,
            )
            return Response(
                Envelope(
                    data={
                        "scheduleId": str(done.post.pk),
                        "status": "scheduled",
                        "scheduledAt": iso(done.scheduled_at),
                        "platforms": platforms,
                    },
                    message="Post scheduled",
                )
            )
        shape_a = self.ShapeA(data=request.data)
        shape_a.is_valid(raise_exception=True)
        data = shape_a.validated_data
        done = schedule_to_accounts(
            workspace_id=self.workspace_id,
            user=user,
            account_ids=data["accountIds"],
            scheduled_time=data["scheduledTime"],
            zone_name=data.get("timezone"),
            fields=post_input(data),
            post_id=data.get("postId"),
            recurrence=recurrence_input(data["recurrence"]) if "recurrence" in data else None,
        )
        return Response(Envelope(data=scheduled_data(done), message="Post scheduled"))


class ScheduleDetailView(WorkspaceView):
    api_key_scopes = {
        "GET": Scope.POSTS_READ,
        "PATCH": Scope.POSTS_WRITE,
        "DELETE": Scope.POSTS_WRITE,
    }
    # Moving a record schedules it anew; cancelling one takes it off the calendar.
    workspace_actions = {"GET": Action.READ, "PATCH": Action.PUBLISH, "DELETE": Action.WRITE}

    @extend_schema(
        operation_id="social_schedule_get",
        tags=["social"],
        responses=RecordDetailSerializer,
    )
    def get(self, request: Request, record_id: UUID) -> Response:
        record = workspace_record(workspace_id=self.workspace_id, record_id=record_id)
        return Response(RecordDetailSerializer(record).data)

    class MoveSerializer(BodySerializer):
        scheduledTime = LocalDateTimeField()
        timezone = TimeZoneField(required=False)

    @extend_schema(
        operation_id="social_schedule_move",
        tags=["social"],
        request=MoveSerializer,
        responses=RecordSerializer,
    )
    def patch(self, request: Request, record_id: UUID) -> Response:
        serializer = self.MoveSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        record = record_move(
            workspace_id=self.workspace_id,
            record_id=record_id,
            scheduled_time=data["scheduledTime"],
            zone_name=data.get("timezone"),
        )
        return Response(Envelope(data=RecordSerializer(record).data, message="Moved"))

    class CancelSerializer(serializers.Serializer[Any]):
        series = serializers.BooleanField(
            required=False, default=False, help_text="End the record's series (a recurring post)."
        )

    @extend_schema(
        operation_id="social_schedule_cancel",
        tags=["social"],
        parameters=[CancelSerializer],
        responses={200: RecordSerializer},
    )
    def delete(self, request: Request, record_id: UUID) -> Response:
        query = self.CancelSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        record = record_cancel(
            workspace_id=self.workspace_id,
            record_id=record_id,
            series=query.validated_data["series"],
        )
        return Response(Envelope(data=RecordSerializer(record).data, message="Cancelled"))
