"""Analytics records (social.md section 6)."""

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.roles import Action
from accounts.scopes import Scope
from social.api.filters import RangeFilter
from social.api.providers import ProviderField
from social.api.scoping import WorkspaceView
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
