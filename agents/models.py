"""Agent connections (agents.md section 2): an API key used on /mcp or an OAuth grant, the
policy its user set for it, what it used of its daily budgets, and the OAuth authorization
requests waiting for their user's consent."""

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
    is used on /mcp, or when its user approves an OAuth client (`kind: oauth`: its `api_key`
    is the grant's own, never shown, and its id is the token family of the grant's refresh
    tokens). Revoking it revokes its credential."""

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


class OAuthRequest(models.Model):
    """An authorization request (`GET /oauth/authorize`) waiting for its user's consent through
    the web client: validated already, decided once (approved: the grant's connection)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    application = models.ForeignKey(
        "oauth2_provider.Application", on_delete=models.CASCADE, related_name="+"
    )
    # What the code will be issued for: redirect_uri, state, the PKCE challenge, resource.
    credentials = models.JSONField(default=dict)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    # Who decided; the first signed-in user to read it claims it (another then gets 404).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    connection = models.ForeignKey(
        AgentConnection, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The code issued at approval, until it is exchanged (agents.oauth.validator).
    grant = models.OneToOneField(
        "oauth2_provider.Grant", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        indexes = [models.Index(fields=["expires_at"], name="agents_oauthreq_expires")]

    def __str__(self) -> str:
        return f"OAuth request {self.pk}"
