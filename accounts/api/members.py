"""A workspace's members: `GET /api/workspaces/{id}/members`, `PATCH/DELETE
.../members/{userId}` (workspaces.md section 2). Sessions only."""

from typing import Any
from uuid import UUID

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.models import Membership, WorkspaceRole
from accounts.scopes import KEYS_REFUSED
from accounts.selectors import member_list, membership_get
from accounts.services.members import member_remove, member_set_role
from core.api.envelope import Envelope
from core.api.serializers import BodySerializer


class MemberSerializer(serializers.ModelSerializer[Membership]):
    userId = serializers.UUIDField(source="user_id", read_only=True)
    email = serializers.EmailField(source="user.email", read_only=True)
    full_name = serializers.CharField(source="user.full_name", read_only=True)

    class Meta:
        model = Membership
        fields = ("userId", "email", "full_name", "role", "joined_at")
        read_only_fields = fields


class MemberListView(generics.ListAPIView[Membership]):
    """The members of a workspace, for its owners, admins, editors and viewers (a client sees
    no one's e-mail: 403). Not a member: 404 `workspace_not_found`."""

    api_key_scopes = KEYS_REFUSED
    serializer_class = MemberSerializer
    queryset = Membership.objects.none()
    sort_fields = {"joined_at": "joined_at", "email": "user__email", "role": "role"}
    default_sort = "joined_at"
    schema_error_statuses = (403,)

    def get_queryset(self) -> QuerySet[Membership]:
        actor = membership_get(
            user=request_user(self.request), workspace_id=self.kwargs["workspace_id"]
        )
        return member_list(actor=actor)

    @extend_schema(operation_id="workspace_members_list", tags=["workspaces"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class MemberDetailView(APIView):
    """Change a member's role, or remove a member (owners, admins; an owner's role or the
    owner role: owners only). Any member may remove itself: leaving. The last owner can
    neither leave nor be demoted (409 `last_owner`); nobody leaves a personal workspace
    (409 `personal_workspace`)."""

    api_key_scopes = KEYS_REFUSED
    schema_error_statuses = (403, 409)

    class InputSerializer(BodySerializer):
        role = serializers.ChoiceField(choices=WorkspaceRole.choices)

    @extend_schema(
        operation_id="workspace_members_update",
        tags=["workspaces"],
        request=InputSerializer,
        responses=MemberSerializer,
    )
    def patch(self, request: Request, workspace_id: UUID, user_id: UUID) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        member = member_set_role(
            actor=membership_get(user=request_user(request), workspace_id=workspace_id),
            user_id=user_id,
            role=serializer.validated_data["role"],
        )
        return Response(Envelope(data=MemberSerializer(member).data, message="Member updated"))

    @extend_schema(
        operation_id="workspace_members_remove",
        tags=["workspaces"],
        responses={
            200: inline_serializer("MemberRemoved", {"success": serializers.BooleanField()})
        },
    )
    def delete(self, request: Request, workspace_id: UUID, user_id: UUID) -> Response:
        user = request_user(request)
        member_remove(actor=membership_get(user=user, workspace_id=workspace_id), user_id=user_id)
        message = "You left the workspace" if user.pk == user_id else "Member removed"
        return Response(Envelope(data={"success": True}, message=message))
