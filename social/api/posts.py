"""Posts: the list, saving one, one post and deleting it (social.md section 3)."""

from functools import cached_property
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
from social.api.post_input import (
    PostFields,
    post_input,
)
from social.api.post_output import (
    PostSerializer,
    post_data,
)
from social.api.providers import ProviderField
from social.api.scoping import WorkspaceView
from social.content import post_delete, post_save, workspace_post
from social.models import Post, PostStatus
from social.selectors import (
    media_urls_of,
    post_list,
    post_total,
)


class PostListView(WorkspaceView, generics.ListAPIView[Post]):
    api_key_scopes = {"GET": Scope.POSTS_READ, "POST": Scope.POSTS_WRITE}
    workspace_actions = {"GET": Action.READ, "POST": Action.WRITE}
    schema_error_statuses = (404,)  # an `id` that names no post of yours
    serializer_class = PostSerializer
    queryset = Post.objects.none()

    def get_serializer(self, *args: Any, **kwargs: Any) -> Any:
        # The page's media items' URLs, in one query for the whole page.
        if args and isinstance(args[0], list):
            kwargs.setdefault("context", self.get_serializer_context())
            kwargs["context"]["media_urls"] = media_urls_of(args[0])
        return super().get_serializer(*args, **kwargs)

    page_size = 20
    max_page_size = 100

    class FilterSerializer(serializers.Serializer[Any]):
        platform = ProviderField(required=False)
        status = serializers.ChoiceField(choices=PostStatus.choices, required=False)
        campaignId = serializers.UUIDField(required=False)

    class InputSerializer(PostFields):
        id = serializers.UUIDField(required=False)

    @cached_property
    def filters(self) -> dict[str, Any]:
        found = self.FilterSerializer(data=self.request.query_params)
        found.is_valid(raise_exception=True)
        return dict(found.validated_data)

    def count_total(self, queryset: QuerySet[Post]) -> int:
        """The workspace's counter when nothing filters the list; a COUNT otherwise."""
        if self.filters:
            return queryset.count()
        return post_total(workspace_id=self.workspace_id)

    def get_queryset(self) -> QuerySet[Post]:
        return post_list(
            workspace_id=self.workspace_id,
            platform=self.filters.get("platform"),
            status=self.filters.get("status"),
            campaign_id=self.filters.get("campaignId"),
        )

    @extend_schema(
        operation_id="social_posts_list",
        tags=["social"],
        parameters=[FilterSerializer],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="social_posts_save",
        tags=["social"],
        request=InputSerializer,
        responses=PostSerializer,
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        post = post_save(
            workspace_id=self.workspace_id,
            user=request_user(request),
            fields=post_input(data),
            post_id=data.get("id"),
        )
        return Response(Envelope(data=post_data(post), message="Post saved"))


class PostDetailView(WorkspaceView):
    api_key_scopes = {"GET": Scope.POSTS_READ, "DELETE": Scope.POSTS_WRITE}
    workspace_actions = {"GET": Action.READ, "DELETE": Action.WRITE}

    @extend_schema(operation_id="social_posts_get", tags=["social"], responses=PostSerializer)
    def get(self, request: Request, post_id: UUID) -> Response:
        post = workspace_post(workspace_id=self.workspace_id, post_id=post_id)
        return Response(post_data(post))

    @extend_schema(
        operation_id="social_posts_delete",
        tags=["social"],
        responses={200: inline_serializer("PostDeleted", {"success": serializers.BooleanField()})},
    )
    def delete(self, request: Request, post_id: UUID) -> Response:
        post_delete(workspace_id=self.workspace_id, post_id=post_id)
        return Response(Envelope(data={"success": True}, message="Post deleted"))


# A result nothing recorded (another run took the record over, or saving it failed): what
# its error code says.
