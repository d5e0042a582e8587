"""`Idempotency-Key` for every authenticated POST of the API (social.md section 4): one
middleware, not one per view.

The first response for (user, key) is stored for 24 hours and replayed for a repeat with the
same path and body (header `Idempotent-Replayed: true`) without doing the work again. The same
key with another body is 422 `idempotency_key_reused`; a repeat while the first is still
running is 409 `idempotency_key_in_progress`. Server errors (5xx), and refusals a retry may
not meet again (401, 403, 429), are not stored: the key stays usable. A first request whose
process died is taken over after IDEMPOTENCY_ABANDONED_SECONDS.

A stored answer may carry a secret (a webhook endpoint's, a new API key, a session's tokens),
so nothing is stored or replayed before the route's own view has let the caller in: its
authentication classes, its permissions and its API-key scopes, run once the URL is resolved
(`process_view`). A caller the route refuses gets the route's refusal, never a replay.
"""

import hashlib
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from rest_framework.exceptions import APIException
from rest_framework.views import APIView
from rest_framework_simplejwt.exceptions import TokenError

from core.api.envelope import error_response
from core.idempotency import (
    Outcome,
    idempotency_begin,
    idempotency_finish,
    idempotency_release,
    idempotency_stored,
    request_fingerprint,
)
from core.models import IdempotencyRecord

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255
NOT_STORED = frozenset({401, 403, 429})
# Set on the request by the middleware: the header's key, then the record this request writes.
_KEY = "_idempotency_key"
_RECORD = "_idempotency_record"


def _admitted_user_id(
    request: HttpRequest, view_func: Callable[..., HttpResponse], args: Any, kwargs: Any
) -> str | None:
    """The caller's user id when the route's DRF view would let them in now: its own
    authentication (signature, expiry, revoked sessions and keys, an inactive user), its
    permission classes and, for an API key, the scope the route needs. None: anonymous,
    refused, or not a DRF view; the view then answers as it would without the header."""
    view_class = getattr(view_func, "view_class", None)
    if not (isinstance(view_class, type) and issubclass(view_class, APIView)):
        return None
    view = view_class(**getattr(view_func, "view_initkwargs", {}))
    view.setup(request, *args, **kwargs)
    drf_request = view.initialize_request(request, *args, **kwargs)
    try:
        view.perform_authentication(drf_request)
        view.check_permissions(drf_request)
    except (APIException, TokenError):
        return None
    user_id = getattr(drf_request.user, "pk", None)
    return str(user_id) if user_id else None


def _fingerprint(request: HttpRequest) -> str:
    """The request's path and body, hashed. A file upload (multipart) is hashed from its
    parsed fields and files, read in chunks: its body is larger than the JSON bound and is
    never read whole into memory (DRF then takes the parsed form from the request)."""
    method = request.method or "POST"
    if not (request.content_type or "").startswith("multipart/form-data"):
        return request_fingerprint(method, request.path, request.body)
    digest = hashlib.sha256()
    for name in sorted(request.POST):
        for value in request.POST.getlist(name):
            digest.update(f"{name}={value}\n".encode())
    for name in sorted(request.FILES):
        for upload in request.FILES.getlist(name):
            digest.update(f"{name}:{upload.name}:{upload.size}\n".encode())
            for chunk in upload.chunks():
                digest.update(chunk)
            upload.seek(0)
    return request_fingerprint(method, request.path, digest.hexdigest().encode())


def _replay(record: IdempotencyRecord) -> HttpResponse:
    body = idempotency_stored(record)
    response = HttpResponse(body, status=record.status or 200, content_type=record.content_type)
    response[REPLAYED] = "true"
    if record.location:
        response["Location"] = record.location
    return response


class IdempotencyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = request.headers.get(HEADER)
        if request.method != "POST" or key is None or not request.path.startswith("/api/"):
            return self.get_response(request)
        if not 1 <= len(key) <= MAX_KEY_LENGTH:
            return error_response(
                status=400,
                code="validation_error",
                message="Validation Failed",
                details={HEADER: [f"Between 1 and {MAX_KEY_LENGTH} characters."]},
            )
        setattr(request, _KEY, key)
        try:
            response = self.get_response(request)
        except BaseException:
            record = getattr(request, _RECORD, None)
            if record is not None:
                record.delete()
            raise
        record = getattr(request, _RECORD, None)
        if record is not None:
            _finish(record, response)
        return response

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., HttpResponse],
        view_args: Any,
        view_kwargs: Any,
    ) -> HttpResponse | None:
        key = getattr(request, _KEY, None)
        if key is None:
            return None
        user_id = _admitted_user_id(request, view_func, view_args, view_kwargs)
        if user_id is None:  # anonymous or refused: the view answers
            return None
        record, answer = _begin(user_id=user_id, key=key, fingerprint=_fingerprint(request))
        if answer is None:
            setattr(request, _RECORD, record)
        return answer


_REFUSALS = {
    Outcome.REUSED: (
        422,
        "idempotency_key_reused",
        "This Idempotency-Key was used for another request.",
    ),
    Outcome.IN_PROGRESS: (
        409,
        "idempotency_key_in_progress",
        "A request with this Idempotency-Key is still being processed.",
    ),
}


def _begin(
    *, user_id: str, key: str, fingerprint: str
) -> tuple[IdempotencyRecord, HttpResponse | None]:
    begun = idempotency_begin(user_id=user_id, key=key, fingerprint=fingerprint)
    if begun.outcome is Outcome.RUN:
        return begun.record, None
    if begun.outcome is Outcome.REPLAY:
        return begun.record, _replay(begun.record)
    status, code, message = _REFUSALS[begun.outcome]
    return begun.record, error_response(status=status, code=code, message=message)


def _finish(record: IdempotencyRecord, response: HttpResponse) -> None:
    if response.status_code >= 500 or response.status_code in NOT_STORED or response.streaming:
        idempotency_release(record)
        return
    idempotency_finish(
        record,
        status=response.status_code,
        content_type=response.get("Content-Type", "application/json"),
        body=response.content,
        location=response.get("Location", ""),
    )
