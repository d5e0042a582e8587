"""The API edge: rate limit, body size and media type checks, and never an HTML error page."""

from collections.abc import Callable
from http import HTTPStatus

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from core import ratelimit
from core.api.envelope import SERVER_ERROR_MESSAGE, error_response
from core.api.hosts import PROBE_PATHS

API_PREFIX = "/api/"
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
# Error codes for statuses that reach the edge as Django HTML pages.
STATUS_CODES = {
    400: "bad_request",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    500: "server_error",
    503: "unavailable",
}


def _is_json(content_type: str) -> bool:
    return content_type == "application/json" or (
        content_type.startswith("application/") and content_type.endswith("+json")
    )


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


# The one endpoint that takes files (multipart/form-data) instead of JSON: media uploads.
UPLOAD_PATHS = frozenset({"/api/social/media", "/api/v1/social/media"})
UPLOAD_OVERHEAD = 64 * 1024  # the multipart framing and form fields around the file


def _is_upload(request: HttpRequest) -> bool:
    return request.path.rstrip("/") in UPLOAD_PATHS and (request.content_type or "").startswith(
        "multipart/form-data"
    )


class ApiEdgeMiddleware:
    """Runs before sessions, auth and views, so a rejected request costs one cache hit.

    Every request is counted, whatever its outcome (failed logins and unknown paths too).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        window = self._count(request)
        if window is not None and window.exceeded:
            response: HttpResponse = error_response(
                status=429,
                code="rate_limited",
                message="Too many requests. Try again later.",
                details={"limit": window.limit, "retryAfter": window.reset},
            )
            response["Retry-After"] = str(window.reset)
        elif request.path.startswith(API_PREFIX):
            response = self._reject_body(request) or self.get_response(request)
            response = self._json_errors(request, response)
        else:
            response = self.get_response(request)

        if window is not None:
            period = settings.RATE_LIMIT_PERIOD_SECONDS
            response["RateLimit-Policy"] = f'"default";q={window.limit};w={period}'
            response["RateLimit"] = f'"default";r={window.remaining};t={window.reset}'
        return response

    def _count(self, request: HttpRequest) -> ratelimit.Window | None:
        """The client's window, or None when the store is down (ratelimit fails open) or the
        request is a health probe (probes come often, from few addresses, and must never be
        told 429: the orchestrator would restart a healthy server)."""
        if request.path.rstrip("/") in PROBE_PATHS:
            return None
        window = ratelimit.hit(
            f"ip:{ratelimit.client_ip(request)}",
            limit=settings.RATE_LIMIT_PER_MINUTE,
            period=settings.RATE_LIMIT_PERIOD_SECONDS,
        )
        return window if window.counted else None

    def _reject_body(self, request: HttpRequest) -> HttpResponse | None:
        if request.method not in BODY_METHODS:
            return None
        upload = request.method == "POST" and _is_upload(request)
        limit = (
            max(
                settings.MEDIA_MAX_UPLOAD_BYTES,
                settings.MEDIA_MAX_VIDEO_BYTES,
                settings.MEDIA_MAX_DOCUMENT_BYTES,
            )
            + UPLOAD_OVERHEAD
            if upload
            else (settings.API_MAX_BODY_BYTES)
        )
        length = _declared_length(request)
        if length > limit:
            return error_response(
                status=413,
                code="payload_too_large",
                message="The request body is larger than the server accepts.",
                details={"maxBytes": limit},
            )
        has_body = length > 0 or "HTTP_TRANSFER_ENCODING" in request.META
        if has_body and not upload and not _is_json(request.content_type or ""):
            return error_response(
                status=415,
                code="unsupported_media_type",
                message=(
                    f'Unsupported media type "{request.content_type or ""}". '
                    "Send Content-Type: application/json."
                ),
            )
        return None

    def _json_errors(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        """Django's own pages (404, 500 with DEBUG on, CSRF 403) become envelopes."""
        if response.status_code < 400 or "json" in response.get("Content-Type", ""):
            return response
        status = response.status_code
        try:
            message = HTTPStatus(status).phrase + "."
        except ValueError:
            message = "Error."
        if status == 500:
            message = SERVER_ERROR_MESSAGE
        replacement = error_response(
            status=status, code=STATUS_CODES.get(status, "error"), message=message
        )
        for header in ("Allow", "Retry-After", "WWW-Authenticate"):
            if header in response:
                replacement[header] = response[header]
        return replacement
