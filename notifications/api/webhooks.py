"""Outgoing webhook endpoints and deliveries: `/api/webhooks/...` (social.md section 7), in the
request's workspace (`X-Workspace-Id`), for its owners and admins (docs/webhooks.md)."""

import json
from typing import Any
from uuid import UUID

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api.scoping import WORKSPACE_PARAMETER, WorkspaceScoped
from accounts.scopes import Scope
from core.api.envelope import Envelope
from core.api.serializers import BodySerializer, NoBody
from core.inputs import UNSET
from notifications.events import EVENTS
from notifications.models import DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from notifications.selectors import delivery_get, delivery_list, endpoint_list
from notifications.services.webhooks import (
    EndpointChanges,
    delivery_redeliver,
    endpoint_create,
    endpoint_delete,
    endpoint_get,
    endpoint_rotate,
    endpoint_test,
    endpoint_update,
)

EVENT_CHOICES = sorted(EVENTS)


ENDPOINT_FIELDS: tuple[str, ...] = (
    "id",
    "url",
    "events",
    "description",
    "active",
    "disabled_reason",
    "created_at",
)


class EndpointSerializer(serializers.ModelSerializer[WebhookEndpoint]):
    disabled_reason = serializers.SerializerMethodField()

    class Meta:
        model = WebhookEndpoint
        fields = ENDPOINT_FIELDS

    def get_disabled_reason(self, endpoint: WebhookEndpoint) -> str | None:
        """Why the endpoint was disabled; null while it is not (social.md section 7)."""
        return endpoint.disabled_reason or None


class EndpointWithSecretSerializer(EndpointSerializer):
    """The record with its secret: only in the answers of create and rotate."""

    secret = serializers.SerializerMethodField()

    class Meta(EndpointSerializer.Meta):
        fields = (*ENDPOINT_FIELDS, "secret")

    def get_secret(self, endpoint: WebhookEndpoint) -> str:
        return str(self.context["secret"])


class EndpointFields(BodySerializer):
    url = serializers.URLField(max_length=2000)
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=EVENT_CHOICES), min_length=1, max_length=20
    )
    description = serializers.CharField(
        max_length=500, required=False, allow_blank=True, default=""
    )
    active = serializers.BooleanField(required=False, default=True)


# Every operation here acts in the request's workspace: 403 for a role that may not manage it,
# 404 `workspace_not_found` for a workspace the caller is not in.
SCOPED_ERRORS = (403, 404)


class EndpointListView(WorkspaceScoped, generics.ListAPIView[WebhookEndpoint]):
    api_key_scopes = {"GET": Scope.WEBHOOKS_WRITE, "POST": Scope.WEBHOOKS_WRITE}
    serializer_class = EndpointSerializer
    queryset = WebhookEndpoint.objects.none()
    schema_error_statuses = (*SCOPED_ERRORS, 409)

    def get_queryset(self) -> QuerySet[WebhookEndpoint]:
        return endpoint_list(actor=self.membership)

    @extend_schema(
        operation_id="webhook_endpoints_list", tags=["webhooks"], parameters=[WORKSPACE_PARAMETER]
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="webhook_endpoints_create",
        tags=["webhooks"],
        parameters=[WORKSPACE_PARAMETER],
        request=EndpointFields,
        responses=EndpointWithSecretSerializer,
    )
    def post(self, request: Request) -> Response:
        serializer = EndpointFields(data=request.data)
        serializer.is_valid(raise_exception=True)
        endpoint, secret = endpoint_create(actor=self.membership, **serializer.validated_data)
        data = EndpointWithSecretSerializer(endpoint, context={"secret": secret}).data
        return Response(Envelope(data=data, message="Webhook endpoint created"))


class EndpointDetailView(WorkspaceScoped, APIView):
    api_key_scopes = {
        "GET": Scope.WEBHOOKS_WRITE,
        "PATCH": Scope.WEBHOOKS_WRITE,
        "DELETE": Scope.WEBHOOKS_WRITE,
    }
    schema_error_statuses = SCOPED_ERRORS

    class PatchSerializer(EndpointFields):
        url = serializers.URLField(max_length=2000, required=False)
        events = serializers.ListField(
            child=serializers.ChoiceField(choices=EVENT_CHOICES),
            min_length=1,
            max_length=20,
            required=False,
        )
        description = serializers.CharField(max_length=500, required=False, allow_blank=True)
        active = serializers.BooleanField(required=False)

    @extend_schema(
        operation_id="webhook_endpoints_get",
        tags=["webhooks"],
        parameters=[WORKSPACE_PARAMETER],
        responses=EndpointSerializer,
    )
    def get(self, request: Request, endpoint_id: UUID) -> Response:
        endpoint = endpoint_get(actor=self.membership, endpoint_id=endpoint_id)
        return Response(EndpointSerializer(endpoint).data)

    @extend_schema(
        operation_id="webhook_endpoints_update",
        tags=["webhooks"],
        parameters=[WORKSPACE_PARAMETER],
        request=PatchSerializer,
        responses=EndpointSerializer,
    )
    def patch(self, request: Request, endpoint_id: UUID) -> Response:
        serializer = self.PatchSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        endpoint = endpoint_update(
            actor=self.membership,
            endpoint_id=endpoint_id,
            changes=EndpointChanges(
                url=data.get("url", UNSET),
                events=data.get("events", UNSET),
                description=data.get("description", UNSET),
                active=data.get("active", UNSET),
            ),
        )
        return Response(Envelope(data=EndpointSerializer(endpoint).data, message="Updated"))

    @extend_schema(
        operation_id="webhook_endpoints_delete",
        tags=["webhooks"],
        parameters=[WORKSPACE_PARAMETER],
        responses={
            200: inline_serializer("EndpointDeleted", {"success": serializers.BooleanField()})
        },
    )
    def delete(self, request: Request, endpoint_id: UUID) -> Response:
        endpoint_delete(actor=self.membership, endpoint_id=endpoint_id)
        return Response(Envelope(data={"success": True}, message="Webhook endpoint deleted"))


class EndpointRotateView(WorkspaceScoped, APIView):
    api_key_scopes = {"POST": Scope.WEBHOOKS_WRITE}
    schema_error_statuses = SCOPED_ERRORS

    @extend_schema(
        operation_id="webhook_endpoints_rotate_secret",
        tags=["webhooks"],
        parameters=[WORKSPACE_PARAMETER],
        request=None,
        responses=EndpointWithSecretSerializer,
    )
    def post(self, request: Request, endpoint_id: UUID) -> Response:
        NoBody.check(request.data)
        endpoint, secret = endpoint_rotate(actor=self.membership, endpoint_id=endpoint_id)
        data = EndpointWithSecretSerializer(endpoint, context={"secret": secret}).data
        return Response(
            Envelope(data=data, message="Secret rotated; the previous one signs for 24 hours")
        )


class EndpointTestView(WorkspaceScoped, APIView):
    api_key_scopes = {"POST": Scope.WEBHOOKS_WRITE}
    schema_error_statuses = SCOPED_ERRORS

    @extend_schema(
        operation_id="webhook_endpoints_test",
        tags=["webhooks"],
        parameters=[WORKSPACE_PARAMETER],
        request=None,
        responses={202: inline_serializer("TestQueued", {"deliveryId": serializers.UUIDField()})},
    )
    def post(self, request: Request, endpoint_id: UUID) -> Response:
        NoBody.check(request.data)
        delivery = endpoint_test(actor=self.membership, endpoint_id=endpoint_id)
        return Response(
            Envelope(data={"deliveryId": str(delivery.pk)}, message="Test event queued"),
            status=202,
        )


DELIVERY_FIELDS: tuple[str, ...] = (
    "id",
    "endpointId",
    "eventId",
    "event",
    "status",
    "attempts",
    "lastStatusCode",
    "lastError",
    "next_attempt_at",
    "created_at",
    "delivered_at",
)


class DeliverySerializer(serializers.ModelSerializer[WebhookDelivery]):
    endpointId = serializers.UUIDField(source="endpoint_id", read_only=True)
    eventId = serializers.UUIDField(source="event_id", read_only=True)
    lastStatusCode = serializers.IntegerField(source="last_status_code", read_only=True)
    lastError = serializers.CharField(source="last_error", read_only=True)

    class Meta:
        model = WebhookDelivery
        fields = DELIVERY_FIELDS


class AttemptSerializer(serializers.ModelSerializer[WebhookAttempt]):
    statusCode = serializers.IntegerField(source="status_code", read_only=True)
    durationMs = serializers.IntegerField(source="duration_ms", read_only=True)

    class Meta:
        model = WebhookAttempt
        fields = ("statusCode", "durationMs", "at", "response", "error")


class DeliveryDetailSerializer(DeliverySerializer):
    payload = serializers.SerializerMethodField()
    history = AttemptSerializer(many=True, read_only=True)

    class Meta(DeliverySerializer.Meta):
        fields = (*DELIVERY_FIELDS, "payload", "history")

    def get_payload(self, delivery: WebhookDelivery) -> Any:
        return json.loads(delivery.body)


class DeliveryListView(WorkspaceScoped, generics.ListAPIView[WebhookDelivery]):
    api_key_scopes = {"GET": Scope.WEBHOOKS_WRITE}
    serializer_class = DeliverySerializer
    queryset = WebhookDelivery.objects.none()
    schema_error_statuses = SCOPED_ERRORS

    class FilterSerializer(serializers.Serializer[Any]):
        endpointId = serializers.UUIDField(required=False)
        event = serializers.CharField(required=False, max_length=64)
        status = serializers.ChoiceField(choices=DeliveryStatus.choices, required=False)

    def get_queryset(self) -> QuerySet[WebhookDelivery]:
        filters = self.FilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        found = filters.validated_data
        return delivery_list(
            actor=self.membership,
            endpoint_id=found.get("endpointId"),
            event=found.get("event"),
            status=found.get("status"),
        )

    @extend_schema(
        operation_id="webhook_deliveries_list",
        tags=["webhooks"],
        parameters=[FilterSerializer, WORKSPACE_PARAMETER],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class DeliveryDetailView(WorkspaceScoped, APIView):
    api_key_scopes = {"GET": Scope.WEBHOOKS_WRITE}
    schema_error_statuses = SCOPED_ERRORS

    @extend_schema(
        operation_id="webhook_deliveries_get",
        tags=["webhooks"],
        parameters=[WORKSPACE_PARAMETER],
        responses=DeliveryDetailSerializer,
    )
    def get(self, request: Request, delivery_id: UUID) -> Response:
        delivery = delivery_get(actor=self.membership, delivery_id=delivery_id)
        return Response(DeliveryDetailSerializer(delivery).data)


class DeliveryRedeliverView(WorkspaceScoped, APIView):
    api_key_scopes = {"POST": Scope.WEBHOOKS_WRITE}
    schema_error_statuses = SCOPED_ERRORS

    @extend_schema(
        operation_id="webhook_deliveries_redeliver",
        tags=["webhooks"],
        parameters=[WORKSPACE_PARAMETER],
        request=None,
        responses={202: DeliverySerializer},
    )
    def post(self, request: Request, delivery_id: UUID) -> Response:
        NoBody.check(request.data)
        delivery = delivery_redeliver(actor=self.membership, delivery_id=delivery_id)
        return Response(
            Envelope(data=DeliverySerializer(delivery).data, message="Redelivery queued"),
            status=202,
        )
