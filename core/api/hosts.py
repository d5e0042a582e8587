"""The Host header, checked once at the top of the stack (before anything calls get_host()).

- Health probes answer whatever the Host: a load balancer probes by 127.0.0.1, an orchestrator
  by the pod's address, and neither is a name the API serves. The probe reveals nothing and
  builds no URL from the host, so its Host is replaced by the first allowed one.
- Any other request with a Host outside ALLOWED_HOSTS gets a JSON 400 in the envelope (never
  Django's HTML page), logged at WARNING once per host per process (a scanner spraying one
  bad name does not flood the log with tracebacks).
"""

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse

from core.api.envelope import error_response

logger = logging.getLogger("config.hosts")

PROBE_PATHS = frozenset({"/api/health", "/api/v1/health"})
LOGGED_HOSTS_KEPT = 1000  # distinct bad hosts remembered per process, then forgotten at once


def _serving_host() -> str:
    for host in settings.ALLOWED_HOSTS:
        if host and host != "*":
            return host.lstrip(".") or "localhost"
    return "localhost"


class HostCheckMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.logged: set[str] = set()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            request.get_host()
        except DisallowedHost:
            if request.path.rstrip("/") in PROBE_PATHS:
                request.META["HTTP_HOST"] = _serving_host()
                request.META.pop("HTTP_X_FORWARDED_HOST", None)
            else:
                return self._refused(request)
        return self.get_response(request)

    def _refused(self, request: HttpRequest) -> HttpResponse:
        host = str(request.META.get("HTTP_HOST", ""))[:255]
        if host not in self.logged:
            if len(self.logged) >= LOGGED_HOSTS_KEPT:
                self.logged.clear()
            self.logged.add(host)
            logger.warning("Refused a request for a host not in ALLOWED_HOSTS: %r", host)
        return error_response(
            status=400,
            code="bad_request",
            message="This host is not served here.",
        )
