"""X's API v2 on a local server (networks/x.md), strict like the real one: the consent page
with PKCE (S256 only), the token endpoint with Basic client authentication, single-use codes
checked against their verifier and rotating refresh tokens, bearer user tokens, posts refused
for unknown fields, over 280 weighted characters, media not processed or a text just
published (403 duplicate content), images and their alt text, the chunked video upload with
its processing, the account's own timeline (t.co links, `start_time`), metrics, problem
bodies `{title, detail, type, status}` and the `x-rate-limit-*` headers on every answer."""

import base64
import calendar
import hashlib
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from social.providers.counting import urls, weighted_length
from tests.social.standins import Answer, Call, StandIn, stamp

X_CLIENT = ("x-client-id", "x-client-secret")
X_USER_ID = "1600000000000000042"
X_USERNAME = "ada_designs"
X_SCOPES = "tweet.read tweet.write users.read media.write offline.access"
TWEET_FIELDS = {"text", "media", "reply", "reply_settings", "quote_tweet_id", "poll"}
REPLY_SETTINGS = {"following", "mentionedUsers", "subscribers", "verified"}
PROBLEMS = "https://api.twitter.com/2/problems"
IMAGE_BYTES, GIF_BYTES = 5 * 1024 * 1024, 15 * 1024 * 1024


def problem(status: int, title: str, detail: str, kind: str = "about:blank") -> dict[str, Any]:
    return {"title": title, "detail": detail, "type": kind, "status": status}


def invalid(detail: str, parameter: str = "") -> Answer:
    body = problem(400, "Invalid Request", detail, f"{PROBLEMS}/invalid-request")
    body["errors"] = [{"message": detail, "parameters": {parameter: []} if parameter else {}}]
    return 400, body, {}


@dataclass
class XStandIn(StandIn):
    codes: dict[str, tuple[str, str]] = field(default_factory=dict)  # code -> (redirect, challenge)
    access: set[str] = field(default_factory=set)
    refresh_tokens: set[str] = field(default_factory=set)  # the live ones (rotation)
    token_lifetime: int = 7200
    media: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> its state
    revoked: list[str] = field(default_factory=list)
    remaining: int = 99  # x-rate-limit-remaining
    routes = (
        ("GET", r"/i/oauth2/authorize", "authorize"),
        ("POST", r"/2/oauth2/token", "token"),
        ("POST", r"/2/oauth2/revoke", "revoke"),
        ("GET", r"/2/users/me", "me"),
        ("POST", r"/2/tweets", "create"),
        ("GET", r"/2/tweets", "lookup"),
        ("GET", r"/2/users/(\d+)/tweets", "timeline"),
        ("POST", r"/2/media/upload", "upload"),
        ("GET", r"/2/media/upload", "status"),
        ("POST", r"/2/media/metadata", "metadata"),
        ("POST", r"/2/media/upload/initialize", "initialize"),
        ("POST", r"/2/media/upload/(\d+)/append", "append"),
        ("POST", r"/2/media/upload/(\d+)/finalize", "finalize"),
    )

    # --- What every answer carries -------------------------------------------------------------

    def answer(self, call: Call) -> Answer:
        status, body, headers = super().answer(call)
        reset = str(int(time.time()) + 900)
        limits = {"x-rate-limit-limit": "100", "x-rate-limit-reset": reset,
                  "x-rate-limit-remaining": str(self.remaining)}  # fmt: skip
        return status, body, {**limits, **headers}

    def busy(self) -> Answer:
        reset = str(int(time.time()) + 30)
        body = problem(429, "Too Many Requests", "Too Many Requests")
        return 429, body, {"x-rate-limit-reset": reset, "x-rate-limit-remaining": "0"}

    def down(self) -> Answer:
        return 503, problem(503, "Service Unavailable", "Service Unavailable"), {}

    def _user(self, call: Call) -> Answer | None:
        bearer = call.headers.get("Authorization", "")
        if self.expired or bearer[7:] not in self.access or not bearer.startswith("Bearer "):
            return 401, problem(401, "Unauthorized", "Unauthorized"), {}
        return None

    def _client_ok(self, call: Call) -> bool:
        basic = base64.b64encode(f"{X_CLIENT[0]}:{X_CLIENT[1]}".encode()).decode()
        return call.headers.get("Authorization") == f"Basic {basic}"

    # --- OAuth 2.0 with PKCE -------------------------------------------------------------------

    def authorize(self, call: Call) -> Answer:
        scopes = set(call.q("scope").split())
        if (
            call.q("client_id") != X_CLIENT[0]
            or call.q("response_type") != "code"
            or not scopes >= set(X_SCOPES.split())
            or call.q("code_challenge_method") != "S256"
            or not call.q("code_challenge")
        ):
            return 400, {"error": "invalid_request", "error_description": "Bad request"}, {}
        code = f"x-code-{self.next_id()}"
        self.codes[code] = (call.q("redirect_uri"), call.q("code_challenge"))
        query = urlencode({"code": code, "state": call.q("state")})
        return 302, b"", {"Location": f"{call.q('redirect_uri')}?{query}"}

    def _refused_token(self, description: str) -> Answer:
        return 400, {"error": "invalid_request", "error_description": description}, {}

    def token(self, call: Call) -> Answer:
        form = call.body
        if not self._client_ok(call) or form.get("client_id") != X_CLIENT[0]:
            return 401, {"error": "unauthorized_client",
                         "error_description": "Missing valid authorization header"}, {}  # fmt: skip
        if form.get("grant_type") == "authorization_code":
            redirect, challenge = self.codes.pop(form.get("code", ""), ("", ""))
            verifier = form.get("code_verifier", "")
            digest = hashlib.sha256(verifier.encode()).digest()
            derived = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
            if not redirect or redirect != form.get("redirect_uri") or derived != challenge:
                return self._refused_token("Value passed for the authorization code was invalid.")
            if not 43 <= len(verifier) <= 128:
                return self._refused_token("Value passed for the code verifier was invalid.")
        elif form.get("grant_type") == "refresh_token":
            with self.lock:
                if self.expired or form.get("refresh_token") not in self.refresh_tokens:
                    return self._refused_token("Value passed for the token was invalid.")
                self.refresh_tokens.discard(form["refresh_token"])  # used: dead from now on
        else:
            return self._refused_token("Missing required parameter [grant_type].")
        number = self.next_id()
        access, refresh = f"x-access-{number}", f"x-refresh-{number}"
        with self.lock:
            self.access.add(access)
            self.refresh_tokens.add(refresh)
        return 200, {"token_type": "bearer", "expires_in": self.token_lifetime,
                     "access_token": access, "scope": X_SCOPES,
                     "refresh_token": refresh}, {}  # fmt: skip

    def revoke(self, call: Call) -> Answer:
        if not self._client_ok(call):
            return 401, {"error": "unauthorized_client", "error_description": "Missing"}, {}
        token = call.body.get("token", "")
        with self.lock:
            self.refresh_tokens.discard(token)
            self.access.discard(token)
            self.revoked.append(token)
        return 200, {"revoked": True}, {}

    def me(self, call: Call) -> Answer:
        return self._user(call) or (
            200,
            {"data": {"id": X_USER_ID, "name": "Ada Lovelace", "username": X_USERNAME,
                      "profile_image_url": "https://pbs.twimg.example/ada.jpg"}},
            {},
        )  # fmt: skip

    # --- Posts -------------------------------------------------------------------------------

    def create(self, call: Call) -> Answer:
        refused = self._user(call)
        if refused:
            return refused
        body: dict[str, Any] = call.body if isinstance(call.body, dict) else {}
        unknown = sorted(set(body) - TWEET_FIELDS)
        if unknown:
            return invalid(f"The query parameters [{', '.join(unknown)}] is not one of "
                           f"[{', '.join(sorted(TWEET_FIELDS))}]", unknown[0])  # fmt: skip
        text = str(body.get("text") or "")
        media_ids = [str(i) for i in (body.get("media") or {}).get("media_ids") or []]
        if not text and not media_ids:
            return invalid("You must specify either a Tweet text or at least one media ID.")
        if weighted_length(text) > 280:
            return invalid("Your Tweet text is too long.", "text")
        if len(media_ids) > 4:
            return invalid("Your media IDs are invalid: at most 4.", "media.media_ids")
        for media_id in media_ids:
            if self.media.get(media_id, {}).get("state") != "succeeded":
                return invalid(f"Your media IDs are invalid: {media_id} is not ready.", "media")
        parent = str((body.get("reply") or {}).get("in_reply_to_tweet_id") or "")
        if parent and not any(post["id"] == parent for post in self.posts):
            return invalid("The Tweet replied to does not exist.", "reply.in_reply_to_tweet_id")
        if body.get("reply_settings") and body["reply_settings"] not in REPLY_SETTINGS:
            return invalid("Invalid reply_settings.", "reply_settings")
        with self.lock:
            if self.posts and self.posts[-1]["sent"] == text:
                detail = "You are not allowed to create a Tweet with duplicate content."
                return 403, problem(403, "Forbidden", detail), {}
            number = str(1_900_000_000_000_000_000 + self.next_id())
            short, entities = text, []
            for first, last in reversed(urls(text)):
                link = f"https://t.co/{number[-6:]}{first}"
                short = short[:first] + link + short[last:]
                entities.append({"url": link, "expanded_url": text[first:last],
                                 "display_url": text[first:last][:20]})  # fmt: skip
            post = {"id": number, "text": short, "sent": text, "entities": {"urls": entities},
                    "media_ids": media_ids, "parent": parent, "created_at": stamp(time.time()),
                    "created": time.time(), "reply_settings": body.get("reply_settings"),
                    "author_id": X_USER_ID}  # fmt: skip
            self.posts.append(post)
        return 201, {"data": {"id": number, "text": short, "edit_history_tweet_ids": [number]}}, {}

    def _public(self, post: dict[str, Any]) -> dict[str, Any]:
        shown = {key: post[key] for key in ("id", "text", "created_at", "entities", "author_id")}
        if post["parent"]:
            shown["referenced_tweets"] = [{"type": "replied_to", "id": post["parent"]}]
        return shown

    def timeline(self, call: Call, user: str) -> Answer:
        """The user's posts, newest first, from `start_time` on, `max_results` (5 to 100)."""
        refused = self._user(call)
        if refused:
            return refused
        limit = int(call.q("max_results") or 10)
        if not 5 <= limit <= 100:
            return invalid("max_results must be between 5 and 100.", "max_results")
        since = call.q("start_time")
        floor = calendar.timegm(time.strptime(since, "%Y-%m-%dT%H:%M:%SZ")) if since else 0
        posts = [
            p for p in reversed(self.posts) if p["author_id"] == user and p["created"] >= floor
        ]
        page: dict[str, Any] = {"data": [self._public(p) for p in posts[:limit]],
                                "meta": {"result_count": min(limit, len(posts))}}  # fmt: skip
        if len(posts) > limit:
            page["meta"]["next_token"] = "next"
        if not posts:
            page.pop("data")
        return 200, page, {}

    def lookup(self, call: Call) -> Answer:
        refused = self._user(call)
        if refused:
            return refused
        ids = call.q("ids").split(",")
        found = []
        for post in self.posts:
            if post["id"] in ids:
                found.append({**self._public(post),
                              "public_metrics": {"impression_count": 90, "like_count": 5,
                                                 "retweet_count": 2, "reply_count": 1,
                                                 "quote_count": 1},
                              "non_public_metrics": {"impression_count": 120,
                                                     "url_link_clicks": 7}})  # fmt: skip
        return 200, ({"data": found} if found else {"errors": [{"title": "Not Found Error"}]}), {}

    # --- Media -------------------------------------------------------------------------------

    def upload(self, call: Call) -> Answer:
        """One-shot image upload (multipart `media`, `media_category`, `media_type`)."""
        refused = self._user(call)
        if refused:
            return refused
        form = call.body if isinstance(call.body, dict) else {}
        data, kind = form.get("media") or b"", (form.get("media_type") or b"").decode()
        category = (form.get("media_category") or b"").decode()
        if not data or category not in ("tweet_image", "tweet_gif"):
            return invalid("media and media_category are required.", "media_category")
        if kind not in ("image/jpeg", "image/png", "image/webp", "image/gif"):
            return invalid(f"Unsupported media type {kind}.", "media_type")
        if len(data) > (GIF_BYTES if kind == "image/gif" else IMAGE_BYTES):
            return invalid("The media is too large.", "media")
        media_id = str(1_500_000_000_000_000_000 + self.next_id())
        self.media[media_id] = {"state": "succeeded", "type": kind, "size": len(data), "alt": ""}
        return 200, {"data": {"id": media_id, "media_key": f"3_{media_id}", "size": len(data),
                              "expires_after_secs": 86400}}, {}  # fmt: skip

    def metadata(self, call: Call) -> Answer:
        refused = self._user(call)
        if refused:
            return refused
        body = call.body if isinstance(call.body, dict) else {}
        alt = ((body.get("metadata") or {}).get("alt_text") or {}).get("text")
        if str(body.get("id")) not in self.media or not isinstance(alt, str):
            return invalid("id and metadata.alt_text.text are required.", "id")
        if len(alt) > 1000:
            return invalid("alt_text.text is longer than 1000 characters.", "metadata")
        self.media[str(body["id"])]["alt"] = alt
        return 200, {"data": {"associated_metadata": True, "id": str(body["id"])}}, {}

    def initialize(self, call: Call) -> Answer:
        refused = self._user(call)
        if refused:
            return refused
        body = call.body if isinstance(call.body, dict) else {}
        if body.get("media_category") != "tweet_video" or body.get("media_type") not in (
            "video/mp4",
            "video/quicktime",
        ):
            return invalid("media_type and media_category tweet_video are required.")
        if not 0 < int(body.get("total_bytes") or 0) <= 512 * 1024 * 1024:
            return invalid("total_bytes is out of range.", "total_bytes")
        media_id = str(1_500_000_000_000_000_000 + self.next_id())
        self.media[media_id] = {"state": "uploading", "type": body["media_type"],
                                "size": int(body["total_bytes"]), "segments": []}  # fmt: skip
        return 200, {"data": {"id": media_id, "media_key": f"7_{media_id}",
                              "expires_after_secs": 86400}}, {}  # fmt: skip

    def append(self, call: Call, media_id: str) -> Answer:
        refused = self._user(call)
        if refused:
            return refused
        upload, form = self.media.get(media_id), call.body if isinstance(call.body, dict) else {}
        if upload is None or upload["state"] != "uploading":
            return invalid("Unknown media id.", "media_id")
        segment, index = form.get("media") or b"", int(form.get("segment_index") or b"-1")
        if index != len(upload["segments"]) or not segment or len(segment) > 8 * 1024 * 1024:
            return invalid("Segments must come in order, each at most 8 MB.", "segment_index")
        upload["segments"].append(len(segment))
        return 200, {"data": {"expires_at": int(time.time()) + 86400}}, {}

    def finalize(self, call: Call, media_id: str) -> Answer:
        refused = self._user(call)
        if refused:
            return refused
        upload = self.media.get(media_id)
        if upload is None or sum(upload.get("segments") or []) != upload["size"]:
            return invalid("The segments do not add up to total_bytes.", "media_id")
        upload["state"] = "pending"
        self.processing_started(media_id)
        return 200, {"data": {"id": media_id, "size": upload["size"], "expires_after_secs": 86400,
                              "processing_info": {"state": "pending",
                                                  "check_after_secs": 1}}}, {}  # fmt: skip

    def status(self, call: Call) -> Answer:
        refused = self._user(call)
        if refused:
            return refused
        media_id = call.q("media_id")
        upload = self.media.get(media_id)
        if call.q("command") != "STATUS" or upload is None:
            return invalid("command=STATUS and a known media_id are required.", "media_id")
        look = self.processing_look(media_id)
        info: dict[str, Any] = {"state": "in_progress", "check_after_secs": 1,
                                "progress_percent": 50}  # fmt: skip
        if look == "failed":
            info = {"state": "failed", "error": {"code": 1, "name": "InvalidMedia",
                                                 "message": self.video_fail}}  # fmt: skip
        elif look == "done":
            info = {"state": "succeeded", "progress_percent": 100}
        upload["state"] = info["state"]
        return 200, {"data": {"id": media_id, "processing_info": info}}, {}
