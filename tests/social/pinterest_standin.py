"""Pinterest's API v5 as a stand-in (networks/pinterest.md): the consent page (the user may
refuse a scope), the token endpoint taking the app only as HTTP Basic (codes, continuous
refresh: a new access and refresh token each time), revocation, the user account, its boards
(`bookmark` pages), Pins (image, carousel, video: every field checked against its limit, the
board the account's), the board's Pins newest first, Pin analytics, the media flow (register,
the signed upload form answered 204, processing for `video_polls` looks then `succeeded` or
`failed` with `video_fail`), with Pinterest's `{code, message}` errors and rate-limit headers.
`StandIn` gives it `fail`, `expired` (tokens and refresh tokens refused), `scripted`, `acted`
and `video_polls` / `video_fail`."""

import base64
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from tests.social.standins import Answer, Call, StandIn, _bearer, stamp

PINTEREST_APP = ("1500123", "pinterest-app-secret")
SCOPES = ("boards:read", "pins:read", "pins:write", "user_accounts:read")
ACCOUNT = {"id": "549755885175", "username": "adadesigns", "business_name": "Ada Designs",
           "account_type": "BUSINESS"}  # fmt: skip
BOARDS: list[dict[str, Any]] = [
    {"id": "549755885100", "name": "Launches", "privacy": "PUBLIC"},
    {"id": "549755885101", "name": "Studio", "privacy": "PUBLIC"},
    {"id": "549755885102", "name": "Drafts", "privacy": "SECRET"},
]
OTHERS_BOARD = "549755889999"  # a board of another account: 403 code 29
LIMITS = {"title": 100, "description": 800, "link": 2048, "alt_text": 500}
UPLOAD_FIELDS = ("key", "policy", "x-amz-credential", "x-amz-signature")


def _pin_error(status: int, code: int, message: str) -> Answer:
    return status, {"code": code, "message": message}, {}


@dataclass
class PinterestStandIn(StandIn):
    codes: dict[str, tuple[str, str]] = field(default_factory=dict)  # code -> redirect, scope
    tokens: set[str] = field(default_factory=set)
    refresh_tokens: set[str] = field(default_factory=set)
    granted: set[str] = field(default_factory=lambda: set(SCOPES))
    boards: list[dict[str, Any]] = field(default_factory=lambda: [dict(b) for b in BOARDS])
    media: dict[str, dict[str, Any]] = field(default_factory=dict)  # media id -> its state
    routes = (
        ("GET", r"/oauth/?", "authorize"),
        ("POST", r"/v5/oauth/token", "token"),
        ("POST", r"/v5/oauth/token/revoke", "revoke"),
        ("GET", r"/v5/user_account", "user_account"),
        ("GET", r"/v5/boards", "list_boards"),
        ("GET", r"/v5/boards/(\d+)/pins", "board_pins"),
        ("POST", r"/v5/pins", "create_pin"),
        ("GET", r"/v5/pins/(\d+)", "pin"),
        ("GET", r"/v5/pins/(\d+)/analytics", "analytics"),
        ("POST", r"/v5/media", "register_media"),
        ("GET", r"/v5/media/(\d+)", "media_status"),
        ("POST", r"/upload/(\d+)", "upload"),
    )

    def busy(self) -> Answer:
        reset = str(int(time.time()) + 30)
        return 429, {"code": 8, "message": "You have exceeded your rate limit. Try again later."}, {
            "X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": reset, "Retry-After": "30"}  # fmt: skip

    def down(self) -> Answer:
        return _pin_error(503, 0, "Service is unavailable. Please try again later.")

    def _refused(self, call: Call) -> Answer | None:
        if self.expired or _bearer(call) not in self.tokens:
            return _pin_error(401, 2, "Authentication failed.")
        return None

    def _limits(self) -> dict[str, str]:
        return {"X-RateLimit-Limit": "1000", "X-RateLimit-Remaining": "999"}

    # --- OAuth -----------------------------------------------------------------------------

    def authorize(self, call: Call) -> Answer:
        if call.q("client_id") != PINTEREST_APP[0] or call.q("response_type") != "code":
            return _pin_error(400, 1, "Invalid client_id or response_type.")
        asked = set(call.q("scope").split(","))
        if not asked or not asked <= set(SCOPES):
            return _pin_error(400, 1, "Invalid scope.")
        code = f"pin-code-{self.next_id()}"
        with self.lock:
            self.codes[code] = (call.q("redirect_uri"), ",".join(sorted(asked & self.granted)))
        query = urlencode({"code": code, "state": call.q("state")})
        return 302, b"", {"Location": f"{call.q('redirect_uri')}?{query}"}

    def _client_ok(self, call: Call) -> bool:
        value = call.headers.get("Authorization", "")
        expected = base64.b64encode(":".join(PINTEREST_APP).encode()).decode()
        return value == f"Basic {expected}" and "client_secret" not in call.body

    def _issue(self, scope: str) -> dict[str, Any]:
        number = self.next_id()
        access, refresh = f"pina_access-{number}", f"pinr_refresh-{number}"
        with self.lock:
            self.tokens.add(access)
            self.refresh_tokens.add(refresh)
        now = int(time.time())
        return {"access_token": access, "refresh_token": refresh, "response_type":
                "authorization_code", "token_type": "bearer", "expires_in": 2592000,
                "refresh_token_expires_in": 5184000,
                "refresh_token_expires_at": now + 5184000, "scope": scope}  # fmt: skip

    def token(self, call: Call) -> Answer:
        if not self._client_ok(call):
            return _pin_error(401, 2, "Authentication failed.")
        form = call.body if isinstance(call.body, dict) else {}
        grant = form.get("grant_type")
        if grant == "refresh_token":
            refresh = form.get("refresh_token", "")
            if self.expired or refresh not in self.refresh_tokens:
                return _pin_error(400, 1, "Invalid refresh token.")
            with self.lock:
                self.refresh_tokens.discard(refresh)
            return 200, self._issue(",".join(SCOPES)), {}
        code = form.get("code", "")
        with self.lock:
            asked = self.codes.pop(code, None)
        if grant != "authorization_code" or asked is None or asked[0] != form.get("redirect_uri"):
            return _pin_error(400, 1, "Invalid authorization code.")
        return 200, self._issue(asked[1]), {}

    def revoke(self, call: Call) -> Answer:
        if not self._client_ok(call):
            return _pin_error(401, 2, "Authentication failed.")
        with self.lock:
            self.refresh_tokens.discard(call.body.get("token", ""))
            self.tokens.clear()
        return 200, {}, {}

    # --- The account ------------------------------------------------------------------------

    def user_account(self, call: Call) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        return 200, {**ACCOUNT, "profile_image": "https://i.pinimg.example/ada.jpg",
                     "website_url": "https://ada.example"}, self._limits()  # fmt: skip

    def list_boards(self, call: Call) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        size = int(call.q("page_size") or 25)
        if not 1 <= size <= 250:
            return _pin_error(400, 1, "page_size must be 1 to 250.")
        start = int(call.q("bookmark") or 0)
        items = [{**board, "owner": {"username": ACCOUNT["username"]}}
                 for board in self.boards[start : start + size]]  # fmt: skip
        more = start + size < len(self.boards)
        return 200, {"items": items, "bookmark": str(start + size) if more else None}, {}

    def _board(self, board_id: str) -> Answer | None:
        if board_id == OTHERS_BOARD:
            return _pin_error(403, 29, "You are not permitted to access that resource.")
        if not any(board["id"] == board_id for board in self.boards):
            return _pin_error(404, 40, "Board not found.")
        return None

    # --- Pins --------------------------------------------------------------------------------

    def _source(self, source: Any) -> tuple[Answer | None, str]:
        """A media source's refusal, or None and the kind of media of the Pin."""
        if not isinstance(source, dict):
            return _pin_error(400, 1, "Invalid parameters: media_source is required."), ""
        kind = source.get("source_type")
        if kind == "image_url":
            if not str(source.get("url") or "").startswith(("http://", "https://")):
                return _pin_error(400, 1, "Invalid parameters: an image url is required."), ""
            return None, "image"
        if kind == "multiple_image_urls":
            items = source.get("items")
            if not isinstance(items, list) or not 2 <= len(items) <= 5:
                return _pin_error(400, 1, "Invalid parameters: 2 to 5 image items."), ""
            if any(not str((i or {}).get("url") or "").startswith("http") for i in items):
                return _pin_error(400, 1, "Invalid parameters: each image item needs a url."), ""
            return None, "multiple_images"
        if kind == "video_id":
            media = self.media.get(str(source.get("media_id") or ""))
            if media is None or media["status"] != "succeeded":
                return _pin_error(400, 1, "Invalid parameters: the media is not ready."), ""
            if "cover_image_url" not in source and "cover_image_key_frame_time" not in source:
                return _pin_error(400, 1, "Invalid parameters: a video needs a cover."), ""
            return None, "video"
        return _pin_error(400, 1, "Invalid parameters: unknown source_type."), ""

    def create_pin(self, call: Call) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        body = call.body if isinstance(call.body, dict) else {}
        board = str(body.get("board_id") or "")
        if not board:
            return _pin_error(400, 1, "Invalid parameters: board_id is required.")
        refused = self._board(board)
        if refused:
            return refused
        for name, most in LIMITS.items():
            if len(str(body.get(name) or "")) > most:
                return _pin_error(400, 1, f"Invalid parameters: {name} is longer than {most}.")
        refused, kind = self._source(body.get("media_source"))
        if refused:
            return refused
        number = self.next_id()
        pin = {"id": str(1098000000000000 + number), "created_at": stamp(time.time())[:19],
               "board_id": board, "board_section_id": body.get("board_section_id"),
               "title": body.get("title"), "description": body.get("description"),
               "link": body.get("link"), "alt_text": body.get("alt_text"),
               "media": {"media_type": kind}, "media_source": body["media_source"],
               "creative_type": "VIDEO" if kind == "video" else "REGULAR"}  # fmt: skip
        with self.lock:
            self.posts.append(pin)
        return 201, {k: v for k, v in pin.items() if k != "media_source"}, self._limits()

    def _pin(self, pin_id: str) -> dict[str, Any] | None:
        return next((post for post in self.posts if post["id"] == pin_id), None)

    def pin(self, call: Call, pin_id: str) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        found = self._pin(pin_id)
        if found is None:
            return _pin_error(404, 50, "Pin not found.")
        return 200, {k: v for k, v in found.items() if k != "media_source"}, {}

    def board_pins(self, call: Call, board_id: str) -> Answer:
        refused = self._refused(call) or self._board(board_id)
        if refused:
            return refused
        size = min(int(call.q("page_size") or 25), 250)
        start = int(call.q("bookmark") or 0)
        mine = [post for post in reversed(self.posts) if post["board_id"] == board_id]
        items = [{k: v for k, v in post.items() if k != "media_source"}
                 for post in mine[start : start + size]]  # fmt: skip
        more = start + size < len(mine)
        return 200, {"items": items, "bookmark": str(start + size) if more else None}, {}

    def analytics(self, call: Call, pin_id: str) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        if self._pin(pin_id) is None:
            return _pin_error(404, 50, "Pin not found.")
        if not call.q("start_date") or not call.q("end_date") or not call.q("metric_types"):
            return _pin_error(400, 1, "Invalid parameters: start_date, end_date, metric_types.")
        if call.q("start_date") > call.q("end_date"):
            return _pin_error(400, 1, "Invalid parameters: start_date is after end_date.")
        summary = {"IMPRESSION": 340, "SAVE": 12, "PIN_CLICK": 25, "OUTBOUND_CLICK": 7}
        asked = call.q("metric_types").split(",")
        metrics = {name: value for name, value in summary.items() if name in asked}
        return 200, {"all": {"summary_metrics": metrics, "lifetime_metrics": metrics,
                             "daily_metrics": []}}, {}  # fmt: skip

    # --- Media -------------------------------------------------------------------------------

    def register_media(self, call: Call) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        if (call.body or {}).get("media_type") != "video":
            return _pin_error(400, 1, "Invalid parameters: media_type must be video.")
        media_id = str(5000000000000 + self.next_id())
        fields = {"key": f"uploads/{media_id}", "policy": "eyJwb2xpY3kiOiJ4In0=",
                  "x-amz-credential": "AKIA/pinterest",
                  "x-amz-signature": f"sig-{media_id}"}  # fmt: skip
        with self.lock:
            self.media[media_id] = {"status": "registered", "fields": fields, "bytes": 0}
        return 201, {"media_id": media_id, "media_type": "video",
                     "upload_url": f"{self.url}/upload/{media_id}",
                     "upload_parameters": fields}, {}  # fmt: skip

    def upload(self, call: Call, media_id: str) -> Answer:
        media = self.media.get(media_id)
        if media is None:
            return 403, b"<Error><Code>AccessDenied</Code></Error>", {}
        form = call.body if isinstance(call.body, dict) else {}
        said = {name: (value.decode() if isinstance(value, bytes) else value)
                for name, value in form.items() if name != "file"}  # fmt: skip
        if "Authorization" in call.headers or said != media["fields"]:
            return 403, b"<Error><Code>SignatureDoesNotMatch</Code></Error>", {}
        data = form.get("file")
        if not isinstance(data, bytes) or not data or list(form)[-1] != "file":
            return 400, b"<Error><Code>MalformedPOSTRequest</Code></Error>", {}
        with self.lock:
            media.update(status="processing", bytes=len(data))
        self.processing_started(media_id)
        return 204, b"", {}

    def media_status(self, call: Call, media_id: str) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        media = self.media.get(media_id)
        if media is None:
            return _pin_error(404, 1, "Media not found.")
        if media["status"] == "processing":
            look = self.processing_look(media_id)
            if look != "processing":
                media["status"] = "failed" if look == "failed" else "succeeded"
        return 200, {"media_id": media_id, "media_type": "video", "status": media["status"]}, {}
