"""Analytics records (social.md section 6), and a collection of them asked for now (section 13)."""

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.roles import Action
from accounts.scopes import Scope
from core.api.envelope import Envelope
from core.api.serializers import BodySerializer
from social.api.filters import RangeFilter
from social.api.providers import ProviderField
from social.api.scoping import WorkspaceView
from social.connections import metrics_refresh
from social.models import AnalyticsRecord
from social.selectors import analytics_list


class AnalyticsSerializer(serializers.ModelSerializer[AnalyticsRecord]):
    accountId = serializers.UUIDField(source="account_id", read_only=True)
    postId = serializers.UUIDField(source="post_id", read_only=True)
    recordId = serializers.UUIDField(source="record_id", read_only=True)
    provider = ProviderField()

    class Meta:
        model = AnalyticsRecord
        fields = (
            "id",
            "provider",
            "accountId",
            "postId",
            "recordId",
            "impressions",
            "engagement",
            "clicks",
            "date",
        )


class AnalyticsListView(WorkspaceView, generics.ListAPIView[AnalyticsRecord]):
    api_key_scopes = {"GET": Scope.POSTS_READ}
    workspace_actions = {"GET": Action.READ}
    serializer_class = AnalyticsSerializer
    queryset = AnalyticsRecord.objects.none()
    page_size = 20  # the list convention's default (contract.md)
    max_page_size = 100
    sort_fields = {"date": "date", "impressions": "impressions", "engagement": "engagement"}
    default_sort = "date"

    class FilterSerializer(RangeFilter):
        provider = ProviderField(required=False)
        accountId = serializers.UUIDField(required=False)
        postId = serializers.UUIDField(required=False)
        start = serializers.DateField(required=False, help_text="YYYY-MM-DD, inclusive")
        end = serializers.DateField(required=False, help_text="YYYY-MM-DD, inclusive")

    def get_queryset(self) -> QuerySet[AnalyticsRecord]:
        filters = self.FilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        found = filters.validated_data
        return analytics_list(
            workspace_id=self.workspace_id,
            provider=found.get("provider"),
            account_id=found.get("accountId"),
            post_id=found.get("postId"),
            start=found.get("from"),
            end=found.get("to"),
        )

    @extend_schema(
        operation_id="social_analytics",
        tags=["social"],
        parameters=[FilterSerializer],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class AnalyticsRefreshView(WorkspaceView):
    api_key_scopes = {"POST": Scope.POSTS_WRITE}
    workspace_actions = {"POST": Action.WRITE}
    schema_error_statuses = (404, 429)  # an `accountId` or `postId` not yours; too soon

    class InputSerializer(BodySerializer):
        accountId = serializers.UUIDField(required=False)
        postId = serializers.UUIDField(required=False)

    @extend_schema(
        operation_id="social_analytics_refresh",
        tags=["social"],
        request=InputSerializer,
        responses={
            202: inline_serializer("RefreshQueued", {"queuedCount": serializers.IntegerField()})
        },
        description="Queue a collection, now, of the counters of the workspace's published "
        "records (of `accountId`, of `postId`, when given) that the daily task reads. Each "
        "account at most once per 15 minutes: the records of an account refreshed sooner are "
        "left out, and when all of them are, 429 `rate_limited` with `Retry-After`.",
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        queued = metrics_refresh(
            workspace_id=self.workspace_id,
            account_id=data.get("accountId"),
            post_id=data.get("postId"),
        )
        return Response(
            Envelope(data={"queuedCount": queued}, message="Metrics collection queued"),
            status=202,
        )
