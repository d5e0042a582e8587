"""Billing endpoints: the user's ledger, and the payment provider's webhook."""

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.scopes import KEYS_REFUSED
from billing.models import CreditTransaction
from billing.selectors import credit_transaction_list
from billing.services.payments import payment_event_receive, payment_signature_verify
from core.api.envelope import Envelope
from core.api.parsers import json_loads


class CreditTransactionListView(generics.ListAPIView[CreditTransaction]):
    """The signed-in user's credit ledger, newest first."""

    # Billing takes a session (the balance: GET /api/auth/me).
    api_key_scopes = KEYS_REFUSED
    page_size = 20
    sort_fields = {"created_at": "created_at"}
    queryset = CreditTransaction.objects.none()  # for the schema; get_queryset scopes to the user

    class OutputSerializer(serializers.ModelSerializer[CreditTransaction]):
        # The row's public UUID: the sequential key would tell the platform's volume.
        id = serializers.UUIDField(source="public_id", read_only=True)

        class Meta:
            model = CreditTransaction
            fields = ("id", "delta", "balance_after", "reason", "reference", "created_at")

    serializer_class = OutputSerializer

    def get_queryset(self) -> Any:
        return credit_transaction_list(user=request_user(self.request))

    @extend_schema(operation_id="credits_transactions_list", tags=["billing"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class PaymentWebhookView(APIView):
    """Razorpay-format events, signed with `X-Payment-Signature` (hex HMAC-SHA256 of the body).

    Every verified event is stored and applied exactly once; a repeated delivery, an event
    for no known user and an unhandled type are all answered 200.
    """

    api_key_scopes = KEYS_REFUSED
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    schema_error_statuses = (401,)

    class InputSerializer(serializers.Serializer[Any]):
        event = serializers.CharField(help_text="order.paid, subscription.charged, payment.failed")
        payload = serializers.DictField(
            help_text="Entities (order, subscription, payment) with `notes.user_id` or "
            "`notes.email`, and `notes.plan` for plan purchases."
        )
        created_at = serializers.IntegerField(required=False)

    class OutputSerializer(serializers.Serializer[Any]):
        eventId = serializers.CharField()
        status = serializers.CharField(help_text="applied, unmatched, invalid or ignored")
        duplicate = serializers.BooleanField()

    @extend_schema(
        operation_id="payment_webhook",
        tags=["billing"],
        request=InputSerializer,
        responses=OutputSerializer,
        parameters=[
            OpenApiParameter("X-Payment-Signature", str, OpenApiParameter.HEADER, required=True),
            OpenApiParameter(
                "X-Payment-Event-Id",
                str,
                OpenApiParameter.HEADER,
                description="The provider's event id; derived from the payload when absent.",
            ),
        ],
        examples=[
            OpenApiExample(
                "Plan purchase",
                request_only=True,
                value={
                    "entity": "event",
                    "event": "order.paid",
                    "payload": {
                        "order": {
                            "entity": {
                                "id": "order_9A33XWu170gUtm",
                                "amount": 49900,
                                "currency": "INR",
                                "notes": {"user_id": "5d7f0e0a-...", "plan": "pro"},
                            }
                        }
                    },
                    "created_at": 1767225600,
                },
            )
        ],
    )
    def post(self, request: Request) -> Response:
        raw_body: bytes = request.body
        payment_signature_verify(
            raw_body=raw_body, signature=request.headers.get("X-Payment-Signature", "")
        )
        try:
            payload = json_loads(raw_body)
        except (UnicodeDecodeError, ValueError) as exc:
            raise ParseError(f"Malformed JSON: {exc}") from exc
        if not isinstance(payload, dict) or not isinstance(payload.get("event"), str):
            raise ValidationError({"event": ["An event object with an `event` name is required."]})
        receipt = payment_event_receive(
            raw_body=raw_body,
            payload=payload,
            event_id=request.headers.get("X-Payment-Event-Id"),
        )
        answer = {
            "eventId": receipt.event.event_id,
            "status": receipt.event.status,
            "duplicate": receipt.duplicate,
        }
        return Response(
            Envelope(
                data=self.OutputSerializer(answer).data,
                message="Already received" if receipt.duplicate else "Received",
            )
        )
