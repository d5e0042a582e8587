"""The content's tables: what a workspace's members write (posts, and the counter of them),
the campaigns that group posts, the media library. Each row belongs to a workspace; `user`
is the member who made it."""

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone


class CampaignStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    ACTIVE = "active", "Active"
    PAUSED = "paused", "Paused"
    COMPLETED = "completed", "Completed"


class Campaign(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey("accounts.Workspace", on_delete=models.RESTRICT, related_name="+")
    user = models.ForeignKey(  # who made it
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaigns", db_index=False
    )
    name = models.CharField(max_length=120)
    description = models.TextField(max_length=2000, blank=True, default="")
    color = models.CharField(max_length=7, blank=True, default="")
    start_date = models.DateField(null=True, blank=True)
    end_date = models.DateField(null=True, blank=True)
    budget = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    goal = models.CharField(max_length=500, blank=True, default="")
    status = models.CharField(
        max_length=16, choices=CampaignStatus.choices, default=CampaignStatus.DRAFT
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return self.name


class PostStatus(models.TextChoices):
    DRAFT = "Draft", "Draft"
    SCHEDULED = "Scheduled", "Scheduled"
    PUBLISHED = "Published", "Published"
    PARTIALLY_PUBLISHED = "PartiallyPublished", "Partially published"
    FAILED = "Failed", "Failed"


class Post(models.Model):
    """What a member wrote in a workspace. `status` is derived from the post's scheduled
    records (stored, so lists filter on it), `Draft` while it has none that count."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(
        "accounts.Workspace",
        on_delete=models.RESTRICT,
        related_name="+",
        db_index=False,  # the list's index leads with it
    )
    user = models.ForeignKey(  # the author
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="posts", db_index=False
    )
    title = models.CharField(max_length=300, blank=True, default="")
    content = models.TextField(max_length=100_000)
    hashtags = models.CharField(max_length=1000, blank=True, default="")
    mentions = models.CharField(max_length=1000, blank=True, default="")
    link = models.CharField(max_length=2000, blank=True, default="")
    media_urls = models.JSONField(default=list, blank=True)
    media_ids = models.JSONField(default=list, blank=True)
    platforms = models.JSONField(default=list, blank=True)  # a draft's intended targets
    # Per network (social.md section 9): {provider: {content?, title?, hashtags?, link?,
    # mediaIds?, mediaUrls?, firstComment?, thread?}}, merged over the post's own fields.
    variants = models.JSONField(default=dict, blank=True)
    thread = models.JSONField(default=list, blank=True)  # follow-up parts [{content, mediaIds?}]
    first_comment = models.TextField(max_length=10_000, blank=True, default="")
    # "|linkedin|bluesky|": the providers in `platforms` or in a record, for the list filter.
    provider_set = models.CharField(max_length=120, blank=True, default="")
    campaign = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.SET_NULL, related_name="posts"
    )
    status = models.CharField(max_length=20, choices=PostStatus.choices, default=PostStatus.DRAFT)
    # Approvals (workspaces.md section 3): whether the post asks for one beyond its
    # workspace's rule, the version last approved ("" none), and its latest request's state.
    requires_approval = models.BooleanField(default=False)
    approved_version = models.CharField(max_length=64, blank=True, default="")
    approval = models.CharField(max_length=16, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [
            models.Index(
                fields=["workspace", "-created_at", "-id"], name="social_post_workspace_idx"
            ),
            models.Index(fields=["campaign"], name="social_post_campaign_idx"),
        ]

    def __str__(self) -> str:
        return self.title or self.content[:60]


class MediaItem(models.Model):
    """A file in a workspace's media library: hosted elsewhere (`url` only) or uploaded here
    (`file`, stored through Django's storage API; `url` is its absolute public address)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(
        "accounts.Workspace", on_delete=models.RESTRICT, related_name="+", db_index=False
    )
    user = models.ForeignKey(  # who added it
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="media", db_index=False
    )
    type = models.CharField(max_length=64)  # MIME type
    url = models.CharField(max_length=2000)
    filename = models.CharField(max_length=255, blank=True, default="")
    size = models.PositiveBigIntegerField()
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    file = models.FileField(upload_to="social/", blank=True, max_length=300)
    alt = models.TextField(max_length=1500, blank=True, default="")  # sent to each network
    duration = models.FloatField(null=True, blank=True)  # a video's, in seconds, from its header
    pages = models.PositiveIntegerField(null=True, blank=True)  # a document's, read from the file
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [
            models.Index(fields=["workspace", "-created_at"], name="social_media_workspace_idx")
        ]

    def __str__(self) -> str:
        return self.filename or self.url


class PostCounter(models.Model):
    """How many posts a workspace has, kept by the services in the transaction of each create
    and delete: the posts list's `meta.total` is one primary-key read instead of a COUNT. A
    workspace without a row is counted once, when the total is first read."""

    workspace = models.OneToOneField(
        "accounts.Workspace", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    total = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.total} posts"
