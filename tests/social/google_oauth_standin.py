"""Google's OAuth 2.0 endpoints as a stand-in, one for every Google API's stand-in: the app is
one (GOOGLE_CLIENT_ID), and so are its consent page and token endpoint (GOOGLE_AUTH_URL,
GOOGLE_TOKEN_URL), served by YouTube's stand-in, to which Business Profile's is linked (`apis`).

Each API's stand-in (`GoogleAPIStandIn`) says which scopes it serves (`SCOPES`), which of them
the user leaves ticked on the granular consent page (`granted`), and keeps the access tokens
valid for it (`tokens`): the token endpoint issues a token into every API whose scope it
carries, so an API checks a bearer as any stand-in does. A refresh token is one API's
(`REFRESH_TOKEN`), refused (`invalid_grant`) while that API is `expired`, and a consent of an
API with `offline` off answers no refresh token (a consent given before, without
`prompt=consent`)."""

from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import urlencode

from tests.social.standins import Answer, Call, StandIn

GOOGLE_CLIENT = ("yt-client-id.apps.googleusercontent.com", "yt-client-secret")
OAUTH_ROUTES = (
    ("GET", r"/o/oauth2/v2/auth", "authorize"),
    ("POST", r"/token", "token"),
    ("POST", r"/revoke", "revoke"),
)


@dataclass
class GoogleAPIStandIn(StandIn):
    """One Google API's stand-in: the scopes it serves, and the tokens valid for it."""

    tokens: set[str] = field(default_factory=set)
    granted: set[str] = field(default_factory=set)  # set to SCOPES when left empty
    offline: bool = True  # the code's answer carries a refresh token

    SCOPES: ClassVar[tuple[str, ...]] = ()
    REFRESH_TOKEN: ClassVar[str] = ""

    def __post_init__(self) -> None:
        self.granted = self.granted or set(self.SCOPES)


@dataclass
class GoogleOAuthStandIn(GoogleAPIStandIn):
    """Google's consent page, token endpoint and revocation, for itself and its `apis`."""

    codes: dict[str, tuple[str, str, GoogleAPIStandIn]] = field(default_factory=dict)
    apis: list[GoogleAPIStandIn] = field(default_factory=list)

    def served(self) -> list[GoogleAPIStandIn]:
        return [self, *self.apis]

    def authorize(self, call: Call) -> Answer:
        asked = set(call.q("scope").split())
        if call.q("client_id") != GOOGLE_CLIENT[0] or call.q("response_type") != "code":
            return 400, {"error": "invalid_request", "error_description": "bad client"}, {}
        known = {scope for api in self.served() for scope in api.SCOPES}
        owner = next((api for api in self.served() if asked & set(api.SCOPES)), None)
        if owner is None or not asked <= known or call.q("access_type") != "offline":
            return 400, {"error": "invalid_scope", "error_description": "bad scope"}, {}
        granted = asked & {scope for api in self.served() for scope in api.granted}
        code = f"4/google-code-{self.next_id()}"
        with self.lock:
            self.codes[code] = (call.q("redirect_uri"), " ".join(sorted(granted)), owner)
        query = urlencode({"code": code, "state": call.q("state"), "scope": call.q("scope")})
        return 302, b"", {"Location": f"{call.q('redirect_uri')}?{query}"}

    def _access(self, scope: str) -> dict[str, Any]:
        token = f"ya29.google-access-{self.next_id()}"
        with self.lock:
            for api in self.served():
                if set(scope.split()) & set(api.SCOPES):
                    api.tokens.add(token)
        return {"access_token": token, "expires_in": 3599, "scope": scope,
                "token_type": "Bearer"}  # fmt: skip

    def token(self, call: Call) -> Answer:
        form = call.body
        if (form.get("client_id"), form.get("client_secret")) != GOOGLE_CLIENT:
            return 401, {"error": "invalid_client", "error_description": "Unauthorized"}, {}
        grant = form.get("grant_type")
        if grant == "refresh_token":
            said = form.get("refresh_token")
            owner = next((api for api in self.served() if said == api.REFRESH_TOKEN), None)
            if owner is None or owner.expired:
                refused = "Token has been expired or revoked."
                return 400, {"error": "invalid_grant", "error_description": refused}, {}
            return 200, self._access(" ".join(owner.SCOPES)), {}
        with self.lock:
            asked = self.codes.pop(form.get("code", ""), None)
        if grant != "authorization_code" or asked is None or asked[0] != form.get("redirect_uri"):
            return 400, {"error": "invalid_grant", "error_description": "Bad Request"}, {}
        _, scope, owner = asked
        answer = self._access(scope)
        if owner.offline:
            answer["refresh_token"] = owner.REFRESH_TOKEN
        return 200, answer, {}

    def revoke(self, call: Call) -> Answer:
        said = call.body.get("token")
        for api in self.served():
            if said == api.REFRESH_TOKEN or said in api.tokens:
                with self.lock:
                    api.tokens.clear()
                return 200, {}, {}
        return 400, {"error": "invalid_token", "error_description": "Bad Request"}, {}
