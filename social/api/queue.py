"""The posting queue and best times (social.md section 11)."""

from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.authentication import request_user
from accounts.roles import Action
from accounts.scopes import Scope
from core.api.envelope import Envelope
from core.api.serializers import BodySerializer, NoBody, TimeZoneField
from core.times import iso
from social.api.post_input import MAX_TARGETS, PostFields, post_input
from social.api.post_output import PostSerializer, RecordSerializer, scheduled_data
from social.api.recurrence import RecurrenceFields, recurrence_input
from social.api.scoping import WorkspaceView
from social.models import WEEKDAYS, AccountQueue
from social.planning import (
    POSITIONS,
    SLOT_TIME,
    best_times,
    queue_add,
    queue_of,
    queue_reorder,
    queue_slots_suggest,
    queue_upcoming,
    queue_update,
    slots_sorted,
)

MAX_SLOTS = 50  # a week's slots at most
MAX_REORDER = 10_000  # records in one reorder


class SlotFields(BodySerializer):
    day = serializers.ChoiceField(choices=WEEKDAYS)
    time = serializers.CharField(
        max_length=5,
        help_text="HH:MM, 24-hour, local to the queue",
        validators=[RegexValidator(SLOT_TIME, "A time of day as HH:MM (00:00 to 23:59).")],
    )


class QueueSerializer(serializers.Serializer[Any]):
    """A queue with its next UPCOMING_DAYS of slots, written by hand (to_representation)."""

    accountId = serializers.UUIDField()
    timezone = serializers.CharField()
    paused = serializers.BooleanField()
    slots = SlotFields(many=True)
    upcoming = inline_serializer(
        "QueueSlot",
        {"at": serializers.DateTimeField(), "recordId": serializers.UUIDField(allow_null=True)},
        many=True,
    )

    def to_representation(self, queue: AccountQueue) -> dict[str, Any]:
        return {
            "accountId": str(queue.account_id),
            "timezone": queue.time_zone,
            "paused": queue.paused,
            "slots": slots_sorted(queue.slots),
            "upcoming": [
                {"at": iso(at), "recordId": str(record_id) if record_id else None}
                for at, record_id in queue_upcoming(queue=queue)
            ],
        }


class QueueView(WorkspaceView):
    api_key_scopes = {"GET": Scope.POSTS_READ, "PUT": Scope.POSTS_WRITE}
    workspace_actions = {"GET": Action.READ, "PUT": Action.WRITE}

    class InputSerializer(BodySerializer):
        accountId = serializers.UUIDField(required=False)
        timezone = TimeZoneField(required=False)
        paused = serializers.BooleanField(required=False)
        slots: serializers.ListSerializer[Any] = serializers.ListSerializer(
            child=SlotFields(), required=False, max_length=MAX_SLOTS
        )

        def validate_slots(self, value: list[dict[str, str]]) -> list[dict[str, str]]:
            seen: set[tuple[str, str]] = set()
            for slot in value:
                key = (slot["day"], slot["time"])
                if key in seen:
                    raise serializers.ValidationError(f"{key[0]} {key[1]} is given twice.")
                seen.add(key)
            return [{"day": slot["day"], "time": slot["time"]} for slot in value]

    @extend_schema(operation_id="social_queue_get", tags=["social"], responses=QueueSerializer)
    def get(self, request: Request, account_id: UUID) -> Response:
        queue = queue_of(workspace_id=self.workspace_id, account_id=account_id)
        return Response(QueueSerializer(queue).data)

    @extend_schema(
        operation_id="social_queue_update",
        tags=["social"],
        request=InputSerializer,
        responses=QueueSerializer,
    )
    def put(self, request: Request, account_id: UUID) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if data.get("accountId", account_id) != account_id:
            raise serializers.ValidationError({"accountId": ["Not the account of this queue."]})
        queue = queue_update(
            workspace_id=self.workspace_id,
            account_id=account_id,
            zone_name=data.get("timezone"),
            paused=data.get("paused"),
            slots=data.get("slots"),
        )
        return Response(Envelope(data=QueueSerializer(queue).data, message="Queue saved"))


class QueueAddView(WorkspaceView):
    api_key_scopes = {"POST": Scope.POSTS_WRITE}
    workspace_actions = {"POST": Action.PUBLISH}  # queueing schedules

    class InputSerializer(PostFields):
        existing = "postId"
        postId = serializers.UUIDField(required=False)
        url = serializers.URLField(required=False, allow_blank=True, max_length=2000)
        accountIds = serializers.ListField(
            child=serializers.UUIDField(), min_length=1, max_length=MAX_TARGETS
        )
        position = serializers.ChoiceField(choices=POSITIONS, required=False, default="last")
        recurrence = RecurrenceFields(required=False)

    @extend_schema(
        operation_id="social_queue_add",
        tags=["social"],
        request=InputSerializer,
        responses=inline_serializer(
            "QueueResult",
            {"post": PostSerializer(), "scheduledRecords": RecordSerializer(many=True)},
        ),
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        done = queue_add(
            workspace_id=self.workspace_id,
            user=request_user(request),
            account_ids=data["accountIds"],
            fields=post_input(data),
            post_id=data.get("postId"),
            position=data["position"],
            recurrence=recurrence_input(data["recurrence"]) if "recurrence" in data else None,
        )
        return Response(Envelope(data=scheduled_data(done), message="Post queued"))


class QueueReorderView(WorkspaceView):
    api_key_scopes = {"POST": Scope.POSTS_WRITE}
    workspace_actions = {"POST": Action.WRITE}

    class InputSerializer(BodySerializer):
        recordIds = serializers.ListField(
            child=serializers.UUIDField(), allow_empty=True, max_length=MAX_REORDER
        )

    @extend_schema(
        operation_id="social_queue_reorder",
        tags=["social"],
        request=InputSerializer,
        responses=QueueSerializer,
    )
    def post(self, request: Request, account_id: UUID) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        queue = queue_reorder(
            workspace_id=self.workspace_id,
            account_id=account_id,
            record_ids=serializer.validated_data["recordIds"],
        )
        return Response(Envelope(data=QueueSerializer(queue).data, message="Queue reordered"))


class QueueSuggestView(WorkspaceView):
    api_key_scopes = {"POST": Scope.POSTS_WRITE}
    workspace_actions = {"POST": Action.WRITE}

    @extend_schema(
        operation_id="social_queue_slots_suggest",
        tags=["social"],
        request=None,
        responses=QueueSerializer,
    )
    def post(self, request: Request, account_id: UUID) -> Response:
        NoBody.check(request.data)
        queue = queue_slots_suggest(workspace_id=self.workspace_id, account_id=account_id)
        return Response(Envelope(data=QueueSerializer(queue).data, message="Slots suggested"))


class BestTimesView(WorkspaceView):
    api_key_scopes = {"GET": Scope.POSTS_READ}
    workspace_actions = {"GET": Action.READ}
    schema_error_statuses = (404,)  # an `accountId` that names no account of yours

    class FilterSerializer(serializers.Serializer[Any]):
        accountId = serializers.UUIDField()

    @extend_schema(
        operation_id="social_best_times",
        tags=["social"],
        parameters=[FilterSerializer],
        responses=inline_serializer(
            "BestTimes",
            {
                "accountId": serializers.UUIDField(),
                "timezone": serializers.CharField(),
                "source": serializers.ChoiceField(choices=["analytics", "default"]),
                "times": inline_serializer(
                    "BestTime",
                    {
                        "day": serializers.ChoiceField(choices=WEEKDAYS),
                        "time": serializers.CharField(),
                        "score": serializers.FloatField(),
                    },
                    many=True,
                ),
            },
        ),
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        account_id = filters.validated_data["accountId"]
        queue = queue_of(workspace_id=self.workspace_id, account_id=account_id)
        found = best_times(account=queue.account, zone=ZoneInfo(queue.time_zone))
        return Response(
            {
                "accountId": str(account_id),
                "timezone": queue.time_zone,
                "source": found.source,
                "times": [{"day": t.day, "time": t.time, "score": t.score} for t in found.times],
            }
        )
