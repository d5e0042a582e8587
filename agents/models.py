"""Agent connections (agents.md section 2): an API key used on /mcp (or, later, an OAuth
grant), the policy its user set for it, and what it used of its daily budgets."""

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

DEFAULT_MAX_POSTS_PER_DAY = 10
DEFAULT_CREDIT_BUDGET_PER_DAY = 20


class AgentKind(models.TextChoices):
    API_KEY = "api_key", "API key"
    OAUTH = "oauth", "OAuth grant"


class AgentConnection(models.Model):
    """One way an agent acts for its user in one workspace. Made the first time an API key
    is used on /mcp; an OAuth grant is another kind of the same (its credential elsewhere).
    Revoking it revokes its credential."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="agent_connections"
    )
    workspace = models.ForeignKey(
        "accounts.Workspace", on_delete=models.CASCADE, related_name="agent_connections"
    )
    kind = models.CharField(max_length=16, choices=AgentKind.choices, default=AgentKind.API_KEY)
    api_key = models.OneToOneField(
        "accounts.ApiKey",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="agent_connection",
    )
    name = models.CharField(max_length=120)
    # What the agent said it is (its MCP client's User-Agent), for its owner's list.
    client = models.CharField(max_length=200, blank=True, default="")
    autopublish = models.BooleanField(default=False)
    max_posts_per_day = models.PositiveIntegerField(default=DEFAULT_MAX_POSTS_PER_DAY)
    credit_budget_per_day = models.PositiveIntegerField(default=DEFAULT_CREDIT_BUDGET_PER_DAY)
    # The accounts it may publish to; null: every account of the workspace.
    account_ids = models.JSONField(null=True, blank=True, default=None)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)
        indexes = [models.Index(fields=["user", "created_at"], name="agents_conn_user_created")]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class AgentUsage(models.Model):
    """What a connection used on one day (UTC): the posts it published, scheduled or queued
    and the credits its AI calls cost, counted before the work (a failed call gives back)."""

    connection = models.ForeignKey(AgentConnection, on_delete=models.CASCADE, related_name="usage")
    day = models.DateField()
    posts = models.PositiveIntegerField(default=0)
    credits = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["connection", "day"], name="agents_usage_once_a_day")
        ]

    def __str__(self) -> str:
        return f"{self.connection_id} on {self.day}"
