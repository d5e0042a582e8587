"""Fallback views of the API: unknown paths answer a JSON 404, never an HTML page."""

from django.http import HttpRequest, JsonResponse

from config.api.envelope import error_response


def api_not_found(request: HttpRequest, *args: object, **kwargs: object) -> JsonResponse:
    return error_response(
        status=404,
        code="not_found",
        message=f"No API route matches {request.method} {request.path}.",
    )
