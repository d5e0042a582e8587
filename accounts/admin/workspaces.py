"""Admin for workspaces: operators see each one with its members and open invitations, and
delete a shared one through the service (`workspace_delete`: with everything it holds).
Members and invitations change only through the API, by the workspace's own owners."""

import logging
from typing import Any

from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from accounts.admin import PANEL_ROWS, user_admin_extend
from accounts.models import Invitation, Membership, User, Workspace
from accounts.services.workspaces import workspace_delete
from core.admin import ReadOnlyAdmin

logger = logging.getLogger(__name__)


class MembershipInline(admin.TabularInline[Membership, Workspace]):
    model = Membership
    fields = readonly_fields = ("user", "role", "joined_at")
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Membership]:
        return super().get_queryset(request).select_related("user")


class InvitationInline(admin.TabularInline[Invitation, Workspace]):
    """Every invitation, open, accepted or revoked (never a token: only its hash is kept,
    and that is not shown)."""

    model = Invitation
    fields = readonly_fields = (
        "email",
        "role",
        "invited_by",
        "created_at",
        "expires_at",
        "accepted_at",
        "revoked_at",
    )
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Invitation]:
        return super().get_queryset(request).select_related("invited_by")


@admin.register(Workspace)
class WorkspaceAdmin(ReadOnlyAdmin):
    list_display = ("name", "personal", "members", "approval_required", "created_at")
    list_filter = ("personal", "approval_required", "created_at")
    search_fields = ("name", "memberships__user__email")
    fields = readonly_fields = (
        "id",
        "name",
        "personal",
        "personal_user",
        "approval_required",
        "created_at",
        "activity",
    )
    inlines = (MembershipInline, InvitationInline)
    actions = ("delete_shared",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Workspace]:
        return super().get_queryset(request).annotate(members_count=Count("memberships"))

    @admin.display(description="Members", ordering="members_count")
    def members(self, obj: Workspace) -> int:
        return int(getattr(obj, "members_count", 0))

    @admin.display(description="Activity")
    def activity(self, obj: Workspace) -> str:
        """A link to the workspace's events (the domain events' list, filtered to it)."""
        url = reverse("admin:notifications_outboxevent_changelist")
        return format_html('<a href="{}?workspace__id__exact={}">Its events</a>', url, obj.pk)

    @admin.action(description="Delete (shared workspaces only, with everything they hold)")
    def delete_shared(self, request: HttpRequest, queryset: QuerySet[Workspace]) -> None:
        deleted = 0
        for workspace in queryset.filter(personal=False):
            workspace_delete(workspace=workspace)
            deleted += 1
        logger.info("%s deleted %d workspace(s)", request.user, deleted)
        skipped = queryset.filter(personal=True).count()
        note = f" {skipped} personal workspace(s) kept: they go with their user." if skipped else ""
        self.message_user(request, f"{deleted} workspace(s) deleted.{note}", messages.SUCCESS)


def _workspaces(user: User) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
    memberships = (
        Membership.objects.filter(user=user)
        .select_related("workspace")
        .order_by("-joined_at", "-id")[:PANEL_ROWS]
    )
    return ("joined", "workspace", "personal", "role"), [
        (m.joined_at, m.workspace.name, "yes" if m.workspace.personal else "", m.role)
        for m in memberships
    ]


user_admin_extend(panels=(("Workspaces", _workspaces),))
