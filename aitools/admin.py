"""Admin for AI history, gigs and proposals: read-only, so operators can answer "why was I
charged?" (each entry links its ledger spend and shows input, output and error)."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from accounts.admin import RecentInline, user_admin_extend
from aitools.models import Generation, Gig, Proposal


class ReadOnlyAdmin(admin.ModelAdmin[Any]):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Generation)
class GenerationAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "user", "tool", "status", "credits_charged", "provider")
    list_filter = ("status", "tool", "provider", "is_async")
    search_fields = ("user__email", "title", "id")
    list_select_related = ("user",)
    date_hierarchy = "created_at"
    readonly_fields = (
        "id",
        "user",
        "tool",
        "title",
        "status",
        "credits_charged",
        "spend",
        "provider",
        "tokens_used",
        "is_async",
        "input",
        "output",
        "error",
        "created_at",
        "started_at",
        "completed_at",
    )


@admin.register(Gig)
class GigAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "user", "title", "status")
    list_filter = ("status",)
    search_fields = ("user__email", "title")
    list_select_related = ("user",)


@admin.register(Proposal)
class ProposalAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "user", "title", "status")
    list_filter = ("status",)
    search_fields = ("user__email", "title")
    list_select_related = ("user",)


class RecentGenerationsInline(RecentInline):
    model = Generation
    verbose_name_plural = "Latest AI calls"
    fields = ("created_at", "tool", "title", "status", "credits_charged", "error")
    readonly_fields = fields
    ordering = ("-created_at", "-id")


user_admin_extend(inlines=(RecentGenerationsInline,))
