"""Approvals and comments (workspaces.md section 3): a request that a post's version be
approved, by members or by clients through a link of their own, and the comments on a post."""

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from social.models.content import Post


class ApprovalStatus(models.TextChoices):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    STALE = "stale"  # the post changed after it was asked: its decision no longer counts


class ApprovalRequest(models.Model):
    """A request that the post's `version` (a hash of everything that would be sent) be
    approved, by the members named (`approver_ids`; none: the owners and admins) or by a
    client through their link (ApprovalClient). One decision closes it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(
        "accounts.Workspace", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="approval_requests")
    version = models.CharField(max_length=64)
    status = models.CharField(
        max_length=16, choices=ApprovalStatus.choices, default=ApprovalStatus.PENDING
    )
    message = models.TextField(max_length=2000, blank=True, default="")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    approver_ids = models.JSONField(default=list, blank=True)  # user ids as text
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    # Who decided: {type: user | client, id?, name?} (an events' actor).
    decided_by = models.JSONField(default=dict, blank=True)
    comment = models.TextField(max_length=2000, blank=True, default="")

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [
            models.Index(fields=["workspace", "-created_at"], name="social_approval_ws_idx"),
        ]

    def __str__(self) -> str:
        return f"approval of {self.post_id}: {self.status}"


class ApprovalClient(models.Model):
    """A client asked by e-mail: their link's token (only its SHA-256 kept)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    request = models.ForeignKey(ApprovalRequest, on_delete=models.CASCADE, related_name="clients")
    email = models.EmailField(max_length=254)
    token_hash = models.CharField(max_length=64, unique=True)
    status = models.CharField(
        max_length=16, choices=ApprovalStatus.choices, default=ApprovalStatus.PENDING
    )
    name = models.CharField(max_length=120, blank=True, default="")  # as they signed
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("email",)

    def __str__(self) -> str:
        return f"{self.email} on {self.request_id}"


class CommentAuthor(models.TextChoices):
    MEMBER = "member"
    CLIENT = "client"


class PostComment(models.Model):
    """A comment on a post: a member's (through their session) or a client's (through their
    approval link); a rejection's comment is one too."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="comments")
    workspace = models.ForeignKey(
        "accounts.Workspace", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    author_type = models.CharField(max_length=8, choices=CommentAuthor.choices)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    author_name = models.CharField(max_length=120, blank=True, default="")
    body = models.TextField(max_length=2000)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("created_at", "id")

    def __str__(self) -> str:
        return f"{self.author_type} on {self.post_id}"
