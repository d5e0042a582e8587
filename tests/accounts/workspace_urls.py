"""A URLconf for the workspace resolver's tests: a probe view scoped like a hub view, mounted
beside the real routes (the hub's own views are scoped in the next step of issue 42)."""

from django.urls import URLPattern, URLResolver, path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api.scoping import WorkspaceScoped
from accounts.scopes import ANY_KEY
from config.urls import urlpatterns as real_urlpatterns


class WorkspaceProbeView(WorkspaceScoped, APIView):
    api_key_scopes = {"GET": ANY_KEY}

    def get(self, request: Request) -> Response:
        return Response(
            {
                "workspaceId": str(self.workspace.pk),
                "personal": self.workspace.personal,
                "role": self.membership.role,
            }
        )


urlpatterns: list[URLPattern | URLResolver] = [
    path("api/probe/workspace", WorkspaceProbeView.as_view()),
    *real_urlpatterns,
]
