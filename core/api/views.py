"""Fallback views of the API: unknown paths answer a JSON 404, never an HTML page."""

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from core.api.envelope import error_response


# Exempt: the CSRF check would otherwise answer a POST, PUT or DELETE to an unknown path with
# 403 before this view could say 404. Nothing is read or written here, so there is nothing to
# protect.
@csrf_exempt
def api_not_found(request: HttpRequest, *args: object, **kwargs: object) -> JsonResponse:
    return error_response(
        status=404,
        code="not_found",
        message=f"No API route matches {request.method} {request.path}.",
    )
