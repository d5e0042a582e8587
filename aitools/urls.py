"""AI routes (mounted under /api/ and /api/v1/ by config.urls): one per row of the tools'
table (aitools.tools.TOOLS), then the history and the stored records."""

from django.urls import path

from aitools import api
from aitools.tools import TOOLS

urlpatterns = [
    *(
        path(tool.route, api.GenerateView.as_view(tool=tool), name=f"ai-{tool.name}")
        for tool in TOOLS.values()
    ),
    path("history", api.HistoryListView.as_view(), name="history-list"),
    path("history/<uuid:pk>", api.HistoryDetailView.as_view(), name="history-detail"),
    path("gigs", api.GigListView.as_view(), name="gig-list"),
    path("gigs/<uuid:pk>", api.GigDetailView.as_view(), name="gig-detail"),
    path("proposals", api.ProposalListView.as_view(), name="proposal-list"),
    path("proposals/<uuid:pk>", api.ProposalDetailView.as_view(), name="proposal-detail"),
]
