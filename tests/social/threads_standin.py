"""Threads' API as a stand-in (networks/threads.md): the consent page, the code, long-lived and
refresh exchanges, `me`, containers (strict about their parameters, processed for images and
videos), `threads_publish` (once per container, FINISHED ones only, within the 250 posts and
1,000 replies a day), the account's posts and a post's replies, the publishing limit and the
insights, with Graph's error bodies. `StandIn` gives it `fail`, `expired`, `scripted`, `acted`
and `video_polls` / `video_fail` (how long and how a medium's processing goes)."""

import itertools
import re
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from tests.social.standins import Answer, Call, StandIn, stamp

THREADS_APP = ("th-app-id", "th-app-secret")
THREADS_VERSION = "v1.0"
THREADS_USER = {"id": "25000000000000001", "username": "ada.designs", "name": "Ada Lovelace",
                "threads_profile_picture_url": "https://scontent.example/th-ada.jpg"}  # fmt: skip
SHORT_TOKEN = "th-short-token"
LONG_TOKEN = "th-long-token"
CONTAINER_FIELDS = {"media_type", "text", "image_url", "video_url", "alt_text", "is_carousel_item",
                    "children", "reply_to_id", "reply_control", "topic_tag",
                    "access_token"}  # fmt: skip
REPLY_CONTROLS = {"everyone", "accounts_you_follow", "mentioned_only", "parent_post_author_only",
                  "followers_only"}  # fmt: skip
METRICS = {"views", "likes", "replies", "reposts", "quotes", "shares"}
EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\U0001f1e6-\U0001f1ff\ufe0f\u200d]")


def _graph_error(code: int, message: str, status: int = 400, subcode: int = 0) -> Answer:
    error: dict[str, Any] = {"message": message, "type": "OAuthException", "code": code,
                             "fbtrace_id": "AThReAdS"}  # fmt: skip
    if subcode:
        error["error_subcode"] = subcode
    return status, {"error": error}, {}


def counted(text: str) -> int:
    """Threads' count: a character each, an emoji its UTF-8 bytes."""
    return sum(len(char.encode()) if EMOJI.match(char) else 1 for char in text)


@dataclass
class ThreadsStandIn(StandIn):
    codes: dict[str, str] = field(default_factory=dict)  # code -> redirect URI
    tokens: set[str] = field(default_factory=lambda: {LONG_TOKEN})
    containers: dict[str, dict[str, Any]] = field(default_factory=dict)
    image_polls: int = 0  # looks at an image container before it is FINISHED
    quota_used: int = 0  # posts published elsewhere in the window (by other apps)
    reply_quota_used: int = 0
    token_lifetime: int = 5_184_000  # 60 days
    _numbers: Any = field(default_factory=lambda: itertools.count(1))
    routes = (
        ("GET", r"/oauth/authorize", "authorize"),
        ("POST", r"/oauth/access_token", "code_exchange"),
        ("GET", r"/access_token", "long_lived"),
        ("GET", r"/refresh_access_token", "refreshed"),
        ("GET", rf"/{THREADS_VERSION}/me", "me"),
        ("POST", rf"/{THREADS_VERSION}/(\d+)/threads", "create_container"),
        ("POST", rf"/{THREADS_VERSION}/(\d+)/threads_publish", "publish"),
        ("GET", rf"/{THREADS_VERSION}/(\d+)/threads", "user_threads"),
        ("GET", rf"/{THREADS_VERSION}/(\d+)/threads_publishing_limit", "publishing_limit"),
        ("GET", rf"/{THREADS_VERSION}/(\d+)/replies", "replies"),
        ("GET", rf"/{THREADS_VERSION}/(\d+)/insights", "insights"),
        ("GET", rf"/{THREADS_VERSION}/(\d+)", "node"),
    )

    def busy(self) -> Answer:
        status, body, _ = _graph_error(4, "Application request limit reached", 429)
        return status, body, {"Retry-After": "30", "X-App-Usage": '{"call_count":100}'}

    def down(self) -> Answer:
        return 503, {"error": {"message": "Service temporarily unavailable", "code": 2,
                               "type": "OAuthException", "is_transient": True}}, {}  # fmt: skip

    def _token(self, call: Call) -> Answer | None:
        header = call.headers.get("Authorization", "")
        token = header[7:] if header.startswith("Bearer ") else call.q("access_token")
        if self.expired or token not in self.tokens:
            return _graph_error(190, "Error validating access token: Session has expired.", 401)
        return None

    # --- Connecting ---------------------------------------------------------------------------

    def authorize(self, call: Call) -> Answer:
        scopes = set(call.q("scope").split(","))
        if call.q("client_id") != THREADS_APP[0] or call.q("response_type") != "code":
            return _graph_error(101, "Error validating application. Invalid application ID.")
        if not {"threads_basic", "threads_content_publish"} <= scopes:
            return _graph_error(100, "Invalid scope: threads_basic is required.")
        code = f"th-code-{self.next_id()}"
        self.codes[code] = call.q("redirect_uri")
        # Threads appends "#_" to the redirect: a browser keeps it, a server never sees it.
        query = urlencode({"code": code, "state": call.q("state")})
        return 302, b"", {"Location": f"{call.q('redirect_uri')}?{query}#_"}

    def code_exchange(self, call: Call) -> Answer:
        form = call.body
        if (form.get("client_id"), form.get("client_secret")) != THREADS_APP:
            return _graph_error(1, "Error validating client secret.")
        if form.get("grant_type") != "authorization_code":
            return _graph_error(100, "Unsupported grant_type.")
        if self.codes.pop(form.get("code", ""), None) != form.get("redirect_uri"):
            return _graph_error(100, "Invalid verification code format.")
        return 200, {"access_token": SHORT_TOKEN, "user_id": int(THREADS_USER["id"])}, {}

    def long_lived(self, call: Call) -> Answer:
        if call.q("grant_type") != "th_exchange_token" or call.q("client_secret") != THREADS_APP[1]:
            return _graph_error(100, "Invalid grant_type or client_secret.")
        if call.q("access_token") != SHORT_TOKEN:
            return _graph_error(190, "Invalid OAuth access token.")
        return 200, {"access_token": LONG_TOKEN, "token_type": "bearer",
                     "expires_in": self.token_lifetime}, {}  # fmt: skip

    def refreshed(self, call: Call) -> Answer:
        if call.q("grant_type") != "th_refresh_token":
            return _graph_error(100, "Invalid grant_type.")
        refused = self._token(call)
        if refused:
            return refused
        token = f"{LONG_TOKEN}-{self.next_id()}"
        self.tokens.add(token)
        return 200, {"access_token": token, "token_type": "bearer",
                     "expires_in": self.token_lifetime}, {}  # fmt: skip

    def me(self, call: Call) -> Answer:
        return self._token(call) or (200, dict(THREADS_USER), {})

    # --- Containers and publishing ------------------------------------------------------------

    def _refusal(self, body: dict[str, Any]) -> Answer | None:
        """What Threads refuses of a container's parameters (error 100)."""
        unknown = set(body) - CONTAINER_FIELDS
        kind = body.get("media_type")
        text = str(body.get("text") or "")
        if unknown:
            return _graph_error(100, f"(#100) Unknown parameters: {', '.join(sorted(unknown))}")
        if kind not in ("TEXT", "IMAGE", "VIDEO", "CAROUSEL"):
            return _graph_error(100, "(#100) media_type must be TEXT, IMAGE, VIDEO or CAROUSEL")
        if kind == "TEXT" and not text:
            return _graph_error(100, "(#100) The parameter text is required")
        wanted = {"IMAGE": "image_url", "VIDEO": "video_url"}.get(str(kind), "")
        if wanted and not body.get(wanted):
            return _graph_error(100, "(#100) The parameter image_url or video_url is required")
        if counted(text) > 500:
            return _graph_error(100, "(#100) The text is too long: at most 500 characters.")
        if len(set(re.findall(r"https?://\S+", text))) > 5:
            return _graph_error(100, "THREADS_API__LINK_LIMIT_EXCEEDED: at most 5 links")
        if len(str(body.get("alt_text") or "")) > 1000:
            return _graph_error(100, "(#100) alt_text is at most 1000 characters")
        if body.get("reply_control") and body["reply_control"] not in REPLY_CONTROLS:
            return _graph_error(100, "(#100) Invalid reply_control")
        topic = body.get("topic_tag")
        if topic is not None and not re.fullmatch(r"[^.&]{1,50}", topic):
            return _graph_error(100, "(#100) Invalid topic_tag")
        if body.get("is_carousel_item") == "true" and (text or kind not in ("IMAGE", "VIDEO")):
            return _graph_error(100, "(#100) A carousel item is an image or a video, no text")
        return None

    def create_container(self, call: Call, user: str) -> Answer:
        refused = self._token(call) or self._refusal(call.body)
        if refused:
            return refused
        body = call.body
        if user != THREADS_USER["id"]:
            return _graph_error(100, f"Object with ID '{user}' does not exist")
        if body.get("reply_to_id") and not self._post(body["reply_to_id"]):
            return _graph_error(100, "(#100) The post replied to does not exist")
        children = [c for c in str(body.get("children") or "").split(",") if c]
        if body["media_type"] == "CAROUSEL":
            items = [self.containers.get(child) for child in children]
            if not 2 <= len(children) <= 20 or any(item is None for item in items):
                return _graph_error(100, "(#100) A carousel has 2 to 20 item containers")
            if any(item and item["status"] != "FINISHED" for item in items):
                return _graph_error(24, "The media is not ready for publishing.", 400, 4279009)
        number = str(17_800_000_000_000_000 + next(self._numbers))
        self.containers[number] = {"id": number, "body": dict(body), "status": "FINISHED",
                                   "created": time.time(), "children": children}  # fmt: skip
        if body["media_type"] in ("IMAGE", "VIDEO"):
            polls = self.video_polls if body["media_type"] == "VIDEO" else self.image_polls
            self.containers[number]["status"] = "IN_PROGRESS"
            with self.lock:
                self.processing[number] = polls
        return 200, {"id": number}, {}

    def _look(self, container: dict[str, Any]) -> None:
        """A status read moves a medium's processing on (`video_polls` / `image_polls` looks)."""
        if container["status"] != "IN_PROGRESS":
            return
        look = self.processing_look(container["id"])
        if look == "failed":
            container.update(status="ERROR", error_message=self.video_fail)
        elif look == "done":
            container["status"] = "FINISHED"

    def _window(self, reply: bool) -> int:
        since = time.time() - 86_400
        mine = [p for p in self.posts if p["created"] >= since and bool(p["reply_to"]) == reply]
        return len(mine) + (self.reply_quota_used if reply else self.quota_used)

    def publish(self, call: Call, user: str) -> Answer:
        refused = self._token(call)
        if refused:
            return refused
        container = self.containers.get(call.body.get("creation_id", ""))
        if container is None:
            return _graph_error(24, "The requested resource does not exist.", 400, 4279009)
        if container["body"].get("is_carousel_item") == "true":
            return _graph_error(100, "(#100) A carousel item is published with its carousel")
        if container["status"] == "PUBLISHED":
            return _graph_error(100, "(#100) The container was published already")
        if container["status"] != "FINISHED":
            return _graph_error(24, "Media not found or not ready for publishing.", 400, 4279009)
        reply = bool(container["body"].get("reply_to_id"))
        if self._window(reply) >= (1000 if reply else 250):
            return _graph_error(4, "The publishing limit was reached.", 400, 2207042)
        body = container["body"]
        number = str(18_100_000_000_000_000 + next(self._numbers))
        shortcode = f"C{number[-8:]}"
        with self.lock:
            self.posts.append(
                {"id": number, "text": body.get("text", ""), "media_type": body["media_type"],
                 "reply_to": body.get("reply_to_id", ""), "body": body,
                 "children": [self.containers[c]["body"] for c in container["children"]],
                 "username": THREADS_USER["username"], "shortcode": shortcode,
                 "created": time.time(), "timestamp": stamp(time.time()).replace(".000Z", "+0000"),
                 "permalink": f"https://www.threads.com/@{THREADS_USER['username']}/post/{shortcode}"}
            )  # fmt: skip
        container["status"] = "PUBLISHED"
        return 200, {"id": number}, {}

    def _post(self, number: str) -> dict[str, Any] | None:
        return next((post for post in self.posts if post["id"] == number), None)

    def published(self, *, replies: bool = False) -> list[dict[str, Any]]:
        """The account's top-level posts (or its replies), oldest first."""
        return [post for post in self.posts if bool(post["reply_to"]) == replies]

    # --- Reading ------------------------------------------------------------------------------

    def _page(self, call: Call, items: list[dict[str, Any]], fields: set[str]) -> Answer:
        """A Graph edge's page: `since` (Unix seconds), `limit` (25), the `after` cursor."""
        since = float(call.q("since") or 0)
        items = [item for item in items if item["created"] >= since]
        start, limit = int(call.q("after") or 0), int(call.q("limit") or 25)
        data = [{k: v for k, v in item.items() if k in fields or k == "id"}
                for item in items[start : start + limit]]  # fmt: skip
        paging: dict[str, Any] = {}
        if start + limit < len(items):
            paging = {"cursors": {"after": str(start + limit)},
                      "next": f"https://graph.threads.example/?after={start + limit}"}  # fmt: skip
        return 200, {"data": data, "paging": paging}, {}

    def user_threads(self, call: Call, user: str) -> Answer:
        fields = set(call.q("fields").split(","))
        return self._token(call) or self._page(call, self.published()[::-1], fields)

    def replies(self, call: Call, number: str) -> Answer:
        refused = self._token(call)
        if refused:
            return refused
        if self._post(number) is None:
            return _graph_error(100, f"Object with ID '{number}' does not exist")
        found = [post for post in self.posts if post["reply_to"] == number]
        if call.q("reverse") != "false":
            found.reverse()
        return self._page(call, found, set(call.q("fields").split(",")))

    def publishing_limit(self, call: Call, user: str) -> Answer:
        refused = self._token(call)
        if refused:
            return refused
        limit = {"quota_usage": self._window(False),
                 "config": {"quota_total": 250, "quota_duration": 86400},
                 "reply_quota_usage": self._window(True),
                 "reply_config": {"quota_total": 1000, "quota_duration": 86400}}  # fmt: skip
        fields = call.q("fields").split(",")
        return 200, {"data": [{k: v for k, v in limit.items() if k in fields}]}, {}

    def insights(self, call: Call, number: str) -> Answer:
        refused = self._token(call)
        if refused:
            return refused
        names = call.q("metric").split(",")
        if self._post(number) is None or set(names) - METRICS:
            return _graph_error(100, "(#100) Invalid metric or media id")
        data = [{"name": name, "period": "lifetime", "values": [{"value": 10 + index}],
                 "title": name.title(), "description": name, "id": f"{number}/insights/{name}"}
                for index, name in enumerate(names)]  # fmt: skip
        return 200, {"data": data}, {}

    def node(self, call: Call, number: str) -> Answer:
        """A container's status, or a published post's fields."""
        refused = self._token(call)
        if refused:
            return refused
        container = self.containers.get(number)
        if container is not None:
            self._look(container)
            age = time.time() - container["created"]
            if container["status"] == "FINISHED" and age > 86_400:
                container["status"] = "EXPIRED"
            found = {"id": number, "status": container["status"]}
            if container.get("error_message"):
                found["error_message"] = container["error_message"]
            return 200, found, {}
        post = self._post(number)
        if post is None:
            return _graph_error(100, f"Object with ID '{number}' does not exist")
        fields = set(call.q("fields").split(","))
        return 200, {k: v for k, v in post.items() if k in fields or k == "id"}, {}
