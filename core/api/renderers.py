"""The envelope renderer: wraps every successful DRF response body in the envelope."""

from collections.abc import Mapping
from typing import Any

from rest_framework.renderers import JSONRenderer

from core.api.envelope import Envelope


class EnvelopeJSONRenderer(JSONRenderer):
    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        response = (renderer_context or {}).get("response")
        if response is not None and (
            getattr(response, "exception", False) or response.status_code >= 400
        ):
            body = data  # the exception handler already built the error envelope
        elif isinstance(data, Envelope):
            body = data.body()
        else:
            body = {"success": True} if data is None else {"success": True, "data": data}
        return super().render(body, accepted_media_type, renderer_context)
