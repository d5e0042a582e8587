"""Approvals and comments over HTTP (workspaces.md section 3): members ask for and decide
approvals and comment through their sessions; clients without an account read the post, comment
and decide through their link (`/api/public/approvals/{token}`)."""

from typing import Any
from uuid import UUID

from django.conf import settings
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.roles import Action
from accounts.scopes import KEYS_REFUSED, Scope
from accounts.selectors import membership_get
from core.api.envelope import Envelope
from core.api.serializers import BodySerializer
from core.times import iso
from social.api.preview import target_data
from social.api.scoping import PublicLinkView, WorkspaceView
from social.content import (
    COMMENT_MAX,
    PostInput,
    comment_add,
    comment_data,
    comments_of,
    post_preview,
    workspace_post,
)
from social.errors import ApprovalNotFound
from social.models import ApprovalClient, ApprovalRequest, CommentAuthor
from social.planning import (
    approval_client,
    approval_comment_as_client,
    approval_decide_as_client,
    approval_decide_as_member,
    approval_open,
    approval_request,
)
from social.throttling import PublicApprovalThrottle

DECISIONS = ("approve", "reject")


def request_data(request: ApprovalRequest, urls: dict[str, str] | None = None) -> dict[str, Any]:
    """A request as its members see it; each client's link only when just made and while
    magic-link URLs are exposed (as `magicUrl` is)."""
    shown = urls if settings.MAGIC_LINK_EXPOSE_URL else None
    clients: list[ApprovalClient] = list(request.clients.all())
    return {
        "id": str(request.pk),
        "postId": str(request.post_id),
        "version": request.version,
        "status": request.status,
        "approvers": list(request.approver_ids),
        "clients": [
            {"email": client.email, "status": client.status}
            | ({"approveUrl": shown[client.email]} if shown and client.email in shown else {})
            for client in clients
        ],
        "message": request.message,
        "comment": request.comment,
        "decided_at": iso(request.decided_at) if request.decided_at else None,
        "created_at": iso(request.created_at),
        "expires_at": iso(request.expires_at),
    }


class ApprovalRequestItemSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    postId = serializers.UUIDField()
    version = serializers.CharField()
    status = serializers.ChoiceField(choices=["pending", "approved", "rejected", "stale"])
    approvers = serializers.ListField(child=serializers.UUIDField())
    clients = serializers.ListField(child=serializers.DictField())
    message = serializers.CharField()
    comment = serializers.CharField()
    decided_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


class CommentSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    author = serializers.DictField(help_text="`{type: member | client, name}`")
    body = serializers.CharField()
    created_at = serializers.DateTimeField()


class DecisionInput(BodySerializer):
    decision = serializers.ChoiceField(choices=DECISIONS)
    comment = serializers.CharField(
        required=False, allow_blank=True, max_length=COMMENT_MAX, default=""
    )


class CommentInput(BodySerializer):
    body = serializers.CharField(max_length=COMMENT_MAX)


class ApprovalRequestsView(WorkspaceView):
    api_key_scopes = {"GET": Scope.POSTS_READ, "POST": Scope.POSTS_WRITE}
    workspace_actions = {"GET": Action.READ, "POST": Action.WRITE}
    schema_error_statuses = (404, 409)

    class InputSerializer(BodySerializer):
        approverIds = serializers.ListField(
            child=serializers.UUIDField(), required=False, max_length=100
        )
        clientEmails = serializers.ListField(
            child=serializers.EmailField(max_length=254), required=False, max_length=10
        )
        message = serializers.CharField(
            required=False, allow_blank=True, max_length=2000, default=""
        )

    @extend_schema(
        operation_id="social_approval_requests_list",
        tags=["approvals"],
        responses=ApprovalRequestItemSerializer(many=True),
    )
    def get(self, request: Request, post_id: UUID) -> Response:
        post = workspace_post(workspace_id=self.workspace_id, post_id=post_id)
        found = post.approval_requests.prefetch_related("clients").order_by("-created_at")
        return Response(Envelope(data=[request_data(asked) for asked in found]))

    @extend_schema(
        operation_id="social_approval_requests_create",
        tags=["approvals"],
        request=InputSerializer,
        responses=ApprovalRequestItemSerializer,
        description="Ask for the post's current version to be approved: by the members "
        "named, else the owners and admins, and by clients through links e-mailed to them.",
    )
    def post(self, request: Request, post_id: UUID) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        asked = approval_request(
            actor=self.membership,
            post_id=post_id,
            approver_ids=data.get("approverIds"),
            client_emails=data.get("clientEmails"),
            message=data["message"],
        )
        return Response(
            Envelope(data=request_data(asked.request, asked.urls), message="Approval requested")
        )


class ApprovalDecisionView(APIView):
    """A member's decision on a request of a workspace they belong to: one the request names,
    or, when it names no one, an owner or admin (anyone else: 404). Sessions only: an agent's
    key may ask for approvals, never give them."""

    api_key_scopes = KEYS_REFUSED
    schema_error_statuses = (404, 409, 410)

    @extend_schema(
        operation_id="approval_requests_decide",
        tags=["approvals"],
        request=DecisionInput,
        responses=ApprovalRequestItemSerializer,
    )
    def post(self, request: Request, request_id: UUID) -> Response:
        body = DecisionInput(data=request.data)
        body.is_valid(raise_exception=True)
        user = request_user(request)
        found = ApprovalRequest.objects.filter(pk=request_id).values_list("workspace_id").first()
        if found is None:
            raise ApprovalNotFound()
        actor = membership_get(user=user, workspace_id=found[0])
        decided = approval_decide_as_member(
            actor=actor,
            request_id=request_id,
            approve=body.validated_data["decision"] == "approve",
            comment=body.validated_data["comment"],
        )
        return Response(Envelope(data=request_data(decided), message=f"Post {decided.status}"))


class CommentsView(WorkspaceView):
    api_key_scopes = {"GET": Scope.POSTS_READ, "POST": Scope.POSTS_WRITE}
    workspace_actions = {"GET": Action.READ, "POST": Action.READ}  # the team comments

    @extend_schema(
        operation_id="social_post_comments_list",
        tags=["approvals"],
        responses=CommentSerializer(many=True),
    )
    def get(self, request: Request, post_id: UUID) -> Response:
        post = workspace_post(workspace_id=self.workspace_id, post_id=post_id)
        return Response(Envelope(data=[comment_data(c) for c in comments_of(post_id=post.pk)]))

    @extend_schema(
        operation_id="social_post_comments_create",
        tags=["approvals"],
        request=CommentInput,
        responses=CommentSerializer,
    )
    def post(self, request: Request, post_id: UUID) -> Response:
        body = CommentInput(data=request.data)
        body.is_valid(raise_exception=True)
        post = workspace_post(workspace_id=self.workspace_id, post_id=post_id)
        comment = comment_add(
            post=post,
            author_type=CommentAuthor.MEMBER,
            author=request_user(request),
            author_name="",
            body=body.validated_data["body"],
        )
        return Response(Envelope(data=comment_data(comment), message="Comment added"))


# --- A client's link --------------------------------------------------------------------------


class PublicApprovalView(PublicLinkView):
    """What a client's link shows, with no account: the request, the post as each network
    will show it, and its comments. An unknown token: 404; a closed request (decided, stale,
    expired) still shows, `status` saying so, and takes no decision (410)."""

    throttle_classes = [PublicApprovalThrottle]

    @extend_schema(
        operation_id="public_approvals_get",
        tags=["approvals"],
        auth=[],
        responses=inline_serializer(
            "PublicApproval",
            {
                "status": serializers.CharField(),
                "message": serializers.CharField(),
                "requestedBy": serializers.DictField(),
                "workspace": serializers.DictField(),
                "post": serializers.DictField(),
                "previews": serializers.ListField(child=serializers.DictField()),
                "comments": CommentSerializer(many=True),
            },
        ),
    )
    def get(self, request: Request, token: str) -> Response:
        client = approval_client(token=token)
        asked = client.request
        post = asked.post
        previews = post_preview(workspace_id=post.workspace_id, fields=PostInput(), post_id=post.pk)
        shown = []
        for preview in previews:
            found = target_data(preview)
            found.pop("accountId", None)  # the workspace's own ids stay its own
            shown.append(found)
        requester = asked.requested_by
        status = client.status if client.status != "pending" else asked.status
        if status == "pending" and not approval_open(asked):
            status = "expired"
        data = {
            "status": status,
            "message": asked.message,
            "requestedBy": {"name": (requester.full_name if requester else "") or "A member"},
            "workspace": {"name": asked.workspace.name},
            "post": {
                "content": post.content,
                "title": post.title,
                "media": list(post.media_urls) + [str(m) for m in post.media_ids],
                "targets": sorted({preview["provider"] for preview in shown}),
            },
            "previews": shown,
            "comments": [comment_data(c) for c in comments_of(post_id=post.pk)],
        }
        return Response(Envelope(data=data))


class PublicDecisionView(PublicLinkView):
    throttle_classes = [PublicApprovalThrottle]

    class InputSerializer(DecisionInput):
        name = serializers.CharField(required=False, allow_blank=True, max_length=120)

    @extend_schema(
        operation_id="public_approvals_decide",
        tags=["approvals"],
        auth=[],
        request=InputSerializer,
        responses=inline_serializer("PublicDecision", {"status": serializers.CharField()}),
    )
    def post(self, request: Request, token: str) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        decided = approval_decide_as_client(
            token=token,
            approve=data["decision"] == "approve",
            comment=data["comment"],
            name=data.get("name", ""),
        )
        return Response(Envelope(data={"status": decided.status}, message="Thank you"))


class PublicCommentView(PublicLinkView):
    throttle_classes = [PublicApprovalThrottle]

    class InputSerializer(CommentInput):
        name = serializers.CharField(required=False, allow_blank=True, max_length=120)

    @extend_schema(
        operation_id="public_approvals_comment",
        tags=["approvals"],
        auth=[],
        request=InputSerializer,
        responses=CommentSerializer,
    )
    def post(self, request: Request, token: str) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        comment = approval_comment_as_client(
            token=token,
            body=body.validated_data["body"],
            name=body.validated_data.get("name", ""),
        )
        return Response(Envelope(data=comment_data(comment), message="Comment added"))
