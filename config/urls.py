"""Root URLs: every app's API under both /api/ and /api/v1/, plus admin, schema and docs."""

from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config.api.views import api_not_found
from health.views import HealthV1View

# One list of app routes, mounted under both prefixes: the same views answer both.
api_patterns = [
    path("", include("health.urls")),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    # The one shape difference between the prefixes (see the specification's Versioning).
    path("api/v1/health", HealthV1View.as_view(), name="health-v1"),
    path("api/v1/", include(api_patterns)),
    path("api/", include(api_patterns)),
    re_path(r"^api(?:/.*)?$", api_not_found),
]

admin.site.site_header = "Freelancer Growth Platform"
admin.site.site_title = "Freelancer Growth admin"
