"""Each published record's counters on the platform, one row a day."""

import uuid

from django.db import models
from django.utils import timezone

from social.models.connections import PROVIDER_LENGTH, SocialAccount
from social.models.content import Post
from social.models.planning import ScheduledRecord


class AnalyticsRecord(models.Model):
    """A published record's cumulative counters on one day (one row per record and date)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    record = models.ForeignKey(ScheduledRecord, on_delete=models.CASCADE, related_name="metrics")
    workspace = models.ForeignKey(  # the record's
        "accounts.Workspace", on_delete=models.RESTRICT, related_name="+", db_index=False
    )
    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="+")
    account = models.ForeignKey(SocialAccount, on_delete=models.CASCADE, related_name="+")
    provider = models.CharField(max_length=PROVIDER_LENGTH)
    date = models.DateField()
    impressions = models.PositiveBigIntegerField(default=0)
    engagement = models.PositiveBigIntegerField(default=0)
    # What `engagement` is made of, where the platform says (the report's sums: workspaces.md
    # section 4); 0 where it does not, and in rows read before they were kept.
    reactions = models.PositiveBigIntegerField(default=0)
    comments = models.PositiveBigIntegerField(default=0)
    shares = models.PositiveBigIntegerField(default=0)
    clicks = models.PositiveBigIntegerField(default=0)
    collected_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-date", "provider", "id")
        indexes = [models.Index(fields=["workspace", "-date"], name="social_metrics_workspace_idx")]
        constraints = [
            models.UniqueConstraint(fields=["record", "date"], name="social_metrics_once_a_day")
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.date}: {self.impressions}/{self.engagement}/{self.clicks}"
