"""The OAuth client's side of the flow over HTTP, shared by the OAuth tests: registration, an
authorization request with a PKCE S256 challenge, the consent call, the token requests."""

import base64
import hashlib
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

REDIRECT = "http://127.0.0.1:33418/callback"
ALL_SCOPES = "posts:read posts:write accounts:read ai:write notifications:read"


def challenge_of(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def query_of(url: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}


@dataclass
class Flow:
    """One client's run: `client` is any test client with `get`/`post` (Django's or DRF's)."""

    client: Any
    client_id: str = ""
    verifier: str = ""
    state: str = ""

    def register(self, **metadata: Any) -> Any:
        body = {"client_name": "Claude", "redirect_uris": [REDIRECT], **metadata}
        answer = self.client.post("/oauth/register", body, content_type="application/json")
        if answer.status_code == 201:
            self.client_id = answer.json()["client_id"]
        return answer

    def authorize(self, scope: str = ALL_SCOPES, **overrides: str) -> Any:
        self.verifier = secrets.token_urlsafe(48)
        self.state = secrets.token_urlsafe(8)
        params = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": REDIRECT,
            "scope": scope,
            "state": self.state,
            "code_challenge": challenge_of(self.verifier),
            "code_challenge_method": "S256",
            **overrides,
        }
        return self.client.get("/oauth/authorize", {k: v for k, v in params.items() if v})

    def request_id(self, answer: Any) -> str:
        assert answer.status_code == 302, answer.content
        return query_of(answer["Location"])["request"]

    def token(self, code: str, verifier: str | None = None) -> Any:
        return self.client.post(
            "/oauth/token",
            {
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": REDIRECT,
                "client_id": self.client_id,
                "code_verifier": verifier or self.verifier,
            },
        )

    def refresh(self, refresh_token: str) -> Any:
        return self.client.post(
            "/oauth/token",
            {
                "grant_type": "refresh_token",
                "refresh_token": refresh_token,
                "client_id": self.client_id,
            },
        )

    def revoke(self, token: str) -> Any:
        return self.client.post("/oauth/revoke", {"token": token, "client_id": self.client_id})
