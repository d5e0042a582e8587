"""Reddit's OAuth API as a stand-in (networks/reddit.md): the consent page (`duration=permanent`,
the scopes checked; a user may decline), the token endpoint taking the app only as HTTP Basic
and answering a bad grant `{error: "invalid_grant"}` with HTTP 200 as Reddit may, revocation, the
user (`/api/v1/me`, its `icon_img` HTML-escaped), subreddits (`about`, post requirements, link
flairs), `/api/submit` (every refusal in `json.errors` with HTTP 200: RATELIMIT, SUBREDDIT_NOEXIST,
flair required, lengths), the media flow (an asset lease, the S3 form answered 201, an image post
answered only with a websocket URL and listed after `image_polls` reads), the user's submitted
posts and comments (newest first, `after` pages), comments, `/api/info`, and the rate-limit
headers on every answer. A missing or generic User-Agent is refused with 429, as Reddit does.
`StandIn` gives it `fail`, `expired` (tokens and refresh tokens refused), `scripted`, `acted`."""

import base64
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from tests.social.standins import Answer, Call, StandIn

REDDIT_CLIENT = ("reddit-client-id", "reddit-client-secret")
REDDIT_AGENT = "web:fgp-tests:1.0 (by /u/ada_ops)"
SCOPES = frozenset({"identity", "submit", "read", "flair", "history", "edit", "mysubreddits"})
USER = {"id": "8xwlg", "name": "ada_lovelace", "created_utc": 1_500_000_000.0,
        "icon_img": "https://styles.redditmedia.example/ada.png?width=256&amp;s=abc"}  # fmt: skip
# Subreddits: name -> what its post requirements say (canonical case in `display_name`).
SUBREDDITS: dict[str, dict[str, Any]] = {
    "Freelance": {"is_flair_required": False, "title_text_min_length": None,
                  "title_text_max_length": None, "body_restriction_policy": "none"},
    "DesignJobs": {"is_flair_required": True, "title_text_min_length": 10,
                   "title_text_max_length": 120, "body_restriction_policy": "required"},
    "u_ada_lovelace": {"is_flair_required": False, "body_restriction_policy": "none"},
}  # fmt: skip
FLAIRS: dict[str, list[dict[str, Any]]] = {
    "designjobs": [{"id": "a1b2c3d4-0000-1111-2222-333344445555", "text": "For hire",
                    "text_editable": False, "type": "text"},
                   {"id": "f0e1d2c3-0000-1111-2222-333344445555", "text": "Hiring",
                    "text_editable": True, "type": "text"}],
}  # fmt: skip
AGENT = re.compile(r"\S+:\S+:\S+ \(by /u/\S+\)")
GENERIC = ("python-requests", "curl", "go-http-client", "freelancergrowthplatform")


def base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    found = ""
    while number:
        number, rest = divmod(number, 36)
        found = digits[rest] + found
    return found or "0"


def _errors(*errors: list[str]) -> Answer:
    """`/api/submit`'s refusal: HTTP 200, the errors in `json.errors`."""
    return 200, {"json": {"errors": [list(e) for e in errors]}}, {}


@dataclass
class RedditStandIn(StandIn):
    codes: dict[str, str] = field(default_factory=dict)  # code -> redirect URI
    tokens: set[str] = field(default_factory=set)
    refresh_tokens: set[str] = field(default_factory=set)
    deny: bool = False  # the user declines the consent
    ratelimit: int = 0  # minutes `/api/submit` answers RATELIMIT for (0: none)
    remaining: int = 99  # X-Ratelimit-Remaining of the next answers
    reset: int = 420  # X-Ratelimit-Reset (seconds)
    image_polls: int = 0  # reads of the user's posts before an image post is listed
    comments: list[dict[str, Any]] = field(default_factory=list)
    leases: dict[str, dict[str, str]] = field(default_factory=dict)  # key -> its fields
    uploaded: dict[str, bytes] = field(default_factory=dict)  # key -> the image
    unlisted: dict[str, int] = field(default_factory=dict)  # post name -> reads left
    agents: list[str] = field(default_factory=list)
    routes = (
        ("GET", r"/api/v1/authorize", "authorize"),
        ("POST", r"/api/v1/access_token", "token"),
        ("POST", r"/api/v1/revoke_token", "revoke"),
        ("GET", r"/api/v1/me", "me"),
        ("GET", r"/api/v1/(\w+)/post_requirements", "requirements"),
        ("GET", r"/r/(\w+)/about", "about"),
        ("GET", r"/r/(\w+)/api/link_flair_v2", "flairs"),
        ("POST", r"/api/submit", "submit"),
        ("POST", r"/api/comment", "comment"),
        ("GET", r"/api/info", "info"),
        ("GET", r"/user/(\w+)/submitted", "submitted"),
        ("GET", r"/user/(\w+)/comments", "user_comments"),
        ("POST", r"/api/media/asset\.json", "lease"),
        ("POST", r"/s3-upload", "upload"),
    )

    # --- What every answer shares ---------------------------------------------------------------

    def _limits(self) -> dict[str, str]:
        return {"X-Ratelimit-Used": str(100 - self.remaining),
                "X-Ratelimit-Remaining": str(self.remaining),
                "X-Ratelimit-Reset": str(self.reset)}  # fmt: skip

    def busy(self) -> Answer:
        return 429, {"message": "Too Many Requests", "error": 429}, {
            **self._limits(), "X-Ratelimit-Remaining": "0"}  # fmt: skip

    def down(self) -> Answer:
        return 503, {"message": "Service Unavailable", "error": 503}, {}

    def answer(self, call: Call) -> Answer:
        """A generic or missing User-Agent refused (429) on every call but the consent page
        (a browser) and the S3 form; the rate-limit headers on every answer."""
        if call.path not in ("/api/v1/authorize", "/s3-upload"):
            agent = call.headers.get("User-Agent", "")
            with self.lock:
                self.agents.append(agent)
            if not AGENT.fullmatch(agent) or agent.lower().startswith(GENERIC):
                return 429, {"message": "Too Many Requests", "error": 429}, self._limits()
        status, body, headers = super().answer(call)
        return status, body, {**self._limits(), **headers}

    def _refused(self, call: Call) -> Answer | None:
        value = call.headers.get("Authorization", "")
        token = value[7:] if value.lower().startswith("bearer ") else ""
        if self.expired or token not in self.tokens:
            return 401, {"message": "Unauthorized", "error": 401}, {}
        return None

    # --- OAuth ---------------------------------------------------------------------------------

    def authorize(self, call: Call) -> Answer:
        asked = set(call.q("scope").split())
        if (call.q("client_id") != REDDIT_CLIENT[0] or call.q("response_type") != "code"
                or call.q("duration") not in ("temporary", "permanent")
                or not asked or not asked <= SCOPES or not call.q("state")):  # fmt: skip
            return 400, {"message": "Bad Request", "error": 400}, {}
        back = {"state": call.q("state")}
        if self.deny:
            back["error"] = "access_denied"
        else:
            code = f"reddit-code-{self.next_id()}"
            with self.lock:
                self.codes[code] = call.q("redirect_uri")
            back["code"] = code
        return 302, b"", {"Location": f"{call.q('redirect_uri')}?{urlencode(back)}"}

    def _client_ok(self, call: Call) -> bool:
        expected = base64.b64encode(":".join(REDDIT_CLIENT).encode()).decode()
        return call.headers.get("Authorization", "") == f"Basic {expected}"

    def _issue(self, refresh: str = "") -> dict[str, Any]:
        number = self.next_id()
        access = f"reddit-access-{number}"
        refresh = refresh or f"reddit-refresh-{number}"
        with self.lock:
            self.tokens.add(access)
            self.refresh_tokens.add(refresh)
        return {"access_token": access, "token_type": "bearer", "expires_in": 3600,
                "scope": "identity submit read flair history",
                "refresh_token": refresh}  # fmt: skip

    def token(self, call: Call) -> Answer:
        if not self._client_ok(call):
            return 401, {"message": "Unauthorized", "error": 401}, {}
        form = call.body if isinstance(call.body, dict) else {}
        if form.get("grant_type") == "refresh_token":
            refresh = form.get("refresh_token", "")
            if self.expired or refresh not in self.refresh_tokens:
                return 200, {"error": "invalid_grant"}, {}
            issued = self._issue(refresh)
            issued.pop("refresh_token")  # a refresh keeps the permanent refresh token
            return 200, issued, {}
        with self.lock:
            redirect = self.codes.pop(form.get("code", ""), None)
        if form.get("grant_type") != "authorization_code" or redirect is None:
            return 200, {"error": "invalid_grant"}, {}
        if redirect != form.get("redirect_uri"):
            return 200, {"error": "invalid_grant"}, {}
        return 200, self._issue(), {}

    def revoke(self, call: Call) -> Answer:
        if not self._client_ok(call):
            return 401, {"message": "Unauthorized", "error": 401}, {}
        with self.lock:
            self.refresh_tokens.discard(call.body.get("token", ""))
            self.tokens.clear()
        return 200, {}, {}

    # --- The user and subreddits ------------------------------------------------------------------

    def me(self, call: Call) -> Answer:
        return self._refused(call) or (200, {**USER, "is_suspended": False}, {})

    def _subreddit(self, name: str) -> str | None:
        return next((sr for sr in SUBREDDITS if sr.lower() == name.lower()), None)

    def _of_subreddit(self, call: Call, name: str, answer: Callable[[str], Any]) -> Answer:
        """A subreddit's page: 404 for one it does not have, else 200 with `answer(its name)`."""
        refused = self._refused(call)
        if refused:
            return refused
        found = self._subreddit(name)
        if found is None:
            return 404, {"message": "Not Found", "error": 404}, {}
        return 200, answer(found), {}

    def about(self, call: Call, name: str) -> Answer:
        return self._of_subreddit(call, name, lambda found: {
            "kind": "t5",
            "data": {"display_name": found, "name": "t5_2qh1i", "subreddit_type": "public"},
        })  # fmt: skip

    def requirements(self, call: Call, name: str) -> Answer:
        return self._of_subreddit(call, name, lambda found: {
            "title_regexes": [], "body_blacklisted_strings": [], **SUBREDDITS[found],
        })  # fmt: skip

    def flairs(self, call: Call, name: str) -> Answer:
        return self._of_subreddit(call, name, lambda found: FLAIRS.get(name.lower(), []))

    # --- Posts -----------------------------------------------------------------------------------

    def submit(self, call: Call) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        form = call.body if isinstance(call.body, dict) else {}
        if form.get("api_type") != "json":
            return 400, {"message": "Bad Request", "error": 400}, {}
        if self.ratelimit:
            said = (f"Looks like you've been doing that a lot. Take a break for "
                    f"{self.ratelimit} minutes before trying again.")  # fmt: skip
            return _errors(["RATELIMIT", said, "ratelimit"])
        subreddit = self._subreddit(form.get("sr", ""))
        if subreddit is None:
            return _errors(["SUBREDDIT_NOEXIST", "that subreddit doesn't exist", "sr"])
        title, kind = form.get("title", ""), form.get("kind", "")
        if not title:
            return _errors(["NO_TEXT", "we need something here", "title"])
        if len(title) > 300:
            return _errors(["TOO_LONG", "this is too long (max: 300)", "title"])
        if kind not in ("self", "link", "image"):
            return _errors(["INVALID_OPTION", "that option is not valid", "kind"])
        if kind == "self" and len(form.get("text", "")) > 40000:
            return _errors(["TOO_LONG", "this is too long (max: 40000)", "text"])
        if kind in ("link", "image") and not str(form.get("url", "")).startswith("http"):
            return _errors(["BAD_URL", "you should check that url", "url"])
        if kind == "image" and form["url"].rsplit("/", 1)[-1] not in self.uploaded:
            return _errors(["BAD_URL", "the image was not uploaded", "url"])
        flairs = FLAIRS.get(subreddit.lower(), [])
        flair = form.get("flair_id", "")
        if SUBREDDITS[subreddit].get("is_flair_required") and not flair:
            return _errors(["SUBMIT_VALIDATION_FLAIR_REQUIRED", "Post must contain post flair.",
                            "flair"])  # fmt: skip
        if flair and flair not in {item["id"] for item in flairs}:
            return _errors(["INVALID_OPTION", "that flair does not exist", "flair_id"])
        number = self.next_id()
        post_id = base36(1_000_000_000 + number)
        slug = re.sub(r"\W+", "_", title.lower()).strip("_")[:50]
        permalink = f"/r/{subreddit}/comments/{post_id}/{slug}/"
        post = {"id": post_id, "name": f"t3_{post_id}", "subreddit": subreddit,
                "title": title, "selftext": form.get("text", "") if kind == "self" else "",
                "url": form.get("url") or f"https://www.reddit.com{permalink}", "kind": kind,
                "permalink": permalink, "created_utc": time.time(), "author": USER["name"],
                "link_flair_template_id": flair or None, "over_18": form.get("nsfw") == "true",
                "spoiler": form.get("spoiler") == "true",
                "send_replies": form.get("sendreplies") != "false"}  # fmt: skip
        with self.lock:
            self.posts.append(post)
            if kind == "image":
                self.unlisted[post["name"]] = self.image_polls
        if kind == "image":  # the media flow answers no post: only where to listen for it
            return 200, {"json": {"errors": [], "data": {
                "user_submitted_page": f"https://www.reddit.com/user/{USER['name']}/submitted/",
                "websocket_url": f"wss://ws.redditmedia.example/rte/{number}"}}}, {}  # fmt: skip
        return 200, {"json": {"errors": [], "data": {
            "url": f"https://www.reddit.com{permalink}", "drafts_count": 0,
            "id": post_id, "name": f"t3_{post_id}"}}}, {}  # fmt: skip

    def _listing(self, call: Call, items: list[dict[str, Any]], kind: str) -> Answer:
        limit = min(int(call.q("limit") or 25), 100)
        after = call.q("after")
        start = next((i + 1 for i, item in enumerate(items) if item["name"] == after), 0)
        page = items[start : start + limit]
        more = start + limit < len(items)
        return 200, {"kind": "Listing", "data": {
            "after": page[-1]["name"] if more and page else None, "dist": len(page),
            "children": [{"kind": kind, "data": item} for item in page]}}, {}  # fmt: skip

    def submitted(self, call: Call, name: str) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        if name.lower() != USER["name"]:
            return 404, {"message": "Not Found", "error": 404}, {}
        with self.lock:
            listed = []
            for post in reversed(self.posts):
                left = self.unlisted.get(post["name"], 0)
                if left > 0:
                    self.unlisted[post["name"]] = left - 1
                    continue
                listed.append(post)
        return self._listing(call, listed, "t3")

    def comment(self, call: Call) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        form = call.body if isinstance(call.body, dict) else {}
        parent = next((p for p in self.posts if p["name"] == form.get("thing_id")), None)
        if parent is None:
            return _errors(["NO_THING_ID", "that thing does not exist", "parent"])
        text = form.get("text", "")
        if not text:
            return _errors(["NO_TEXT", "we need something here", "text"])
        if len(text) > 10000:
            return _errors(["TOO_LONG", "this is too long (max: 10000)", "text"])
        comment_id = base36(2_000_000_000 + self.next_id())
        comment = {"id": comment_id, "name": f"t1_{comment_id}", "link_id": parent["name"],
                   "parent_id": parent["name"], "body": text, "created_utc": time.time(),
                   "subreddit": parent["subreddit"], "author": USER["name"],
                   "permalink": f"{parent['permalink']}{comment_id}/"}  # fmt: skip
        with self.lock:
            self.comments.append(comment)
        return 200, {"json": {"errors": [], "data": {"things": [
            {"kind": "t1", "data": comment}]}}}, {}  # fmt: skip

    def user_comments(self, call: Call, name: str) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        return self._listing(call, list(reversed(self.comments)), "t1")

    def info(self, call: Call) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        names = call.q("id").split(",")
        found = [{**post, "score": 41, "ups": 42, "num_comments": 5, "upvote_ratio": 0.97,
                  "view_count": None} for post in self.posts if post["name"] in names]  # fmt: skip
        return self._listing(call, found, "t3")

    # --- Media -----------------------------------------------------------------------------------

    def lease(self, call: Call) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        form = call.body if isinstance(call.body, dict) else {}
        if form.get("mimetype") not in ("image/jpeg", "image/png", "image/gif"):
            return 400, {"message": "Bad Request", "error": 400}, {}
        asset = f"asset{self.next_id()}"
        key = f"rte_images/{asset}"
        fields = {"key": key, "Content-Type": form["mimetype"], "policy": "eyJwb2xpY3kiOiJ4In0=",
                  "x-amz-signature": f"sig-{asset}"}  # fmt: skip
        with self.lock:
            self.leases[asset] = fields
        host = self.url.split("://", 1)[1]
        lease = {"args": {"action": f"//{host}/s3-upload",
                          "fields": [{"name": k, "value": v} for k, v in fields.items()]},
                 "asset": {"asset_id": asset, "processing_state": "incomplete",
                           "payload": {"filepath": form.get("filepath")},
                           "websocket_url": f"wss://ws.redditmedia.example/{asset}"}}  # fmt: skip
        return 200, lease, {}

    def upload(self, call: Call) -> Answer:
        form = call.body if isinstance(call.body, dict) else {}
        said = {name: (value.decode() if isinstance(value, bytes) else value)
                for name, value in form.items() if name != "file"}  # fmt: skip
        asset = str(said.get("key", "")).rsplit("/", 1)[-1]
        if "Authorization" in call.headers or self.leases.get(asset) != said:
            return 403, b"<Error><Code>SignatureDoesNotMatch</Code></Error>", {}
        data = form.get("file")
        if not isinstance(data, bytes) or not data or list(form)[-1] != "file":
            return 400, b"<Error><Code>MalformedPOSTRequest</Code></Error>", {}
        with self.lock:
            self.uploaded[asset] = data
        location = f"{self.url}/s3-upload/rte_images/{asset}"
        xml = f"<PostResponse><Location>{location}</Location><Key>rte_images/{asset}</Key>"
        return 201, f"{xml}</PostResponse>".encode(), {"Content-Type": "application/xml"}
