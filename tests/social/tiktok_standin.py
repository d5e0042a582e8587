"""TikTok's API as a stand-in (networks/tiktok.md): Login Kit's consent page (the user may untick
a scope, or decline), the token endpoint (codes, rotating refresh tokens, errors answered with 200
as TikTok does), revocation, `user/info`, `creator_info` (the privacy levels offered, the settings
the creator disabled, the longest video), Direct Post's video init (FILE_UPLOAD, its chunk rules
checked) and upload URL (chunks in order with `Content-Range`, 206 then 201), photo posts
(PULL_FROM_URL from verified domains), the status (`PROCESSING_UPLOAD` with the bytes received,
`PROCESSING_DOWNLOAD`, `PUBLISH_COMPLETE` with the public id, `FAILED` with `video_fail`), the
creator's daily Direct Posts (`spam_risk_too_many_posts`), an unaudited app's private-only rule
and `video/query`, with TikTok's error bodies `{data, error: {code, message, log_id}}`.
`StandIn` gives it `fail`, `expired` (the tokens and the refresh token refused), `scripted`,
`acted` and `video_polls` / `video_fail`."""

import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from tests.social.standins import Answer, Call, StandIn, _bearer

TIKTOK_CLIENT = ("tt-client-key", "tt-client-secret")
SCOPES = ("user.info.basic", "video.publish", "video.upload", "video.list")
OPEN_ID = "tt-open-id-ada"
CREATOR = {"username": "ada.designs", "nickname": "Ada Designs"}
PRIVACY = ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"]
MB = 1024 * 1024
ACCESS_SECONDS, REFRESH_SECONDS = 86_400, 31_536_000  # 24 hours; 365 days


def _tiktok_error(status: int, code: str, message: str) -> Answer:
    body = {"data": {}, "error": {"code": code, "message": message, "log_id": "20261127TT"}}
    return status, body, {}


def _ok(data: dict[str, Any]) -> Answer:
    return 200, {"data": data, "error": {"code": "ok", "message": "", "log_id": "20261127TT"}}, {}


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@dataclass
class TikTokStandIn(StandIn):
    codes: dict[str, str] = field(default_factory=dict)  # code -> redirect URI
    tokens: set[str] = field(default_factory=set)
    refresh_tokens: set[str] = field(default_factory=set)
    granted: set[str] = field(default_factory=lambda: set(SCOPES))
    denied: bool = False  # the user declines the consent
    privacy_options: list[str] = field(default_factory=lambda: list(PRIVACY))
    comment_disabled: bool = False
    duet_disabled: bool = False
    stitch_disabled: bool = False
    max_video_seconds: int = 600
    daily_posts: int = 15  # the creator's Direct Posts in 24 hours, every app together
    unaudited: bool = False  # an unaudited app: SELF_ONLY to private accounts only
    verified: tuple[str, ...] = ()  # the URL prefixes verified for PULL_FROM_URL (empty: any)
    min_chunk: int = 5 * MB  # the smallest chunk TikTok takes (tests make it smaller)
    photo_polls: int = 0  # looks answering PROCESSING_DOWNLOAD before a photo post is done
    uploads: dict[str, dict[str, Any]] = field(default_factory=dict)  # publish_id -> upload
    routes = (
        ("GET", r"/v2/auth/authorize/", "authorize"),
        ("POST", r"/v2/oauth/token/", "token"),
        ("POST", r"/v2/oauth/revoke/", "revoke"),
        ("GET", r"/v2/user/info/", "user_info"),
        ("POST", r"/v2/post/publish/creator_info/query/", "creator_info"),
        ("POST", r"/v2/post/publish/video/init/", "video_init"),
        ("POST", r"/v2/post/publish/content/init/", "content_init"),
        ("PUT", r"/upload/(\d+)", "upload"),
        ("POST", r"/v2/post/publish/status/fetch/", "status"),
        ("POST", r"/v2/video/query/", "video_query"),
    )

    def busy(self) -> Answer:  # no Retry-After: TikTok documents none
        return _tiktok_error(429, "rate_limit_exceeded", "API rate limit was exceeded.")

    def down(self) -> Answer:
        return _tiktok_error(503, "internal_error", "Something went wrong. Please try again.")

    def _token(self, call: Call) -> Answer | None:
        if self.expired or _bearer(call) not in self.tokens:
            return _tiktok_error(
                401, "access_token_invalid", "The access token is invalid or not found."
            )
        return None

    # --- Login Kit ----------------------------------------------------------------------------

    def authorize(self, call: Call) -> Answer:
        asked = set(call.q("scope").split(","))
        if call.q("client_key") != TIKTOK_CLIENT[0] or call.q("response_type") != "code":
            return 400, {"error": "invalid_request", "error_description": "client_key"}, {}
        if "video.publish" not in asked or not call.q("redirect_uri") or not call.q("state"):
            return 400, {"error": "invalid_scope", "error_description": "scope"}, {}
        if self.denied:
            query = urlencode({"error": "access_denied", "state": call.q("state")})
            return 302, b"", {"Location": f"{call.q('redirect_uri')}?{query}"}
        code = f"tt-code-{self.next_id()}"
        with self.lock:
            self.codes[code] = call.q("redirect_uri")
            self.codes[code + "#scope"] = ",".join(s for s in SCOPES if s in asked & self.granted)
        query = urlencode({"code": code, "scopes": self.codes[code + "#scope"],
                           "state": call.q("state")})  # fmt: skip
        return 302, b"", {"Location": f"{call.q('redirect_uri')}?{query}"}

    def _issued(self, scope: str) -> dict[str, Any]:
        access, refresh = f"act.tt-{self.next_id()}", f"rft.tt-{self.next_id()}"
        with self.lock:
            self.tokens.add(access)
            self.refresh_tokens.add(refresh)
        return {"open_id": OPEN_ID, "scope": scope, "access_token": access,
                "expires_in": ACCESS_SECONDS, "refresh_token": refresh,
                "refresh_expires_in": REFRESH_SECONDS, "token_type": "Bearer"}  # fmt: skip

    def token(self, call: Call) -> Answer:
        form = call.body if isinstance(call.body, dict) else {}
        if (form.get("client_key"), form.get("client_secret")) != TIKTOK_CLIENT:
            return 401, {"error": "invalid_client", "error_description": "Client key or "
                         "secret is incorrect.", "log_id": "20261127TT"}, {}  # fmt: skip
        grant = form.get("grant_type")
        refused = {"error": "invalid_grant", "log_id": "20261127TT"}
        if grant == "refresh_token":
            old = form.get("refresh_token", "")
            if self.expired or old not in self.refresh_tokens:
                said = "Refresh token is invalid or expired."
                return 200, {**refused, "error_description": said}, {}  # TikTok: 200
            with self.lock:
                self.refresh_tokens.discard(old)  # rotated
            return 200, self._issued(",".join(SCOPES)), {}
        code = form.get("code", "")
        if grant != "authorization_code" or self.codes.get(code) != form.get("redirect_uri"):
            said = "Authorization code is expired."
            return 200, {**refused, "error_description": said}, {}
        with self.lock:
            self.codes.pop(code, None)
            scope = self.codes.pop(code + "#scope", "")
        return 200, self._issued(scope), {}

    def revoke(self, call: Call) -> Answer:
        form = call.body if isinstance(call.body, dict) else {}
        if (form.get("client_key"), form.get("client_secret")) != TIKTOK_CLIENT:
            return 401, {"error": "invalid_client", "error_description": "Client key or "
                         "secret is incorrect.", "log_id": "20261127TT"}, {}  # fmt: skip
        with self.lock:
            self.tokens.discard(str(form.get("token") or ""))
            self.refresh_tokens.clear()
        return 200, {}, {}

    # --- The creator ----------------------------------------------------------------------------

    def user_info(self, call: Call) -> Answer:
        refused = self._token(call)
        if refused:
            return refused
        fields = set(call.q("fields").split(","))
        if not call.q("fields"):
            return _tiktok_error(400, "invalid_params", "fields is required.")
        user = {"open_id": OPEN_ID, "union_id": "tt-union-ada",
                "avatar_url": "https://p16.tiktokcdn.example/ada.jpeg",
                "display_name": CREATOR["nickname"]}  # fmt: skip
        return _ok({"user": {k: v for k, v in user.items() if k in fields}})

    def creator_info(self, call: Call) -> Answer:
        refused = self._token(call)
        if refused:
            return refused
        if not call.headers.get("Content-Type", "").startswith("application/json"):
            return _tiktok_error(400, "invalid_params", "Content-Type must be JSON.")
        return _ok({"creator_avatar_url": "https://p16.tiktokcdn.example/ada.jpeg",
                    "creator_username": CREATOR["username"],
                    "creator_nickname": CREATOR["nickname"],
                    "privacy_level_options": list(self.privacy_options),
                    "comment_disabled": self.comment_disabled,
                    "duet_disabled": self.duet_disabled,
                    "stitch_disabled": self.stitch_disabled,
                    "max_video_post_duration_sec": self.max_video_seconds})  # fmt: skip

    # --- Direct Post ----------------------------------------------------------------------------

    def _post_info(self, info: Any, *, photo: bool) -> Answer | None:
        """The post_info's rules: a privacy level offered, an unaudited app's private posts,
        the caption's length, a paid partnership not private."""
        if not isinstance(info, dict):
            return _tiktok_error(400, "invalid_params", "post_info is required.")
        privacy = info.get("privacy_level")
        if privacy not in self.privacy_options:
            return _tiktok_error(
                400, "privacy_level_option_mismatch", "privacy_level is not an option offered."
            )
        if self.unaudited and privacy != "SELF_ONLY":
            said = "Unaudited clients can only post to private accounts."
            return _tiktok_error(403, "unaudited_client_can_only_post_to_private_accounts", said)
        if info.get("brand_content_toggle") and privacy == "SELF_ONLY":
            return _tiktok_error(400, "invalid_params", "Branded content cannot be private.")
        title = str(info.get("title") or "")
        if (photo and _utf16(title) > 90) or (not photo and _utf16(title) > 2200):
            return _tiktok_error(400, "invalid_params", "title is too long.")
        if photo and _utf16(str(info.get("description") or "")) > 4000:
            return _tiktok_error(400, "invalid_params", "description is too long.")
        return None

    def _capped(self) -> Answer | None:
        since = time.time() - 86_400
        if sum(1 for u in self.uploads.values() if u["at"] >= since) >= self.daily_posts:
            return _tiktok_error(403, "spam_risk_too_many_posts",
                                 "The user has reached the daily post limit.")  # fmt: skip
        return None

    def video_init(self, call: Call) -> Answer:
        refused = self._token(call)
        body = call.body if isinstance(call.body, dict) else {}
        refused = refused or self._post_info(body.get("post_info"), photo=False)
        if refused:
            return refused
        source = body.get("source_info") or {}
        numbers = [source.get(k) for k in ("video_size", "chunk_size", "total_chunk_count")]
        if source.get("source") != "FILE_UPLOAD" or not all(
            isinstance(n, int) and n > 0 for n in numbers
        ):
            return _tiktok_error(400, "invalid_params", "source_info is invalid.")
        size, chunk, count = (int(n or 0) for n in numbers)
        whole = size < self.min_chunk and (chunk, count) == (size, 1)
        split = self.min_chunk <= chunk <= 64 * MB and count == size // chunk and count <= 1000
        if not (whole or split) or size - (count - 1) * chunk > 128 * MB:
            return _tiktok_error(400, "invalid_file_upload", "The chunk sizes are invalid.")
        capped = self._capped()
        if capped:
            return capped
        number = str(self.next_id())
        publish_id = f"v_pub_file~v2-1.{number}"
        with self.lock:
            self.uploads[publish_id] = {"at": time.time(), "body": body, "size": size,
                                        "chunk": chunk, "count": count, "received": 0,
                                        "number": number, "post": None}  # fmt: skip
        upload_url = f"{self.url}/upload/{number}?upload_token=tt-upload-{number}"
        return _ok({"publish_id": publish_id, "upload_url": upload_url})

    def content_init(self, call: Call) -> Answer:
        refused = self._token(call)
        body = call.body if isinstance(call.body, dict) else {}
        refused = refused or self._post_info(body.get("post_info"), photo=True)
        if refused:
            return refused
        source = body.get("source_info") or {}
        images = source.get("photo_images") or []
        if (
            body.get("post_mode") != "DIRECT_POST"
            or body.get("media_type") != "PHOTO"
            or source.get("source") != "PULL_FROM_URL"
            or not 1 <= len(images) <= 35
            or not 0 <= int(source.get("photo_cover_index") or 0) < len(images)
        ):
            return _tiktok_error(400, "invalid_params", "The photo post is invalid.")
        if self.verified and not all(str(url).startswith(self.verified) for url in images):
            return _tiktok_error(403, "url_ownership_unverified",
                                 "The URL's domain is not verified for this app.")  # fmt: skip
        capped = self._capped()
        if capped:
            return capped
        publish_id = f"p_pub_url~v2.{self.next_id()}"
        with self.lock:
            self.uploads[publish_id] = {"at": time.time(), "body": body, "photo": True,
                                        "post": None}  # fmt: skip
            self._posted(publish_id, polls=self.photo_polls)
        return _ok({"publish_id": publish_id})

    def _posted(self, publish_id: str, *, polls: int) -> None:
        """The post exists at TikTok from here on (processed, then published)."""
        upload = self.uploads[publish_id]
        info = upload["body"]["post_info"]
        post = {"publish_id": publish_id, "id": str(7_300_000_000_000_000_000 + self.next_id()),
                "privacy": info["privacy_level"], "post_info": info, "photo": "photo" in upload,
                "created": time.time()}  # fmt: skip
        upload["post"] = post
        self.posts.append(post)
        self.processing[publish_id] = polls

    def upload(self, call: Call, number: str) -> Answer:
        found = [(p, u) for p, u in self.uploads.items() if u.get("number") == number]
        if not found or call.q("upload_token") != f"tt-upload-{number}":
            return 404, {"error": {"code": "upload_not_found", "message": "No such upload."}}, {}
        publish_id, upload = found[0]
        raw = call.body if isinstance(call.body, bytes) else b""
        size, chunk, count = upload["size"], upload["chunk"], upload["count"]
        try:
            span, total = call.headers.get("Content-Range", "").split(" ")[1].split("/")
            first, last = (int(n) for n in span.split("-"))
        except (IndexError, ValueError):
            return 400, {"error": {"code": "invalid_params", "message": "Content-Range."}}, {}
        index = first // chunk
        final = index == count - 1
        expected = size - first if final else chunk
        if (
            int(total) != size
            or first % chunk
            or index >= count
            or len(raw) != last - first + 1
            or len(raw) != expected
            or call.headers.get("Content-Type") not in ("video/mp4", "video/quicktime")
        ):
            return 400, {"error": {"code": "invalid_params", "message": "Bad chunk."}}, {}
        with self.lock:
            if first == 0:
                upload["received"] = 0  # sent again from the start within the same URL
            if first != upload["received"] or upload["post"] is not None:
                return 400, {"error": {"code": "invalid_params", "message": "Out of order."}}, {}
            upload["received"] = last + 1
            if not final:
                return 206, b"", {}
            self._posted(publish_id, polls=self.video_polls)
        return 201, b"", {}

    def status(self, call: Call) -> Answer:
        refused = self._token(call)
        if refused:
            return refused
        publish_id = str((call.body or {}).get("publish_id") or "")
        upload = self.uploads.get(publish_id)
        if upload is None:
            return _tiktok_error(400, "invalid_params", "publish_id does not exist.")
        post = upload["post"]
        if post is None:  # the video's bytes still coming
            return _ok({"status": "PROCESSING_UPLOAD", "uploaded_bytes": upload["received"]})
        look = self.processing_look(publish_id)
        if look == "processing":
            waiting = "PROCESSING_DOWNLOAD" if post["photo"] else "PROCESSING_UPLOAD"
            return _ok({"status": waiting, "uploaded_bytes": upload.get("size", 0)})
        if look == "failed":
            return _ok({"status": "FAILED", "fail_reason": self.video_fail})
        public = [post["id"]] if post["privacy"] != "SELF_ONLY" else []
        return _ok({"status": "PUBLISH_COMPLETE", "publicaly_available_post_id": public,
                    "uploaded_bytes": upload.get("size", 0)})  # fmt: skip

    def video_query(self, call: Call) -> Answer:
        refused = self._token(call)
        if refused:
            return refused
        if "view_count" not in call.q("fields").split(","):
            return _tiktok_error(400, "invalid_params", "fields is required.")
        asked = ((call.body or {}).get("filters") or {}).get("video_ids") or []
        videos = [{"id": post["id"], "view_count": 1200, "like_count": 90,
                   "comment_count": 7, "share_count": 3}
                  for post in self.posts if post["id"] in asked]  # fmt: skip
        return _ok({"videos": videos, "cursor": 0, "has_more": False})
