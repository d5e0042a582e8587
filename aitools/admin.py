"""Admin for AI history, gigs and proposals: read-only, so operators can answer "why was I
charged?" (each entry links its ledger spend and shows input, output and error)."""

from typing import Any

from django.contrib import admin

from accounts.admin import PANEL_ROWS, user_admin_extend
from aitools.models import Generation, Gig, Proposal
from core.admin import ReadOnlyAdmin


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


def _recent_generations(user: Any) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
    rows = Generation.objects.filter(user=user).order_by("-created_at", "-id")
    return ("when", "tool", "title", "status", "credits", "error"), [
        (g.created_at, g.tool, g.title, g.status, g.credits_charged, g.error)
        for g in rows[:PANEL_ROWS]
    ]


user_admin_extend(panels=(("Latest AI calls", _recent_generations),))
