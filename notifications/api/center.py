"""Notification endpoints: the list, the unread count, read-all, mark one read, delete."""

from typing import Any
from uuid import UUID

from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_field
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.scopes import Scope
from core.api.envelope import Envelope
from core.api.serializers import NoBody
from notifications.models import Notification
from notifications.selectors import (
    notification_list,
    notification_total,
    notification_unread_count,
)
from notifications.services.center import (
    notification_delete,
    notification_mark_read,
    notifications_mark_all_read,
)

READ_ALL_MESSAGE = "All notifications marked as read"
EXAMPLE_NOTIFICATION = {
    "id": "0b5cb1d4-2f0e-4d8a-9d51-6f1f0c2a7e11",
    "user_id": "5d7f0e0a-3f3c-4f59-9a57-2b8e1f6c9a10",
    "title": "Post published",
    "message": "Your post is live on LinkedIn.",
    "category": "Social Hub",
    "type": "post_published",
    "read": False,
    "metadata": {"postId": "9e1c4d2a-7b3f-4c55-8a0e-1d2f3a4b5c6d", "platform": "linkedin"},
    "created_at": "2026-11-22T09:30:00.123456Z",
}


class NotificationSerializer(serializers.ModelSerializer[Notification]):
    """The specification's Notification resource."""

    user_id = serializers.UUIDField(read_only=True)
    metadata = serializers.DictField(read_only=True)

    class Meta:
        model = Notification
        fields = (
            "id",
            "user_id",
            "title",
            "message",
            "category",
            "type",
            "read",
            "metadata",
            "created_at",
        )
        read_only_fields = fields


@extend_schema_field(OpenApiTypes.BOOL)
class QueryBooleanField(serializers.Field[bool, str, bool, Any]):
    """`true` or `false` in any letter case; anything else (1, yes, empty) is refused."""

    default_error_messages = {"invalid": 'Must be "true" or "false".'}

    def get_value(self, dictionary: Any) -> Any:
        # DRF reads an empty query value as "not given"; here `read=` is a wrong value.
        return dictionary.get(self.field_name, serializers.empty)

    def to_internal_value(self, data: Any) -> bool:
        value = str(data).strip().lower()
        if value not in ("true", "false"):
            self.fail("invalid")
        return value == "true"

    def to_representation(self, value: bool) -> bool:
        return value


class NotificationListView(generics.ListAPIView[Notification]):
    """The signed-in user's notifications, newest first; paginated with `page`/`limit`."""

    api_key_scopes = {"GET": Scope.NOTIFICATIONS_READ}
    serializer_class = NotificationSerializer
    queryset = Notification.objects.none()  # tells the schema generator the model only
    page_size = 20
    max_page_size = 50
    # Only created_at: every other order would sort the user's whole set (no index serves it).
    sort_fields = {"created_at": "created_at"}

    class FilterSerializer(serializers.Serializer[Any]):
        read = QueryBooleanField(
            required=False,
            help_text="`true`: read ones only; `false`: unread ones only; absent: all.",
        )

    def _read_filter(self) -> bool | None:
        filters = self.FilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        read: bool | None = filters.validated_data.get("read")
        return read

    def get_queryset(self) -> QuerySet[Notification]:
        return notification_list(user=request_user(self.request), read=self._read_filter())

    def count_total(self, queryset: QuerySet[Notification]) -> int:
        """The pagination's total, from the user's counter instead of a COUNT."""
        return notification_total(user=request_user(self.request), read=self._read_filter())

    @extend_schema(
        operation_id="notifications_list",
        tags=["notifications"],
        parameters=[FilterSerializer],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class NotificationUnreadCountView(APIView):
    """How many of the signed-in user's notifications are unread."""

    api_key_scopes = {"GET": Scope.NOTIFICATIONS_READ}

    class OutputSerializer(serializers.Serializer[Any]):
        unreadCount = serializers.IntegerField(min_value=0)

    @extend_schema(
        operation_id="notifications_unread_count",
        tags=["notifications"],
        responses=OutputSerializer,
        examples=[
            OpenApiExample(
                "Unread", response_only=True, value={"success": True, "data": {"unreadCount": 3}}
            )
        ],
    )
    def get(self, request: Request) -> Response:
        count = notification_unread_count(user=request_user(request))
        return Response(self.OutputSerializer({"unreadCount": count}).data)


class NotificationReadAllView(APIView):
    """Mark every unread notification of the signed-in user read, in one UPDATE."""

    api_key_scopes = {"POST": Scope.NOTIFICATIONS_WRITE}

    class OutputSerializer(serializers.Serializer[Any]):
        updatedCount = serializers.IntegerField(
            min_value=0, help_text="How many were unread before."
        )
        message = serializers.CharField()

    @extend_schema(
        operation_id="notifications_read_all",
        tags=["notifications"],
        request=None,
        responses=OutputSerializer,
        examples=[
            OpenApiExample(
                "Marked",
                response_only=True,
                value={
                    "success": True,
                    "message": READ_ALL_MESSAGE,
                    "data": {"updatedCount": 3, "message": READ_ALL_MESSAGE},
                },
            )
        ],
    )
    def post(self, request: Request) -> Response:
        NoBody.check(request.data)
        updated = notifications_mark_all_read(user=request_user(request))
        data = self.OutputSerializer({"updatedCount": updated, "message": READ_ALL_MESSAGE}).data
        return Response(Envelope(data=data, message=READ_ALL_MESSAGE))


class NotificationReadView(APIView):
    """Mark one notification read (again is fine); answers the notification."""

    api_key_scopes = {"POST": Scope.NOTIFICATIONS_WRITE}

    @extend_schema(
        operation_id="notifications_mark_read",
        tags=["notifications"],
        request=None,
        responses=NotificationSerializer,
        examples=[
            OpenApiExample(
                "Read",
                response_only=True,
                value={"success": True, "data": {**EXAMPLE_NOTIFICATION, "read": True}},
            )
        ],
    )
    def post(self, request: Request, pk: UUID) -> Response:
        NoBody.check(request.data)
        notification = notification_mark_read(user=request_user(request), notification_id=pk)
        return Response(NotificationSerializer(notification).data)


class NotificationDeleteView(APIView):
    """Delete one notification. Another user's notification is answered 404."""

    api_key_scopes = {"DELETE": Scope.NOTIFICATIONS_WRITE}

    class OutputSerializer(serializers.Serializer[Any]):
        id = serializers.UUIDField()
        deleted = serializers.BooleanField()

    @extend_schema(
        operation_id="notifications_delete",
        tags=["notifications"],
        responses={200: OutputSerializer},
        examples=[
            OpenApiExample(
                "Deleted",
                response_only=True,
                value={
                    "success": True,
                    "data": {"id": EXAMPLE_NOTIFICATION["id"], "deleted": True},
                },
            )
        ],
    )
    def delete(self, request: Request, pk: UUID) -> Response:
        notification_delete(user=request_user(request), notification_id=pk)
        return Response(self.OutputSerializer({"id": pk, "deleted": True}).data)
