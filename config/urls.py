"""Root URLs: every app's API under both /api/ and /api/v1/, plus admin, schema and docs."""

from django.conf import settings
from django.contrib import admin
from django.http import Http404, HttpRequest
from django.http.response import HttpResponseBase
from django.urls import URLPattern, URLResolver, include, path, re_path
from django.views.static import serve
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from accounts.scopes import ANY_KEY
from agents.oauth.urls import root_patterns as oauth_patterns
from core.api.routing import api_fallback, versioned
from health.views import HealthV1View, MetricsView, system_status


class SchemaView(SpectacularAPIView):
    """The OpenAPI schema, public; a key an importer sends along is accepted, any scopes."""

    api_key_scopes = {"GET": ANY_KEY}


class SchemaDocsView(SpectacularSwaggerView):
    """Swagger UI over the schema, public like it."""

    api_key_scopes = {"GET": ANY_KEY}


api_patterns: list[URLPattern | URLResolver] = [
    path("", include("health.urls")),
    path("", include("accounts.urls")),
    path("", include("notifications.urls")),
    path("", include("billing.urls")),
    path("", include("aitools.urls")),
    path("", include("social.urls")),
    path("", include("agents.urls")),
]

urlpatterns = [
    # The admin's "System status" page: staff only, through the admin's own login.
    path("admin/status/", admin.site.admin_view(system_status), name="admin-system-status"),
    path("admin/", admin.site.urls),
    # Prometheus: METRICS_TOKEN as a Bearer (docs/operations.md).
    path("metrics", MetricsView.as_view(), name="metrics"),
    path("api/schema/", SchemaView.as_view(), name="schema"),
    path("api/docs/", SchemaDocsView.as_view(url_name="schema"), name="swagger-ui"),
    # The one shape difference between the prefixes (see the specification's Versioning).
    path("api/v1/health", HealthV1View.as_view(), name="health-v1"),
    *versioned(api_patterns),
    api_fallback(),
]
if settings.MCP_ENABLED:  # OAuth 2.1 for the MCP server's clients (docs/agents.md)
    urlpatterns += oauth_patterns


MEDIA_EXTENSIONS = (".jpg", ".png", ".gif", ".webp", ".mp4", ".mov")


def media(request: HttpRequest, path: str) -> HttpResponseBase:
    """Uploaded media from local storage (the default); a bucket or CDN serves them
    otherwise (MEDIA_SERVE off). Only the names uploads are stored under (an image or video
    extension, so never a type a browser renders as a page), marked so that nothing is
    sniffed into HTML or run: nosniff, a sandboxing CSP, an inline disposition."""
    if not path.lower().endswith(MEDIA_EXTENSIONS):
        raise Http404("No such media file.")
    response = serve(request, path, document_root=settings.MEDIA_ROOT)
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    response["Content-Disposition"] = f'inline; filename="{path.rsplit("/", 1)[-1]}"'
    return response


if settings.MEDIA_SERVE and settings.STORAGES["default"]["BACKEND"].endswith("FileSystemStorage"):
    urlpatterns.insert(0, re_path(r"^media/(?P<path>.+)$", media, name="media"))

admin.site.site_header = "Freelancer Growth Platform"
admin.site.site_title = "Freelancer Growth admin"
admin.site.index_template = "admin/status_index.html"  # links the System status page
