"""The outermost middleware: every request's id, its log context, its access line and its HTTP
metrics (docs/operations.md).

- `X-Request-ID` on every response: the client's own when it sent a sane one (1 to 128
  characters of letters, digits and `._:+=/@-`, as proxies and tracing headers make them), else
  a new random one. The id is this thread's log context while the request runs
  (core.logs), so every line logged for the request carries it, and so does every Celery task
  it queues (the task's `request_id` header).
- One access line per request (ACCESS_LOG, on by default): method, route template, status,
  duration and user, with the path (no query string: tokens travel there) and the client.
- `fgp_http_requests_total` and `fgp_http_request_duration_seconds` by route *template*
  (`/api/social/posts/<uuid:post_id>`), never the raw path: one series per route, whatever ids
  the paths carry; a path no route matches is `unmatched`.
"""

import logging
import re
import time
import uuid
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, ResolverMatch, resolve
from django.utils.functional import SimpleLazyObject, empty

from core import logs, metrics
from core.api.views import api_not_found
from core.ratelimit import client_ip

HEADER = "X-Request-ID"
SANE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+=/@-]{0,127}")
UNMATCHED = "unmatched"

logger = logging.getLogger(__name__)


def request_id_of(request: HttpRequest) -> str:
    """The client's id when it is sane, else a new one."""
    offered = request.META.get("HTTP_X_REQUEST_ID", "")
    if offered and SANE_ID.fullmatch(offered):
        return str(offered)
    return uuid.uuid4().hex


def route_of(request: HttpRequest) -> str:
    """The route template that answered (`/api/social/posts/<uuid:post_id>`); a request stopped
    before routing (a 429 at the edge, a refused host) is routed here, without its view."""
    match: ResolverMatch | None = getattr(request, "resolver_match", None)
    if match is None:
        try:
            match = resolve(request.path_info, getattr(request, "urlconf", None))
        except Resolver404:
            return UNMATCHED
    if match.func is api_not_found or not match.route:
        return UNMATCHED
    return "/" + match.route.removeprefix("^").removesuffix("$")


def user_id_of(request: HttpRequest) -> str:
    """The authenticated user's id, when something already read it (DRF's authentication or
    the admin's session): never a database read of its own."""
    user = request.__dict__.get("user")
    if user is None:
        return ""
    if isinstance(user, SimpleLazyObject) and user._wrapped is empty:  # type: ignore[attr-defined]
        return ""
    if not getattr(user, "is_authenticated", False):
        return ""
    return str(getattr(user, "pk", "") or "")


class AccessMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_of(request)
        context = logs.RequestContext(
            request_id,
            method=request.method or "",
            path=request.path,
            user=lambda: user_id_of(request),
        )
        token = logs.bind(context)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            seconds = time.perf_counter() - started
            response[HEADER] = request_id
            route = route_of(request)
            context.route, context.status = route, response.status_code
            metrics.http_request(
                route=route,
                method=request.method or "",
                status=response.status_code,
                seconds=seconds,
            )
            if settings.ACCESS_LOG:
                self._log(request, route, response.status_code, seconds)
            return response
        finally:
            logs.unbind(token)

    def _log(self, request: HttpRequest, route: str, status: int, seconds: float) -> None:
        logger.log(
            logging.WARNING if status >= 500 else logging.INFO,
            "%s %s %s %.1f ms",
            request.method,
            request.path,
            status,
            seconds * 1000,
            extra={
                "route": route,
                "status": status,
                "duration": round(seconds, 6),
                "client": client_ip(request),
            },
        )
