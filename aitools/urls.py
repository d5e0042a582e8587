"""AI routes (mounted under /api/ and /api/v1/ by config.urls)."""

from django.urls import path

from aitools import api

GENERATORS = {
    "proposal/generate": "proposal_generate",
    "gig/generate": "gig_generate",
    "keywords/find": "keywords_find",
    "pricing/optimize": "pricing_optimize",
    "gig/health": "gig_health",
    "portfolio/generate": "portfolio_generate",
    "messages/reply": "messages_reply",
    "reviews/analyze": "reviews_analyze",
    "seo/audit": "seo_audit",
    "social/ai/generate": "social_ai_generate",
}

urlpatterns = [
    *(
        path(route, api.generate_view(tool).as_view(), name=f"ai-{tool}")
        for route, tool in GENERATORS.items()
    ),
    path("history", api.HistoryListView.as_view(), name="history-list"),
    path("history/<uuid:pk>", api.HistoryDetailView.as_view(), name="history-detail"),
    path("gigs", api.GigListView.as_view(), name="gig-list"),
    path("gigs/<uuid:pk>", api.GigDetailView.as_view(), name="gig-detail"),
    path("proposals", api.ProposalListView.as_view(), name="proposal-list"),
    path("proposals/<uuid:pk>", api.ProposalDetailView.as_view(), name="proposal-detail"),
]
