"""Bluesky (AT Protocol): an app password opens a session, which is kept and refreshed.

createSession is limited (30 per 5 minutes, 300 a day per account), so the session's refresh
token is stored and used; the app password itself is never stored.
"""

from typing import Any

import requests
from django.conf import settings

from config import outbound
from social.providers.base import ConnectRequest, Identity

# Expired or invalid sessions come back as HTTP 400 with these `error` values.
AUTH_ERRORS = frozenset({"ExpiredToken", "InvalidToken", "AuthenticationRequired"})


def _classify(response: requests.Response) -> outbound.OutboundError | None:
    if response.status_code in (400, 401):
        try:
            error = str(response.json().get("error", ""))
        except ValueError:
            error = ""
        if error in AUTH_ERRORS or response.status_code == 401:
            return outbound.AuthenticationError(
                f"Bluesky refused the credentials ({error or response.status_code}).",
                status=response.status_code,
                excerpt=outbound.excerpt(response),
            )
    return None


class BlueskyAdapter:
    def __init__(self) -> None:
        self.client = outbound.Client(
            "bluesky", read_timeout=settings.SOCIAL_HTTP_TIMEOUT_SECONDS, classify=_classify
        )

    def _xrpc(self, method: str) -> str:
        return f"{settings.BLUESKY_SERVICE_URL}/xrpc/{method}"

    def connect(self, request: ConnectRequest) -> Identity:
        session: dict[str, Any] = self.client.request(
            "POST",
            self._xrpc("com.atproto.server.createSession"),
            json={"identifier": request.identifier, "password": request.code},
        ).json()
        profile: dict[str, Any] = self.client.request(
            "GET",
            self._xrpc("app.bsky.actor.getProfile"),
            params={"actor": session["did"]},
            headers={"Authorization": f"Bearer {session['accessJwt']}"},
        ).json()
        return Identity(
            provider_user_id=str(session["did"]),
            username=str(session.get("handle") or profile.get("handle") or ""),
            display_name=str(profile.get("displayName") or ""),
            email=str(session.get("email") or ""),
            avatar=str(profile.get("avatar") or ""),
            access_token=str(session["accessJwt"]),
            refresh_token=str(session["refreshJwt"]),
        )

    def revoke(self, *, access_token: str, refresh_token: str) -> None:
        """Ends the session at the server (deleteSession takes the refresh token)."""
        if refresh_token:
            self.client.request(
                "POST",
                self._xrpc("com.atproto.server.deleteSession"),
                headers={"Authorization": f"Bearer {refresh_token}"},
                idempotent=True,
            )
