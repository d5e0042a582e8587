"""Workspaces: `GET/POST /api/workspaces`, `PATCH/DELETE /api/workspaces/{id}` (workspaces.md
section 1). Sessions only: no API-key scope covers who may act on the hub."""

from typing import Any
from uuid import UUID

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.models import WORKSPACE_NAME_MAX, Membership, WorkspaceRole, plain_name_pattern
from accounts.scopes import KEYS_REFUSED
from accounts.selectors import members_count, membership_get, workspace_memberships
from accounts.services.workspaces import workspace_create, workspace_delete_as, workspace_update
from core.api.envelope import Envelope
from core.api.serializers import BodySerializer

EXAMPLE_WORKSPACE = {
    "id": "7b1c7a52-3c1e-4a8e-9f0e-5d2b7f1e4c33",
    "name": "Acme Bakery",
    "personal": False,
    "role": "owner",
    "members_count": 3,
    "approval_required": False,
    "created_at": "2026-11-27T09:30:00.123456Z",
}


class WorkspaceSerializer(serializers.Serializer[Membership]):
    """A workspace as one of its members sees it (from their membership)."""

    id = serializers.UUIDField(source="workspace.id")
    name = serializers.CharField(source="workspace.name")
    personal = serializers.BooleanField(source="workspace.personal")
    role = serializers.ChoiceField(
        choices=WorkspaceRole.choices, help_text="The caller's role in the workspace."
    )
    members_count = serializers.SerializerMethodField()
    approval_required = serializers.BooleanField(source="workspace.approval_required")
    created_at = serializers.DateTimeField(source="workspace.created_at")

    def get_members_count(self, membership: Membership) -> int:
        counted = getattr(membership, "members_count", None)  # the list's annotation
        return (
            int(counted)
            if counted is not None
            else members_count(workspace_id=membership.workspace_id)
        )


class WorkspaceName(BodySerializer):
    name = serializers.CharField(max_length=WORKSPACE_NAME_MAX, validators=[plain_name_pattern])


class WorkspaceListView(generics.ListAPIView[Membership]):
    """The workspaces the caller belongs to (the personal one included), with their role in
    each; creating a shared one, of which the caller is the owner."""

    api_key_scopes = KEYS_REFUSED
    serializer_class = WorkspaceSerializer
    queryset = Membership.objects.none()
    sort_fields = {"created_at": "workspace__created_at", "name": "workspace__name"}
    schema_error_statuses = (409,)

    def get_queryset(self) -> QuerySet[Membership]:
        return workspace_memberships(user=request_user(self.request))

    @extend_schema(operation_id="workspaces_list", tags=["workspaces"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="workspaces_create",
        tags=["workspaces"],
        request=WorkspaceName,
        responses=WorkspaceSerializer,
        description=(
            "A shared workspace (a client's), the caller its owner. At most "
            "`WORKSPACES_PER_USER` owned (the personal one is not counted): 409 "
            "`workspace_limit`, `details.limit`."
        ),
        examples=[
            OpenApiExample("A client", request_only=True, value={"name": "Acme Bakery"}),
            OpenApiExample(
                "Created",
                response_only=True,
                value={
                    "success": True,
                    "message": "Workspace created",
                    "data": {**EXAMPLE_WORKSPACE, "members_count": 1},
                },
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        serializer = WorkspaceName(data=request.data)
        serializer.is_valid(raise_exception=True)
        membership = workspace_create(
            user=request_user(request), name=serializer.validated_data["name"]
        )
        return Response(
            Envelope(data=WorkspaceSerializer(membership).data, message="Workspace created")
        )


class WorkspaceDetailView(APIView):
    """Change a workspace's settings (owners, admins); delete it with everything it holds
    (owners; never the personal one: 409 `personal_workspace`). A workspace the caller is not
    a member of: 404 `workspace_not_found`."""

    api_key_scopes = KEYS_REFUSED
    schema_error_statuses = (403, 409)

    class UpdateSerializer(BodySerializer):
        name = serializers.CharField(
            max_length=WORKSPACE_NAME_MAX, required=False, validators=[plain_name_pattern]
        )
        approvalRequired = serializers.BooleanField(
            required=False, help_text="Posts of this workspace need an approval to go out."
        )

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if not attrs:
                raise serializers.ValidationError("Send name, approvalRequired or both.")
            return attrs

        def schema_constraints(self) -> dict[str, Any]:
            return {"minProperties": 1}

    @extend_schema(
        operation_id="workspaces_update",
        tags=["workspaces"],
        request=UpdateSerializer,
        responses=WorkspaceSerializer,
    )
    def patch(self, request: Request, workspace_id: UUID) -> Response:
        serializer = self.UpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        membership = workspace_update(
            actor=membership_get(user=request_user(request), workspace_id=workspace_id),
            name=data.get("name"),
            approval_required=data.get("approvalRequired"),
        )
        return Response(
            Envelope(data=WorkspaceSerializer(membership).data, message="Workspace updated")
        )

    @extend_schema(
        operation_id="workspaces_delete",
        tags=["workspaces"],
        responses={
            200: inline_serializer("WorkspaceDeleted", {"success": serializers.BooleanField()})
        },
    )
    def delete(self, request: Request, workspace_id: UUID) -> Response:
        workspace_delete_as(
            actor=membership_get(user=request_user(request), workspace_id=workspace_id)
        )
        return Response(Envelope(data={"success": True}, message="Workspace deleted"))
