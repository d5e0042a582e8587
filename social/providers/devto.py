"""Dev.to (Forem): an API key; identity from GET /users/me."""

from typing import Any

import requests
from django.conf import settings

from config import outbound
from social.providers.base import ConnectRequest, Identity

ACCEPT = "application/vnd.forem.api-v1+json"


def _classify(response: requests.Response) -> outbound.OutboundError | None:
    # Forem answers a bad key with 401 {"error": "unauthorized"}; the default classes fit.
    return None


class DevtoAdapter:
    def __init__(self) -> None:
        self.client = outbound.Client(
            "devto", read_timeout=settings.SOCIAL_HTTP_TIMEOUT_SECONDS, classify=_classify
        )

    def _headers(self, api_key: str) -> dict[str, str]:
        return {"api-key": api_key, "Accept": ACCEPT}

    def connect(self, request: ConnectRequest) -> Identity:
        response = self.client.request(
            "GET", f"{settings.DEVTO_API_URL}/users/me", headers=self._headers(request.code)
        )
        me: dict[str, Any] = response.json()
        return Identity(
            provider_user_id=str(me["id"]),
            username=str(me.get("username") or ""),
            display_name=str(me.get("name") or ""),
            avatar=str(me.get("profile_image") or ""),
            access_token=request.code,
        )

    def revoke(self, *, access_token: str, refresh_token: str) -> None:
        """Forem has no revocation endpoint: the user deletes the key in their settings."""
