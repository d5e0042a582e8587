"""Invitations: `POST/GET /api/workspaces/{id}/invitations`, `DELETE .../invitations/{id}`
and `POST /api/invitations/accept` (workspaces.md section 2). Sessions only."""

from typing import Any
from uuid import UUID

from django.conf import settings
from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api.workspaces import EXAMPLE_WORKSPACE, WorkspaceSerializer
from accounts.authentication import request_user
from accounts.models import Invitation, User, WorkspaceRole
from accounts.scopes import KEYS_REFUSED
from accounts.selectors import invitation_list, membership_get
from accounts.services.invitations import (
    invitation_accept,
    invitation_create,
    invitation_revoke,
)
from core.api.envelope import Envelope
from core.api.serializers import BodySerializer

INVITATION_SENT = "Invitation sent"


class InviterSerializer(serializers.ModelSerializer[User]):
    userId = serializers.UUIDField(source="id", read_only=True)

    class Meta:
        model = User
        fields = ("userId", "email", "full_name")
        read_only_fields = fields


class InvitationSerializer(serializers.ModelSerializer[Invitation]):
    """An open invitation; never its token. Listed until accepted or revoked, an expired one
    with its `expires_at` in the past."""

    invitedBy = InviterSerializer(source="invited_by", read_only=True, allow_null=True)

    class Meta:
        model = Invitation
        fields: tuple[str, ...] = ("id", "email", "role", "invitedBy", "created_at", "expires_at")
        read_only_fields = fields


class InvitationCreatedSerializer(InvitationSerializer):
    inviteUrl = serializers.URLField(
        required=False,
        help_text="The link e-mailed to the address: only when the server runs with "
        "MAGIC_LINK_EXPOSE_URL (development), as `magicUrl` is.",
    )

    class Meta(InvitationSerializer.Meta):
        fields = (*InvitationSerializer.Meta.fields, "inviteUrl")
        read_only_fields = InvitationSerializer.Meta.fields


class InvitationListView(generics.ListAPIView[Invitation]):
    """A workspace's open invitations, and inviting an address (owners, admins; an owner's
    invitation, owners only). Never into a personal workspace (409 `personal_workspace`); at
    most 100 members and pending invitations (409 `member_limit`); an address of a member:
    409 `already_member`. Inviting an address again replaces its open invitation."""

    api_key_scopes = KEYS_REFUSED
    serializer_class = InvitationSerializer
    queryset = Invitation.objects.none()
    sort_fields = {"created_at": "created_at", "email": "email", "expires_at": "expires_at"}
    schema_error_statuses = (403, 409)

    class InputSerializer(BodySerializer):
        email = serializers.EmailField(max_length=254)
        role = serializers.ChoiceField(choices=WorkspaceRole.choices)

    def get_queryset(self) -> QuerySet[Invitation]:
        actor = membership_get(
            user=request_user(self.request), workspace_id=self.kwargs["workspace_id"]
        )
        return invitation_list(actor=actor)

    @extend_schema(operation_id="workspace_invitations_list", tags=["workspaces"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="workspace_invitations_create",
        tags=["workspaces"],
        request=InputSerializer,
        responses=InvitationCreatedSerializer,
        examples=[
            OpenApiExample(
                "An editor",
                request_only=True,
                value={"email": "grace@example.com", "role": "editor"},
            )
        ],
    )
    def post(self, request: Request, workspace_id: UUID) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        invitation, url = invitation_create(
            actor=membership_get(user=request_user(request), workspace_id=workspace_id),
            email=serializer.validated_data["email"],
            role=serializer.validated_data["role"],
        )
        body = dict(InvitationSerializer(invitation).data)
        if settings.MAGIC_LINK_EXPOSE_URL:
            body["inviteUrl"] = url
        return Response(Envelope(data=body, message=INVITATION_SENT))


class InvitationDetailView(APIView):
    """Revoke an open invitation: its link stops working at once."""

    api_key_scopes = KEYS_REFUSED
    schema_error_statuses = (403,)

    @extend_schema(
        operation_id="workspace_invitations_revoke",
        tags=["workspaces"],
        responses={
            200: inline_serializer("InvitationRevoked", {"success": serializers.BooleanField()})
        },
    )
    def delete(self, request: Request, workspace_id: UUID, invitation_id: UUID) -> Response:
        invitation_revoke(
            actor=membership_get(user=request_user(request), workspace_id=workspace_id),
            invitation_id=invitation_id,
        )
        return Response(Envelope(data={"success": True}, message="Invitation revoked"))


class InvitationAcceptView(APIView):
    """Join a workspace with an invitation's token, as the signed-in user, whose e-mail must
    be the invited one (else 403 `invitation_email_mismatch`). A used, revoked, expired or
    unknown token: 400 `invalid_invitation`. Answers the workspace as the new member sees it."""

    api_key_scopes = KEYS_REFUSED
    schema_error_statuses = (403, 409)

    class InputSerializer(BodySerializer):
        token = serializers.CharField(max_length=200)

    @extend_schema(
        operation_id="invitations_accept",
        tags=["workspaces"],
        request=InputSerializer,
        responses=WorkspaceSerializer,
        examples=[
            OpenApiExample(
                "Joined",
                response_only=True,
                value={
                    "success": True,
                    "message": "Invitation accepted",
                    "data": {**EXAMPLE_WORKSPACE, "role": "editor"},
                },
            )
        ],
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        membership = invitation_accept(
            user=request_user(request), token=serializer.validated_data["token"]
        )
        return Response(
            Envelope(data=WorkspaceSerializer(membership).data, message="Invitation accepted")
        )
