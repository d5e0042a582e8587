"""The response envelope: `{success, message?, data?, error?, meta?}` and its error form."""

from dataclasses import dataclass
from typing import Any

from django.http import JsonResponse

SERVER_ERROR_MESSAGE = "Internal server error."


@dataclass(frozen=True, slots=True)
class Envelope:
    """Success payload for views that add a `message` or `meta` beside `data`."""

    data: Any = None
    message: str | None = None
    meta: dict[str, Any] | None = None

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"success": True}
        if self.message is not None:
            body["message"] = self.message
        if self.data is not None:
            body["data"] = self.data
        if self.meta is not None:
            body["meta"] = self.meta
        return body


def error_body(*, code: str, message: str, details: Any = None) -> dict[str, Any]:
    return {
        "success": False,
        "message": message,
        "error": {"code": code, "details": details if details is not None else {}},
    }


def error_response(*, status: int, code: str, message: str, details: Any = None) -> JsonResponse:
    """An error envelope outside DRF (middleware, URL fallbacks, Django's error handlers)."""
    return JsonResponse(error_body(code=code, message=message, details=details), status=status)
