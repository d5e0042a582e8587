"""`POST /api/social/scheduler/run`: a cron runner's way to run the scheduler (social.md
section 5); beat runs the same service without it."""

import hmac
from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.scopes import KEYS_REFUSED
from core.api.envelope import Envelope
from core.api.serializers import NoBody
from social.api.errors import outcome_error, outcomes_errors
from social.errors import InvalidCronSecret
from social.publishing import Outcome, scheduler_run


def _result(outcome: Outcome, errors: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": outcome.record_id,
        "postId": outcome.post_id,
        "accountId": outcome.account_id,
        "provider": outcome.provider,
        "success": outcome.success,
        "status": outcome.status,
        **outcome_error(outcome, errors),
    }


class RunResultsField(serializers.ListField):
    """Each attempted record: its ids, provider, status and, when it did not publish, error."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.DictField(), source="outcomes", **kwargs)

    def to_representation(self, data: Any) -> list[Any]:
        errors = self.context.get("errors") or {}
        return [_result(outcome, errors) for outcome in data]


class SchedulerRunSerializer(serializers.Serializer[Any]):
    processedCount = serializers.IntegerField(source="processed")
    successfulCount = serializers.IntegerField(source="successful")
    failedCount = serializers.IntegerField(source="failed")
    executedAt = serializers.DateTimeField(source="executed_at")
    results = RunResultsField()


class SchedulerRunView(APIView):
    api_key_scopes = KEYS_REFUSED
    authentication_classes: list[Any] = []  # the cron secret, not a user
    permission_classes = [AllowAny]
    schema_error_statuses = (401,)  # a wrong or missing X-Cron-Secret

    @extend_schema(
        operation_id="social_scheduler_run",
        tags=["social"],
        auth=[],
        request=None,
        parameters=[OpenApiParameter("X-Cron-Secret", str, OpenApiParameter.HEADER, True)],
        responses=SchedulerRunSerializer,
    )
    def post(self, request: Request) -> Response:
        expected = settings.CRON_SECRET.encode()
        given = request.headers.get("X-Cron-Secret", "").encode()
        # Constant time; with no secret configured nobody gets in.
        if not expected or not hmac.compare_digest(given, expected):
            raise InvalidCronSecret()
        NoBody.check(request.data)
        report = scheduler_run()
        return Response(
            Envelope(
                data=SchedulerRunSerializer(
                    report, context={"errors": outcomes_errors(report.outcomes)}
                ).data,
                message="Scheduler run complete",
            )
        )
