"""Local stand-ins of the six providers' APIs, one HTTP server each, behaving like the real ones
(providers.md): the consent redirects and code checks, the requests they accept, their answers,
their error bodies and codes, 429 with the platform's reset header, expired tokens.

A test points the settings at `standins.settings()` and reads what each stand-in received
(`calls`) or created (`posts`). `fail` makes a stand-in answer like an outage or a rate limit,
`latency` slows every answer, `expire` makes its tokens stop working.

`make sandbox` (scripts/sandbox.py) serves them on fixed ports for people trying the API by
hand: `log` is told a line for every call, and `GET /_standin/received` on any stand-in lists
what it received.
"""

import asyncio
import base64
import calendar
import functools
import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, ClassVar, cast
from urllib.parse import parse_qs, unquote, urlencode, urlparse

if TYPE_CHECKING:
    from tests.social.discord_standin import DiscordStandIn
    from tests.social.google_business_standin import GoogleBusinessStandIn
    from tests.social.pinterest_standin import PinterestStandIn
    from tests.social.reddit_standin import RedditStandIn
    from tests.social.slack_standin import SlackStandIn
    from tests.social.telegram_standin import TelegramStandIn
    from tests.social.threads_standin import ThreadsStandIn
    from tests.social.tiktok_standin import TikTokStandIn
    from tests.social.youtube_standin import YouTubeStandIn

LINKEDIN_CLIENT = ("li-client-id", "li-client-secret")
FACEBOOK_APP = ("fb-app-id", "fb-app-secret")
GRAPH_VERSION = "v24.0"
LINKEDIN_VERSION = "202510"
DEVTO_KEY = "devto-key-0123456789"
BLUESKY_HANDLE = "ada.bsky.social"
BLUESKY_APP_PASSWORD = "abcd-efgh-ijkl-mnop"
BLUESKY_DID = "did:plc:ada123"
LINKEDIN_SUB = "li-ada-42"
LINKEDIN_PERSON = f"urn:li:person:{LINKEDIN_SUB}"
# What each consent grants (a member's posts, or the pages the member administers): the token
# it yields, and the scopes that token carries.
LINKEDIN_MEMBER_SCOPES = frozenset({"openid", "profile", "email", "w_member_social"})
LINKEDIN_PAGE_SCOPES = frozenset(
    {"w_organization_social", "r_organization_social", "rw_organization_admin"}
)
LINKEDIN_TOKENS = {"li-access-token": LINKEDIN_MEMBER_SCOPES,
                   "li-page-access-token": LINKEDIN_PAGE_SCOPES}  # fmt: skip
# The member's roles on organization pages, as `organizationAcls` lists them: an analyst of
# one, a pending request on another, then two pages the member administers.
LINKEDIN_ORGANIZATIONS: list[dict[str, Any]] = [
    {"id": 2414185, "localizedName": "Babbage & Co", "vanityName": "babbage-co",
     "role": "ANALYST", "state": "APPROVED"},
    {"id": 2414186, "localizedName": "Engine Club", "vanityName": "engine-club",
     "role": "ADMINISTRATOR", "state": "REQUESTED"},
    {"id": 2414183, "localizedName": "Ada Designs", "vanityName": "ada-designs",
     "role": "ADMINISTRATOR", "state": "APPROVED"},
    {"id": 2414184, "localizedName": "Ada Labs", "vanityName": "ada-labs",
     "role": "ADMINISTRATOR", "state": "APPROVED"},
]  # fmt: skip
# Roles that may post as the page (LinkedIn's content administrators too).
LINKEDIN_POSTING_ROLES = ("ADMINISTRATOR", "CONTENT_ADMINISTRATOR")
LINKEDIN_PART_BYTES = 4_194_304  # the Videos API's part size
FACEBOOK_PAGES: list[dict[str, Any]] = [
    {"id": "1001", "name": "Ada Designs", "ig": "17841400000000001"},
    {"id": "1002", "name": "Ada Side Project", "ig": None},
]
MASTODON_ACCOUNT_ID = "109000000000000001"

if TYPE_CHECKING:  # the networks' stand-ins in modules of their own build on StandIn
    from tests.social.x_standin import XStandIn


@dataclass
class Call:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any  # JSON, a form as a dict, or bytes
    received_at: float = field(default_factory=time.time)  # when the platform had the request

    def q(self, name: str) -> str:
        return self.query.get(name, [""])[0]


Answer = tuple[int, Any, dict[str, str]]


@dataclass
class StandIn:
    """One provider's API. Subclasses declare `routes`: (method, path regex, handler)."""

    name: str = ""
    url: str = ""
    calls: list[Call] = field(default_factory=list)
    posts: list[dict[str, Any]] = field(default_factory=list)
    fail: str = ""  # "", "down" (503), "busy" (429), "timeout" (no answer in time)
    latency: float = 0.0
    hang: float = 3.0  # how long "timeout" holds the answer back (the work is done after it)
    expired: bool = False
    # Answers given once each, in order, to the next calls matching (method, path regex), or
    # (method, path regex, answer, text) to the next whose body holds `text` (a thread's third
    # part), before any other rule: a platform failing one call and then recovering.
    scripted: list[tuple[Any, ...]] = field(default_factory=list)
    # The same, but the call is handled first and then answered so: a platform that did the
    # work and failed to say so (a 500 or a 502 from its gateway after the post was made).
    acted: list[tuple[Any, ...]] = field(default_factory=list)
    # Video processing (social.md section 10): how many looks answer "still processing"
    # before the platform is done, and, when set, the reason its processing fails.
    video_polls: int = 2
    video_fail: str = ""
    processing: dict[str, int] = field(default_factory=dict)  # upload id -> looks left
    lock: threading.RLock = field(default_factory=threading.RLock)
    in_flight: int = 0  # calls being handled, a held-back "timeout" one included
    # Told a line for every call answered (the sandbox prints them).
    log: Callable[[str], None] | None = None
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    routes: ClassVar[tuple[tuple[str, str, str], ...]] = ()

    def next_id(self) -> int:
        with self.lock:
            return next(self._ids)

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no call is being handled (a call the client gave up on has then done
        its work); whether that happened within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if self.in_flight == 0:
                    return True
            time.sleep(0.01)
        return False

    def received(self, method: str, path: str) -> list[Call]:
        return [call for call in self.calls if call.method == method and call.path == path]

    def take_scripted(
        self, call: Call, scripted: list[tuple[Any, ...]] | None = None
    ) -> Answer | None:
        script = self.scripted if scripted is None else scripted
        with self.lock:
            for index, (method, pattern, answer, *text) in enumerate(script):
                if method != call.method or not re.fullmatch(pattern, call.path):
                    continue
                if text and text[0] not in json.dumps(call.body, default=str):
                    continue
                del script[index]
                return cast(Answer, answer)
        return None

    def busy(self) -> Answer:
        return (
            429,
            {"error": "RateLimitExceeded", "message": "Too many requests"},
            {"Retry-After": "30"},
        )

    def processing_started(self, upload: str) -> None:
        with self.lock:
            self.processing[upload] = self.video_polls

    def processing_look(self, upload: str) -> str:
        """One look at an upload: "processing" (for `video_polls` looks), then "failed" (when
        `video_fail` is set) or "done"."""
        with self.lock:
            left = self.processing.get(upload, 0)
            if left > 0:
                self.processing[upload] = left - 1
                return "processing"
        return "failed" if self.video_fail else "done"

    def down(self) -> Answer:
        return 503, {"error": "ServiceUnavailable"}, {}

    def arrived(self, call: Call) -> None:
        with self.lock:
            self.calls.append(call)
            self.in_flight += 1

    def answered(self) -> None:
        with self.lock:
            self.in_flight -= 1

    def answer(self, call: Call) -> Answer:
        """The answer to `call`, once its `latency` (and a "timeout" failure's `hang`) has
        passed: what is scripted first, then an outage or a rate limit, then the route's."""
        scripted = self.take_scripted(call) if self.scripted else None
        acted = self.take_scripted(call, self.acted) if self.acted else None
        if scripted is not None:
            return scripted
        if acted is not None:
            self.dispatch(call)
            return acted
        if self.fail == "down":
            return self.down()
        if self.fail == "busy":
            return self.busy()
        return self.dispatch(call)

    def dispatch(self, call: Call) -> Answer:
        for method, pattern, handler in self.routes:
            match = method == call.method and re.fullmatch(pattern, call.path)
            if match:
                answer: Answer = getattr(self, handler)(call, *match.groups())
                return answer
        return 404, {"error": "NotFound", "message": f"{call.method} {call.path}"}, {}


def stamp(moment: float) -> str:
    """A time as the platforms write it in their JSON (ISO 8601, UTC)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(moment))


def _graph_page(call: Call, items: list[dict[str, Any]], created: str) -> dict[str, Any]:
    """A Graph edge's page: newest first, from `since` on (Unix seconds), `limit` at a time
    (25 by default), the next page by the `after` cursor, `paging.next` while there is more."""
    since = int(call.q("since") or 0)
    items = [item for item in items if _seconds(item[created]) >= since]
    start, limit = int(call.q("after") or 0), int(call.q("limit") or 25)
    page: dict[str, Any] = {"data": items[start : start + limit], "paging": {}}
    if start + limit < len(items):
        page["paging"] = {"cursors": {"after": str(start + limit)},
                          "next": f"https://graph.example/next?after={start + limit}"}  # fmt: skip
    return page


def _seconds(stamp: str) -> float:
    return calendar.timegm(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S"))


def _bearer(call: Call) -> str:
    value = call.headers.get("Authorization", "")
    return value[7:] if value.startswith("Bearer ") else ""


def _consent_redirect(call: Call, code: str) -> Answer:
    """The consent page after the user approved: back to the redirect URI with code and state."""
    query = urlencode({"code": code, "state": call.q("state")})
    return 302, b"", {"Location": f"{call.q('redirect_uri')}?{query}"}


# --- LinkedIn ---------------------------------------------------------------------------------


@dataclass
class LinkedInStandIn(StandIn):
    codes: dict[str, str] = field(default_factory=dict)  # code -> redirect URI
    videos: dict[str, dict[str, Any]] = field(default_factory=dict)  # urn -> parts, state
    uploaded: dict[str, int] = field(default_factory=dict)  # upload number -> bytes received
    # Documents API: urn -> owner, status, its upload's number; upload number -> urn.
    documents: dict[str, dict[str, Any]] = field(default_factory=dict)
    document_uploads: dict[str, str] = field(default_factory=dict)
    refresh_token_lifetime: int = 0  # seconds; 0: no refresh token (only partners get one)
    scopes: dict[str, list[str]] = field(default_factory=dict)  # code -> the scopes granted
    # The member's roles on organization pages (`organizationAcls`): a test revokes one here.
    acls: list[dict[str, Any]] = field(
        default_factory=lambda: [dict(page) for page in LINKEDIN_ORGANIZATIONS]
    )
    routes = (
        ("GET", r"/oauth/v2/authorization", "authorize"),
        ("POST", r"/oauth/v2/accessToken", "token"),
        ("GET", r"/v2/userinfo", "userinfo"),
        ("POST", r"/rest/posts", "create_post"),
        ("GET", r"/rest/posts", "find_posts"),
        ("POST", r"/rest/images", "initialize_upload"),
        ("PUT", r"/upload/(\w+)", "upload"),
        ("GET", r"/rest/memberCreatorPostAnalytics", "analytics"),
        ("POST", r"/rest/videos", "video_action"),
        ("GET", r"/rest/videos/([^/]+)", "video"),
        ("POST", r"/rest/documents", "document_action"),
        ("GET", r"/rest/documents/([^/]+)", "document"),
        ("POST", r"/rest/socialActions/([^/]+)/comments", "create_comment"),
        ("GET", r"/rest/socialActions/([^/]+)/comments", "comments"),
        ("GET", r"/rest/organizationAcls", "organization_acls"),
        ("GET", r"/rest/organizations/(\d+)", "organization"),
        ("GET", r"/rest/organizationalEntityShareStatistics", "share_statistics"),
    )

    def _token_ok(self, call: Call) -> Answer | None:
        if self.expired or _bearer(call) not in LINKEDIN_TOKENS:
            return 401, {"status": 401, "serviceErrorCode": 65602, "code": "EXPIRED_ACCESS_TOKEN",
                         "message": "The token used in the request has expired"}, {}  # fmt: skip
        return None

    def _scoped(self, call: Call, *scopes: str) -> Answer | None:
        """The token carries one of `scopes` (checked after `_versioned`), else LinkedIn's 403."""
        if not set(scopes) & LINKEDIN_TOKENS.get(_bearer(call), frozenset()):
            return 403, {"status": 403, "serviceErrorCode": 100, "code": "ACCESS_DENIED",
                         "message": f"Not enough permissions to access: {call.path} "
                         f"(needs {' or '.join(scopes)})"}, {}  # fmt: skip
        return None

    def _roles(self, organization: str, roles: tuple[str, ...]) -> bool:
        """The member holds an approved role of `roles` on the organization (its id)."""
        return any(str(acl["id"]) == organization and acl["role"] in roles
                   and acl["state"] == "APPROVED" for acl in self.acls)  # fmt: skip

    def _may_act_as(self, call: Call, urn: Any) -> Answer | None:
        """Who the caller may post (or upload) as: the member with `w_member_social`, or an
        organization the member administers with `w_organization_social`; LinkedIn's 403
        otherwise (a page the member does not administer, a role revoked or pending)."""
        urn = str(urn or "")
        if urn == LINKEDIN_PERSON:
            return self._scoped(call, "w_member_social")
        organization = urn.removeprefix("urn:li:organization:")
        if organization != urn:
            refused = self._scoped(call, "w_organization_social")
            if refused or self._roles(organization, LINKEDIN_POSTING_ROLES):
                return refused
        return 403, {"status": 403, "serviceErrorCode": 100, "code": "ACCESS_DENIED",
                     "message": f"Not enough permissions to act as {urn}"}, {}  # fmt: skip

    def _versioned(self, call: Call) -> Answer | None:
        if call.headers.get("LinkedIn-Version") != LINKEDIN_VERSION:
            return 426, {"status": 426, "code": "NONEXISTENT_VERSION",
                         "message": "Requested version is not active"}, {}  # fmt: skip
        if call.headers.get("X-Restli-Protocol-Version") != "2.0.0":
            return 400, {"status": 400, "message": "Restli protocol 2.0.0 required"}, {}
        return self._token_ok(call)

    def authorize(self, call: Call) -> Answer:
        asked = call.q("scope").split()
        known = LINKEDIN_MEMBER_SCOPES | LINKEDIN_PAGE_SCOPES
        if (
            call.q("client_id") != LINKEDIN_CLIENT[0]
            or not asked
            or not set(asked) <= known
            or not {"w_member_social", "w_organization_social"} & set(asked)
        ):
            return 400, {"error": "invalid_request", "error_description": "bad client or scope"}, {}
        code = f"li-code-{self.next_id()}"
        self.codes[code] = call.q("redirect_uri")
        self.scopes[code] = asked
        return _consent_redirect(call, code)

    def token(self, call: Call) -> Answer:
        form = call.body
        if (form.get("client_id"), form.get("client_secret")) != LINKEDIN_CLIENT:
            return 401, {"error": "invalid_client",
                         "error_description": "Client authentication failed"}, {}  # fmt: skip
        exchange = form.get("grant_type") == "authorization_code"
        if exchange and self.codes.pop(form.get("code", ""), None) != form.get("redirect_uri"):
            return 400, {"error": "invalid_request",
                             "error_description": "Unable to retrieve access token: "
                             "authorization code not found"}, {}  # fmt: skip
        # A consent for pages yields a token for pages (its refresh token renews the same).
        if exchange:
            page = "w_organization_social" in self.scopes.pop(form.get("code", ""), [])
        else:
            page = str(form.get("refresh_token") or "").startswith("li-page-")
        prefix = "li-page-" if page else "li-"
        scopes = LINKEDIN_TOKENS[f"{prefix}access-token"]
        token: dict[str, Any] = {"access_token": f"{prefix}access-token", "expires_in": 5184000,
                                 "scope": ",".join(sorted(scopes))}  # fmt: skip
        if self.refresh_token_lifetime:
            token.update(refresh_token=f"{prefix}refresh-token",
                         refresh_token_expires_in=self.refresh_token_lifetime)  # fmt: skip
        return 200, token, {}

    def userinfo(self, call: Call) -> Answer:
        return self._token_ok(call) or (
            200,
            {"sub": LINKEDIN_SUB, "name": "Ada Lovelace", "email": "ada@example.com",
             "picture": "https://media.licdn.com/ada.jpg", "email_verified": True},
            {},
        )  # fmt: skip

    def create_post(self, call: Call) -> Answer:
        refused = self._versioned(call)
        if refused:
            return refused
        body = call.body
        if not body.get("author") or "commentary" not in body:
            return 422, {"status": 422, "message": "author and commentary are required"}, {}
        refused = self._may_act_as(call, body["author"]) or self._document_refused(
            (body.get("content") or {}).get("media") or {}, body["author"]
        )
        if refused:
            return refused
        if any(post.get("commentary") == body["commentary"] and post.get("author")
               == body["author"] for post in self.posts):  # fmt: skip
            return 422, {"status": 422, "code": "DUPLICATE_POST",
                         "message": "Content is a duplicate of urn:li:share:1"}, {}  # fmt: skip
        urn = f"urn:li:share:{7000 + self.next_id()}"
        self.posts.append({**body, "id": urn, "createdAt": int(time.time() * 1000)})
        return 201, b"", {"x-restli-id": urn}

    def find_posts(self, call: Call) -> Answer:
        """The author's posts, newest created first, `count` (10 by default) from `start`; an
        organization's need `r_organization_social` and a role on it."""
        refused = self._versioned(call)
        if refused:
            return refused
        author = call.q("author")
        organization = author.removeprefix("urn:li:organization:")
        if organization != author:
            refused = self._scoped(call, "r_organization_social")
            if refused is None and not self._roles(
                organization, (*LINKEDIN_POSTING_ROLES, "ANALYST")
            ):
                said = f"Not enough permissions to read {author}"
                refused = 403, {"status": 403, "serviceErrorCode": 100,
                                "code": "ACCESS_DENIED", "message": said}, {}  # fmt: skip
        if refused:
            return refused
        posts = sorted((post for post in self.posts if post.get("kind") != "comment"
                        and post.get("author") == author),
                       key=lambda post: -int(post["createdAt"]))  # fmt: skip
        start, count = int(call.q("start") or 0), int(call.q("count") or 10)
        page = {"elements": posts[start : start + count],
                "paging": {"start": start, "count": count, "total": len(posts)}}  # fmt: skip
        return 200, page, {}

    def create_comment(self, call: Call, target: str) -> Answer:
        """The Comments API: the post's URN percent-encoded in the path and as `object`; the
        comment's URN answered in x-restli-id."""
        refused = self._versioned(call)
        if refused:
            return refused
        urn = unquote(target)
        body = call.body
        if not any(post["id"] == urn for post in self.posts) or body.get("object") != urn:
            return 404, {"status": 404, "message": f"Not found: {urn}"}, {}
        if not body.get("actor") or not (body.get("message") or {}).get("text"):
            return 422, {"status": 422, "message": "actor and message.text are required"}, {}
        refused = self._may_act_as(call, body["actor"])
        if refused:
            return refused
        comment = f"urn:li:comment:({urn},{7500 + self.next_id()})"
        self.posts.append({"kind": "comment", "id": comment, "object": urn,
                           "actor": body["actor"], "message": body["message"]})  # fmt: skip
        return (
            201,
            {"$URN": comment, "object": urn, "message": body["message"]},
            {"x-restli-id": comment},
        )

    def comments(self, call: Call, target: str) -> Answer:
        """The post's comments, newest first, `count` (10 by default) from `start`."""
        urn = unquote(target)
        found = [{"$URN": post["id"], "actor": post["actor"], "message": post["message"]}
                 for post in reversed(self.posts) if post.get("object") == urn]  # fmt: skip
        start, count = int(call.q("start") or 0), int(call.q("count") or 10)
        return self._versioned(call) or (200, {"elements": found[start : start + count]}, {})

    def initialize_upload(self, call: Call) -> Answer:
        refused = self._versioned(call) or self._may_act_as(
            call, (call.body.get("initializeUploadRequest") or {}).get("owner")
        )
        if refused:
            return refused
        number = self.next_id()
        return 200, {"value": {"uploadUrl": f"{self.url}/upload/{number}",
                               "image": f"urn:li:image:{number}"}}, {}  # fmt: skip

    def upload(self, call: Call, number: str) -> Answer:
        with self.lock:
            urn = self.document_uploads.get(number)
            if urn is not None:  # a document's upload URL wants the member's token
                refused = self._token_ok(call)
                if refused:
                    return refused
                if self.documents[urn]["status"] != "WAITING_UPLOAD":
                    return 400, {"status": 400, "message": "The upload URL was used"}, {}
            self.uploaded[number] = len(call.body) if isinstance(call.body, bytes) else 0
            if urn is not None:
                document = self.documents[urn]
                document["status"] = "PROCESSING"
                # LinkedIn reads the file: bytes that are no document fail its processing.
                document["pdf"] = isinstance(call.body, bytes) and call.body.startswith(b"%PDF-")
                self.processing_started(urn)
        return 201, b"", {"etag": f"etag-{number}"}

    def document_action(self, call: Call) -> Answer:
        """The Documents API: `initializeUpload` for an owner the caller may post as answers
        the document's URN and one upload URL (the whole file is PUT there)."""
        refused = self._versioned(call)
        if refused:
            return refused
        if call.q("action") != "initializeUpload":
            return 400, {"status": 400, "message": "Unknown action"}, {}
        owner = (call.body.get("initializeUploadRequest") or {}).get("owner")
        if not owner:
            return 422, {"status": 422, "code": "FIELD_VALIDATION_FAILED",
                         "message": "initializeUploadRequest.owner is required"}, {}  # fmt: skip
        refused = self._may_act_as(call, owner)
        if refused:
            return refused
        number = f"d{self.next_id()}"
        urn = f"urn:li:document:D4{self.next_id()}"
        with self.lock:
            self.documents[urn] = {"owner": owner, "status": "WAITING_UPLOAD", "upload": number}
            self.document_uploads[number] = urn
        expires = int(time.time() * 1000) + 3_600_000
        return 200, {"value": {"uploadUrlExpiresAt": expires, "document": urn,
                               "uploadUrl": f"{self.url}/upload/{number}"}}, {}  # fmt: skip

    def document(self, call: Call, target: str) -> Answer:
        """`GET /rest/documents/{urn}`: WAITING_UPLOAD until its bytes arrive, PROCESSING for
        `video_polls` looks, then AVAILABLE, or PROCESSING_FAILED (bytes that are no
        document, or `video_fail`)."""
        refused = self._versioned(call)
        if refused:
            return refused
        urn = unquote(target)
        with self.lock:
            document = self.documents.get(urn)
            if document is None:
                return 404, {"status": 404, "message": f"Not found: {urn}"}, {}
            if document["status"] == "PROCESSING":
                look = self.processing_look(urn)
                if look == "failed" or (look == "done" and not document["pdf"]):
                    document["status"] = "PROCESSING_FAILED"
                    document["reason"] = self.video_fail or "Unsupported document format"
                elif look == "done":
                    document["status"] = "AVAILABLE"
            found = {"id": urn, "owner": document["owner"], "status": document["status"]}
            if document["status"] == "AVAILABLE":
                found["downloadUrl"] = f"{self.url}/documents/{urn}.pdf"
            if document["status"] == "PROCESSING_FAILED":
                found["processingFailureReason"] = document["reason"]
        return 200, found, {}

    def _document_refused(self, media: dict[str, Any], author: str) -> Answer | None:
        """A post naming a document: one the post's author owns, processed, with a title."""
        urn = str(media.get("id") or "")
        if not urn.startswith("urn:li:document:"):
            return None
        document = self.documents.get(urn)
        if document is None or document["owner"] != author:
            return 422, {"status": 422, "code": "FIELD_VALIDATION_FAILED",
                         "message": f"/content/media/id: {urn} not found"}, {}  # fmt: skip
        if document["status"] != "AVAILABLE":
            return 422, {"status": 422, "code": "FIELD_VALIDATION_FAILED",
                         "message": f"/content/media/id: {urn} is not AVAILABLE"}, {}  # fmt: skip
        if not media.get("title"):
            return 422, {"status": 422, "code": "FIELD_VALIDATION_FAILED",
                         "message": "/content/media/title is required"}, {}  # fmt: skip
        return None

    def video_action(self, call: Call) -> Answer:
        """The Videos API: `initializeUpload` answers the parts (4 MB byte ranges) and their
        URLs; `finalizeUpload` wants every part's ETag."""
        refused = self._versioned(call)
        if refused:
            return refused
        if call.q("action") == "initializeUpload":
            request = call.body.get("initializeUploadRequest") or {}
            size = int(request.get("fileSizeBytes") or 0)
            if not request.get("owner") or size <= 0:
                return 422, {"status": 422, "message": "owner and fileSizeBytes required"}, {}
            refused = self._may_act_as(call, request["owner"])
            if refused:
                return refused
            video = f"urn:li:video:{self.next_id()}"
            parts = []
            for first in range(0, size, LINKEDIN_PART_BYTES):
                number = f"v{self.next_id()}"
                parts.append({"uploadUrl": f"{self.url}/upload/{number}", "firstByte": first,
                              "lastByte": min(size, first + LINKEDIN_PART_BYTES) - 1})  # fmt: skip
            self.videos[video] = {"parts": parts, "size": size, "finalized": False}
            return 200, {"value": {"video": video, "uploadToken": f"token-{video}",
                                   "uploadInstructions": parts}}, {}  # fmt: skip
        if call.q("action") == "finalizeUpload":
            request = call.body.get("finalizeUploadRequest") or {}
            found = self.videos.get(request.get("video", ""))
            if found is None or len(request.get("uploadedPartIds") or []) != len(found["parts"]):
                return 400, {"status": 400, "message": "Missing uploaded parts"}, {}
            found["finalized"] = True
            self.processing_started(request["video"])
            return 200, {}, {}
        return 400, {"status": 400, "message": "Unknown action"}, {}

    def video(self, call: Call, target: str) -> Answer:
        refused = self._versioned(call)
        if refused:
            return refused
        urn = unquote(target)
        if urn not in self.videos or not self.videos[urn]["finalized"]:
            return 404, {"status": 404, "message": f"Not found: {urn}"}, {}
        look = self.processing_look(urn)
        if look == "failed":
            return 200, {"id": urn, "status": "PROCESSING_FAILED",
                         "processingFailureReason": self.video_fail}, {}  # fmt: skip
        return 200, {"id": urn, "status": "PROCESSING" if look == "processing"
                     else "AVAILABLE"}, {}  # fmt: skip

    def analytics(self, call: Call) -> Answer:
        counts = {"IMPRESSION": 120, "REACTION": 7, "COMMENT": 2, "RESHARE": 1}
        return self._versioned(call) or (
            200,
            {"elements": [{"count": counts.get(call.q("queryType"), 0)}]},
            {},
        )

    # --- Organization pages (the Community Management API) ---------------------------------

    def organization_acls(self, call: Call) -> Answer:
        """`q=roleAssignee`: the member's roles on pages, only those of `role` and `state` when
        asked (without them: every role and pending requests too), `count` from `start`."""
        refused = self._versioned(call) or self._scoped(
            call, "rw_organization_admin", "r_organization_admin", "w_organization_social",
            "r_organization_social",
        )  # fmt: skip
        if refused:
            return refused
        if call.q("q") != "roleAssignee":
            return 400, {"status": 400, "message": "Unknown finder: q is required"}, {}
        found = [{"roleAssignee": LINKEDIN_PERSON, "role": acl["role"], "state": acl["state"],
                  "organization": f"urn:li:organization:{acl['id']}"}
                 for acl in self.acls
                 if call.q("role") in ("", acl["role"])
                 and call.q("state") in ("", acl["state"])]  # fmt: skip
        start, count = int(call.q("start") or 0), int(call.q("count") or 10)
        paging = {"start": start, "count": count, "total": len(found)}
        return 200, {"elements": found[start : start + count], "paging": paging}, {}

    def organization(self, call: Call, number: str) -> Answer:
        """`GET /rest/organizations/{id}`: its names; its logo as a media asset URN."""
        refused = self._versioned(call)
        if refused:
            return refused
        page = next((page for page in LINKEDIN_ORGANIZATIONS if str(page["id"]) == number), None)
        if page is None:
            return 404, {"status": 404, "serviceErrorCode": 0, "code": "NOT_FOUND",
                         "message": f"Organization {number} not found"}, {}  # fmt: skip
        logo = {"original": f"urn:li:digitalmediaAsset:C4D0B{number}"}
        return 200, {"id": page["id"], "localizedName": page["localizedName"],
                     "vanityName": page["vanityName"], "logoV2": logo}, {}  # fmt: skip

    def share_statistics(self, call: Call) -> Answer:
        """`q=organizationalEntity` with `shares=List(..)` (or `ugcPosts=List(..)`): each
        post's lifetime counters; `rw_organization_admin` and the ADMINISTRATOR role needed,
        and every post must be the organization's."""
        refused = self._versioned(call) or self._scoped(call, "rw_organization_admin")
        if refused:
            return refused
        entity = call.q("organizationalEntity")
        organization = entity.removeprefix("urn:li:organization:")
        if call.q("q") != "organizationalEntity" or organization == entity:
            return 400, {"status": 400, "message": "organizationalEntity is required"}, {}
        if not self._roles(organization, ("ADMINISTRATOR",)):
            return 403, {"status": 403, "serviceErrorCode": 100, "code": "ACCESS_DENIED",
                         "message": f"Not enough permissions to access {entity}"}, {}  # fmt: skip
        kind = "shares" if call.q("shares") else "ugcPosts"
        listed = call.q(kind)
        urns = [u for u in listed.removeprefix("List(").removesuffix(")").split(",") if u]
        theirs = {post["id"] for post in self.posts if post.get("author") == entity}
        if not urns or not set(urns) <= theirs:
            return 403, {"status": 403, "serviceErrorCode": 100, "code": "ACCESS_DENIED",
                         "message": "Unpermitted fields present in PARAMETER: Data Processing "
                         f"Exception while processing fields [/{kind}[0]]"}, {}  # fmt: skip
        statistics = {"impressionCount": 340, "uniqueImpressionsCount": 290, "clickCount": 12,
                      "likeCount": 9, "commentCount": 3, "shareCount": 2,
                      "engagement": 0.076}  # fmt: skip
        key = "share" if kind == "shares" else "ugcPost"
        return 200, {"elements": [{key: urn, "organizationalEntity": entity,
                                   "totalShareStatistics": statistics}
                                  for urn in urns]}, {}  # fmt: skip


# --- Meta: Facebook Pages and Instagram -------------------------------------------------------


def _graph_error(code: int, message: str, status: int = 400) -> Answer:
    return status, {"error": {"message": message, "type": "OAuthException", "code": code,
                              "fbtrace_id": "AbCdEf"}}, {}  # fmt: skip


@dataclass
class MetaStandIn(StandIn):
    codes: dict[str, str] = field(default_factory=dict)
    pages: list[dict[str, Any]] = field(default_factory=lambda: [dict(p) for p in FACEBOOK_PAGES])
    containers: dict[str, str] = field(default_factory=dict)  # container -> caption
    slow_containers: bool = False  # the first publish of a container finds it not ready
    ready: set[str] = field(default_factory=set)
    routes = (
        ("GET", rf"/{GRAPH_VERSION}/dialog/oauth", "authorize"),
        ("GET", rf"/{GRAPH_VERSION}/oauth/access_token", "token"),
        ("GET", rf"/{GRAPH_VERSION}/me/accounts", "accounts"),
        ("POST", rf"/{GRAPH_VERSION}/(\d+)/feed", "create_feed_post"),
        ("GET", rf"/{GRAPH_VERSION}/(\d+)/feed", "feed"),
        ("POST", rf"/{GRAPH_VERSION}/(\d+)/photos", "create_photo"),
        ("POST", rf"/{GRAPH_VERSION}/(\d+)/videos", "create_video"),
        ("POST", rf"/{GRAPH_VERSION}/(\d+)/media", "create_container"),
        ("POST", rf"/{GRAPH_VERSION}/(\d+)/media_publish", "publish_container"),
        ("GET", rf"/{GRAPH_VERSION}/(\d+)/media", "media"),
        ("GET", rf"/{GRAPH_VERSION}/([\w]+)/insights", "insights"),
        ("POST", rf"/{GRAPH_VERSION}/([\w]+)/comments", "create_comment"),
        ("GET", rf"/{GRAPH_VERSION}/([\w]+)/comments", "comments"),
        ("GET", rf"/{GRAPH_VERSION}/([\w]+)", "node"),
    )

    def dispatch(self, call: Call) -> Answer:
        if not call.path.startswith(f"/{GRAPH_VERSION}/"):
            return _graph_error(2635, "You are calling a deprecated version of the Graph API.")
        return super().dispatch(call)

    def _page_token(self, call: Call) -> Answer | None:
        if self.expired or not _bearer(call).startswith("page-token-"):
            return _graph_error(190, "Error validating access token: Session has expired.")
        return None

    def authorize(self, call: Call) -> Answer:
        if call.q("client_id") != FACEBOOK_APP[0]:
            return _graph_error(101, "Error validating application. Invalid application ID.")
        code = f"fb-code-{self.next_id()}"
        self.codes[code] = call.q("redirect_uri")
        return _consent_redirect(call, code)

    def token(self, call: Call) -> Answer:
        if call.q("client_id") != FACEBOOK_APP[0] or call.q("client_secret") != FACEBOOK_APP[1]:
            return _graph_error(1, "Error validating client secret.")
        if call.q("grant_type") == "fb_exchange_token":
            if call.q("fb_exchange_token") != "fb-short-token":
                return _graph_error(190, "Invalid OAuth access token.")
            return 200, {"access_token": "fb-long-token", "token_type": "bearer",
                         "expires_in": 5183944}, {}  # fmt: skip
        if self.codes.pop(call.q("code"), None) != call.q("redirect_uri"):
            return _graph_error(100, "Invalid verification code format.")
        return 200, {"access_token": "fb-short-token", "token_type": "bearer",
                     "expires_in": 5400}, {}  # fmt: skip

    def accounts(self, call: Call) -> Answer:
        if _bearer(call) != "fb-long-token":
            return _graph_error(190, "Invalid OAuth access token.")
        data = [
            {"id": page["id"], "name": page["name"], "access_token": f"page-token-{page['id']}",
             "picture": {"data": {"url": f"https://scontent.example/{page['id']}.jpg"}}}
            for page in self.pages
        ]  # fmt: skip
        return 200, {"data": data, "paging": {}}, {}

    def _page_post(self, page: str, message: str, kind: str) -> str:
        post_id = f"{page}_{9000 + self.next_id()}"
        self.posts.append({"id": post_id, "page": page, "message": message, "kind": kind,
                           "created_time": stamp(time.time())})  # fmt: skip
        return post_id

    def create_feed_post(self, call: Call, page: str) -> Answer:
        refused = self._page_token(call)
        if refused:
            return refused
        if not call.body.get("message") and not call.body.get("link"):
            return _graph_error(100, "(#100) Missing message or attachment.")
        if call.body.get("message") and any(
            post.get("page") == page and post["message"] == call.body["message"]
            for post in self.posts
        ):
            return _graph_error(506, "(#506) Duplicate status message")
        post_id = self._page_post(page, call.body.get("message", ""), "feed")
        self.posts[-1]["body"] = call.body
        return 200, {"id": post_id}, {}

    def create_photo(self, call: Call, page: str) -> Answer:
        refused = self._page_token(call)
        if refused:
            return refused
        photo = str(9500 + self.next_id())
        if call.body.get("published") == "false":
            return 200, {"id": photo}, {}
        post_id = self._page_post(page, call.body.get("caption", ""), "photo")
        self.posts[-1]["body"] = call.body
        return 200, {"id": photo, "post_id": post_id}, {}

    def create_video(self, call: Call, page: str) -> Answer:
        """`POST /{page}/videos` with `file_url`: Facebook fetches the file, processes it,
        and publishes the post itself."""
        refused = self._page_token(call)
        if refused:
            return refused
        if not call.body.get("file_url"):
            return _graph_error(100, "(#100) file_url or source is required")
        video = str(9700 + self.next_id())
        message = call.body.get("description", "")
        self.posts.append(
            {"id": video, "page": page, "kind": "video", "message": message, "body": call.body}
        )
        self.processing_started(video)
        return 200, {"id": video}, {}

    def feed(self, call: Call, page: str) -> Answer:
        items = [
            {"id": post["id"], "message": post["message"], "created_time": post["created_time"],
             "permalink_url": f"https://www.facebook.com/{post['id']}"}
            for post in reversed(self.posts) if post.get("page") == page
        ]  # fmt: skip
        return self._page_token(call) or (200, _graph_page(call, items, "created_time"), {})

    def create_container(self, call: Call, ig: str) -> Answer:
        refused = self._page_token(call)
        if refused:
            return refused
        video = call.body.get("media_type") in ("REELS", "VIDEO")
        if video and not call.body.get("video_url"):
            return _graph_error(100, "(#100) The parameter video_url is required")
        if (
            not video
            and not call.body.get("image_url")
            and call.body.get("media_type") != "CAROUSEL"
        ):
            return _graph_error(9004, "Only photo or video can be accepted as media type.")
        container = str(18000 + self.next_id())
        self.containers[container] = call.body.get("caption", "")
        if video:
            self.processing_started(container)
        return 200, {"id": container}, {}

    def publish_container(self, call: Call, ig: str) -> Answer:
        refused = self._page_token(call)
        if refused:
            return refused
        container = call.body.get("creation_id", "")
        if container not in self.containers:
            return _graph_error(24, "The media container was not found.")
        if self.slow_containers and container not in self.ready:
            return _graph_error(9007, "The media is not ready for publishing, please wait.")
        if container in self.processing and container not in self.ready:
            return _graph_error(9007, "The media is not ready for publishing, please wait.")
        media = str(17900 + self.next_id())
        self.posts.append({"id": media, "ig": ig, "caption": self.containers.pop(container),
                           "timestamp": stamp(time.time())})  # fmt: skip
        return 200, {"id": media}, {}

    def media(self, call: Call, ig: str) -> Answer:
        items = [
            {"id": post["id"], "caption": post["caption"], "timestamp": post["timestamp"],
             "permalink": f"https://www.instagram.com/p/{post['id']}/"}
            for post in reversed(self.posts) if post.get("ig") == ig
        ]  # fmt: skip
        return self._page_token(call) or (200, _graph_page(call, items, "timestamp"), {})

    def create_comment(self, call: Call, node: str) -> Answer:
        """`POST /{page post or IG media}/comments` with `message`, as the page."""
        refused = self._page_token(call)
        if refused:
            return refused
        if not any(post["id"] == node for post in self.posts if post.get("kind") != "comment"):
            return _graph_error(100, f"Object with ID '{node}' does not exist")
        if not call.body.get("message"):
            return _graph_error(100, "(#100) The parameter message is required")
        comment = f"{node}_{9800 + self.next_id()}"
        self.posts.append({"kind": "comment", "id": comment, "on": node,
                           "message": call.body["message"],
                           "created_time": stamp(time.time())})  # fmt: skip
        return 200, {"id": comment}, {}

    def comments(self, call: Call, node: str) -> Answer:
        # Facebook names a comment's text and time `message` and `created_time`, Instagram
        # `text` and `timestamp`.
        found = [{"id": post["id"], "message": post["message"], "text": post["message"],
                  "created_time": post["created_time"], "timestamp": post["created_time"]}
                 for post in reversed(self.posts) if post.get("on") == node]  # fmt: skip
        return self._page_token(call) or (200, _graph_page(call, found, "created_time"), {})

    def insights(self, call: Call, node: str) -> Answer:
        names = call.q("metric").split(",")
        data = [{"name": name, "values": [{"value": 10 + index}]} for index, name in
                enumerate(names)]  # fmt: skip
        return self._page_token(call) or (200, {"data": data}, {})

    def node(self, call: Call, node: str) -> Answer:
        refused = self._page_token(call)
        if refused:
            return refused
        fields = call.q("fields")
        page = next((p for p in self.pages if p["id"] == node), None)
        if page is not None:
            if "instagram_business_account" in fields:
                linked = {"instagram_business_account": {"id": page["ig"]}} if page["ig"] else {}
                return 200, {"id": node, **linked}, {}
            return 200, {"id": node, "name": page["name"]}, {}
        if any(p["ig"] == node for p in self.pages):
            return 200, {"id": node, "username": "ada.designs", "name": "Ada Designs",
                         "profile_picture_url": "https://scontent.example/ig.jpg"}, {}  # fmt: skip
        if node in self.processing:  # a video container, or a Facebook video
            look = self.processing_look(node)
            if any(post["id"] == node and post.get("kind") == "video" for post in self.posts):
                status = {"processing": "processing", "failed": "error", "done": "ready"}[look]
                phase = {"status": "error", "errors": [{"code": 1363008,
                                                        "message": self.video_fail}]}  # fmt: skip
                return 200, {"id": node, "status": {"video_status": status,
                             **({"processing_phase": phase} if look == "failed" else {})},
                             "permalink_url": f"/1001/videos/{node}/"}, {}  # fmt: skip
            code = {"processing": "IN_PROGRESS", "failed": "ERROR", "done": "FINISHED"}[look]
            if look == "done":
                self.ready.add(node)
            reason = {"status": self.video_fail} if look == "failed" else {}
            return 200, {"id": node, "status_code": code, **reason}, {}
        if node in self.containers:
            self.ready.add(node)
            return 200, {"id": node, "status_code": "FINISHED"}, {}
        if "permalink_url" in fields:
            return 200, {"id": node, "permalink_url": f"https://www.facebook.com/{node}"}, {}
        if "permalink" in fields:
            return 200, {"id": node, "permalink": f"https://www.instagram.com/p/{node}/"}, {}
        if "reactions" in fields:
            return 200, {"id": node, "reactions": {"summary": {"total_count": 5}},
                         "comments": {"summary": {"total_count": 2}},
                         "shares": {"count": 1}}, {}  # fmt: skip
        return _graph_error(100, f"Unsupported get request. Object with ID '{node}' does not exist")


# --- Bluesky ----------------------------------------------------------------------------------


def _jwt(subject: str, lifetime: int, scope: str) -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    claims = {"sub": subject, "scope": scope, "iat": int(time.time()),
              "exp": int(time.time()) + lifetime, "jti": str(time.time_ns())}  # fmt: skip
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(claims)}.c2lnbmF0dXJl"


@dataclass
class BlueskyStandIn(StandIn):
    access_tokens: set[str] = field(default_factory=set)
    refresh_tokens: set[str] = field(default_factory=set)
    sessions_created: int = 0
    deleted_sessions: list[str] = field(default_factory=list)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # rkey -> record
    service_tokens: set[str] = field(default_factory=set)
    jobs: dict[str, str] = field(default_factory=dict)  # uploaded name -> job id
    job_sizes: dict[str, int] = field(default_factory=dict)
    access_lifetime: int = 7200
    routes = (
        ("POST", r"/xrpc/com.atproto.server.createSession", "create_session"),
        ("POST", r"/xrpc/com.atproto.server.refreshSession", "refresh_session"),
        ("POST", r"/xrpc/com.atproto.server.deleteSession", "delete_session"),
        ("GET", r"/xrpc/app.bsky.actor.getProfile", "profile"),
        ("GET", r"/xrpc/com.atproto.identity.resolveHandle", "resolve_handle"),
        ("POST", r"/xrpc/com.atproto.repo.uploadBlob", "upload_blob"),
        ("POST", r"/xrpc/com.atproto.repo.createRecord", "create_record"),
        ("GET", r"/xrpc/com.atproto.repo.getRecord", "get_record"),
        ("GET", r"/xrpc/app.bsky.feed.getPosts", "get_posts"),
        ("GET", r"/xrpc/com.atproto.server.getServiceAuth", "service_auth"),
        # The video service (BLUESKY_VIDEO_SERVICE_URL points here too).
        ("POST", r"/xrpc/app.bsky.video.uploadVideo", "upload_video"),
        ("GET", r"/xrpc/app.bsky.video.getJobStatus", "job_status"),
    )

    def busy(self) -> Answer:
        reset = str(int(time.time()) + 30)
        return (
            429,
            {"error": "RateLimitExceeded", "message": "Rate Limit Exceeded"},
            {"RateLimit-Reset": reset},
        )

    def _session(self) -> dict[str, Any]:
        access = _jwt(BLUESKY_DID, self.access_lifetime, "com.atproto.appPass")
        refresh = _jwt(BLUESKY_DID, 90 * 86400, "com.atproto.refresh")
        self.access_tokens.add(access)
        self.refresh_tokens.add(refresh)
        return {"did": BLUESKY_DID, "handle": BLUESKY_HANDLE, "accessJwt": access,
                "refreshJwt": refresh, "email": "ada@example.com", "active": True}  # fmt: skip

    def _access_ok(self, call: Call) -> Answer | None:
        if self.expired or _bearer(call) not in self.access_tokens:
            return 400, {"error": "ExpiredToken", "message": "Token has expired"}, {}
        return None

    def create_session(self, call: Call) -> Answer:
        if (call.body.get("identifier"), call.body.get("password")) != (
            BLUESKY_HANDLE,
            BLUESKY_APP_PASSWORD,
        ):
            return 401, {"error": "AuthenticationRequired",
                         "message": "Invalid identifier or password"}, {}  # fmt: skip
        self.sessions_created += 1
        return 200, self._session(), {}

    def refresh_session(self, call: Call) -> Answer:
        token = _bearer(call)
        if self.expired or token not in self.refresh_tokens:
            return 400, {"error": "ExpiredToken", "message": "Token has expired"}, {}
        self.refresh_tokens.discard(token)  # refresh tokens rotate
        return 200, self._session(), {}

    def delete_session(self, call: Call) -> Answer:
        self.deleted_sessions.append(_bearer(call))
        self.refresh_tokens.discard(_bearer(call))
        return 200, b"", {}

    def profile(self, call: Call) -> Answer:
        return self._access_ok(call) or (
            200, {"did": BLUESKY_DID, "handle": BLUESKY_HANDLE, "displayName": "Ada",
                  "avatar": "https://cdn.bsky.app/ada.jpg"}, {}
        )  # fmt: skip

    def resolve_handle(self, call: Call) -> Answer:
        if call.q("handle") == "grace.bsky.social":
            return 200, {"did": "did:plc:grace456"}, {}
        return 400, {"error": "InvalidRequest", "message": "Unable to resolve handle"}, {}

    def upload_blob(self, call: Call) -> Answer:
        return self._access_ok(call) or (
            200, {"blob": {"$type": "blob", "ref": {"$link": f"bafk{self.next_id()}"},
                           "mimeType": call.headers.get("Content-Type", ""),
                           "size": len(call.body)}}, {}
        )  # fmt: skip

    def create_record(self, call: Call) -> Answer:
        refused = self._access_ok(call)
        if refused:
            return refused
        rkey = call.body.get("rkey") or f"3k{self.next_id():011d}"
        with self.lock:
            if rkey in self.records:
                return 400, {"error": "InvalidSwap", "message": "Record already exists"}, {}
            record = call.body["record"]
            self.records[rkey] = record
            self.posts.append({"rkey": rkey, **record})
        uri = f"at://{BLUESKY_DID}/app.bsky.feed.post/{rkey}"
        return 200, {"uri": uri, "cid": f"bafyrei{rkey}"}, {}

    def get_record(self, call: Call) -> Answer:
        refused = self._access_ok(call)
        if refused:
            return refused
        record = self.records.get(call.q("rkey"))
        if record is None:
            return 400, {"error": "RecordNotFound", "message": "Could not locate record"}, {}
        uri = f"at://{BLUESKY_DID}/app.bsky.feed.post/{call.q('rkey')}"
        return 200, {"uri": uri, "cid": f"bafyrei{call.q('rkey')}", "value": record}, {}

    def service_auth(self, call: Call) -> Answer:
        """A token for another service to act for the account: audience and method named."""
        refused = self._access_ok(call)
        if refused:
            return refused
        if not call.q("aud").startswith("did:web:") or not call.q("lxm"):
            return 400, {"error": "InvalidRequest", "message": "aud and lxm required"}, {}
        token = f"service-{self.next_id()}"
        self.service_tokens.add(token)
        return 200, {"token": token}, {}

    def upload_video(self, call: Call) -> Answer:
        """The video service: the file as the body, the service token as Bearer; the same
        name again answers 409 `already_exists` with its job."""
        if _bearer(call) not in self.service_tokens or call.q("did") != BLUESKY_DID:
            return 401, {"error": "Unauthorized", "message": "Invalid service token"}, {}
        name = call.q("name")
        with self.lock:
            if name in self.jobs:
                return 409, {"error": "already_exists", "jobId": self.jobs[name],
                             "message": "Video already processed"}, {}  # fmt: skip
            job = f"job-{self.next_id()}"
            self.jobs[name] = job
            self.job_sizes[job] = len(call.body) if isinstance(call.body, bytes) else 0
        self.processing_started(job)
        return 200, {"jobId": job, "did": BLUESKY_DID, "state": "JOB_STATE_CREATED"}, {}

    def job_status(self, call: Call) -> Answer:
        job = call.q("jobId")
        if job not in self.processing:
            return 404, {"error": "NotFound", "message": "Job not found"}, {}
        look = self.processing_look(job)
        status: dict[str, Any] = {"jobId": job, "did": BLUESKY_DID}
        if look == "processing":
            status.update(state="JOB_STATE_ENCODING", progress=50)
        elif look == "failed":
            status.update(state="JOB_STATE_FAILED", error=self.video_fail)
        else:
            status.update(state="JOB_STATE_COMPLETED", blob={
                "$type": "blob", "ref": {"$link": f"bafkvideo{job}"}, "mimeType": "video/mp4",
                "size": self.job_sizes.get(job, 0)})  # fmt: skip
        return 200, {"jobStatus": status}, {}

    def get_posts(self, call: Call) -> Answer:
        return self._access_ok(call) or (
            200, {"posts": [{"uri": call.q("uris"), "likeCount": 4, "repostCount": 1,
                             "replyCount": 2, "quoteCount": 0}]}, {}
        )  # fmt: skip


# --- Mastodon ---------------------------------------------------------------------------------


@dataclass
class MastodonStandIn(StandIn):
    apps: dict[str, dict[str, str]] = field(default_factory=dict)  # client_id -> app
    codes: dict[str, tuple[str, str]] = field(default_factory=dict)  # code -> (client, redirect)
    tokens: set[str] = field(default_factory=set)
    revoked: list[str] = field(default_factory=list)
    keys: dict[str, dict[str, Any]] = field(default_factory=dict)  # Idempotency-Key -> status
    media_sizes: dict[str, int] = field(default_factory=dict)  # video media id -> bytes
    max_characters: int = 1000
    routes = (
        ("POST", r"/api/v1/apps", "register"),
        ("GET", r"/oauth/authorize", "authorize"),
        ("POST", r"/oauth/token", "token"),
        ("POST", r"/oauth/revoke", "revoke"),
        ("GET", r"/api/v1/accounts/verify_credentials", "verify"),
        ("GET", r"/api/v2/instance", "instance"),
        ("POST", r"/api/v2/media", "upload"),
        ("GET", r"/api/v1/media/(\d+)", "media"),
        ("POST", r"/api/v1/statuses", "create_status"),
        ("GET", r"/api/v1/statuses/(\d+)", "status"),
        ("GET", r"/api/v1/accounts/(\d+)/statuses", "statuses"),
    )

    def busy(self) -> Answer:
        reset = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 30))
        return 429, {"error": "Too many requests"}, {"X-RateLimit-Reset": reset}

    def _token_ok(self, call: Call) -> Answer | None:
        if self.expired or _bearer(call) not in self.tokens:
            return 401, {"error": "The access token is invalid"}, {}
        return None

    def register(self, call: Call) -> Answer:
        if not call.body.get("client_name") or not call.body.get("redirect_uris"):
            return 422, {"error": "Validation failed: Application name can't be blank"}, {}
        number = self.next_id()
        app = {
            "client_id": f"masto-client-{number}",
            "client_secret": f"masto-secret-{number}",
            "redirect_uri": call.body["redirect_uris"],
            "scopes": call.body.get("scopes", ""),
        }
        self.apps[app["client_id"]] = app  # fmt: skip
        return 200, {"id": str(number), "name": call.body["client_name"], **app}, {}

    def authorize(self, call: Call) -> Answer:
        app = self.apps.get(call.q("client_id"))
        if app is None or app["redirect_uri"] != call.q("redirect_uri"):
            return 400, {"error": "invalid_client"}, {}
        code = f"masto-code-{self.next_id()}"
        self.codes[code] = (app["client_id"], call.q("redirect_uri"))
        return _consent_redirect(call, code)

    def token(self, call: Call) -> Answer:
        form = call.body
        app = self.apps.get(form.get("client_id", ""))
        if app is None or app["client_secret"] != form.get("client_secret"):
            return 401, {"error": "invalid_client",
                         "error_description": "Client authentication failed"}, {}  # fmt: skip
        if self.codes.pop(form.get("code", ""), None) != (
            app["client_id"],
            form.get("redirect_uri"),
        ):
            return 400, {"error": "invalid_grant", "error_description": "The provided "
                         "authorization grant is invalid, expired or revoked"}, {}  # fmt: skip
        token = f"masto-token-{self.next_id()}"
        self.tokens.add(token)
        return 200, {"access_token": token, "token_type": "Bearer", "scope": app["scopes"],
                     "created_at": int(time.time())}, {}  # fmt: skip

    def revoke(self, call: Call) -> Answer:
        self.revoked.append(call.body.get("token", ""))
        self.tokens.discard(call.body.get("token", ""))
        return 200, {}, {}

    def verify(self, call: Call) -> Answer:
        return self._token_ok(call) or (
            200, {"id": MASTODON_ACCOUNT_ID, "username": "ada", "acct": "ada",
                  "display_name": "Ada", "avatar": f"{self.url}/avatars/ada.png",
                  "url": f"{self.url}/@ada"}, {}
        )  # fmt: skip

    def instance(self, call: Call) -> Answer:
        return 200, {"domain": "127.0.0.1", "configuration": {"statuses": {
            "max_characters": self.max_characters, "max_media_attachments": 4,
            "characters_reserved_per_url": 23}}}, {}  # fmt: skip

    def upload(self, call: Call) -> Answer:
        """`POST /api/v2/media`: an image is ready at once (200 with its `url`); a video is
        processed first (202, `url` null, then `GET /api/v1/media/{id}`)."""
        refused = self._token_ok(call)
        if refused:
            return refused
        number = str(110000 + self.next_id())
        data = call.body.get("file") or b""
        if data[4:8] == b"ftyp":
            with self.lock:
                self.media_sizes[number] = len(data)
            self.processing_started(number)
            description = (call.body.get("description") or b"").decode()
            return 202, {"id": number, "type": "video", "url": None,
                         "description": description}, {}  # fmt: skip
        return 200, {"id": number, "type": "image", "url": f"{self.url}/media/1.png"}, {}

    def media(self, call: Call, number: str) -> Answer:
        refused = self._token_ok(call)
        if refused:
            return refused
        if number not in self.processing:
            return 404, {"error": "Record not found"}, {}
        look = self.processing_look(number)
        if look == "failed":
            return 422, {"error": self.video_fail}, {}
        if look == "processing":
            return 206, {"id": number, "type": "video", "url": None}, {}
        return 200, {"id": number, "type": "video", "url": f"{self.url}/media/{number}.mp4"}, {}

    def create_status(self, call: Call) -> Answer:
        refused = self._token_ok(call)
        if refused:
            return refused
        key = call.headers.get("Idempotency-Key", "")
        with self.lock:
            if key and key in self.keys:
                return 200, self.keys[key], {}
            text = str(call.body.get("status") or "")
            if not text and not call.body.get("media_ids"):
                return 422, {"error": "Validation failed: Text can't be blank"}, {}
            if len(re.sub(r"https?://\S+", "x" * 23, text)) > self.max_characters:
                return 422, {"error": "Validation failed: Text character limit exceeded"}, {}
            number = str(111000 + self.next_id())
            parent = call.body.get("in_reply_to_id")
            if parent and not any(post["id"] == parent for post in self.posts):
                return 404, {"error": "Record not found"}, {}
            status = {"id": number, "url": f"{self.url}/@ada/{number}",
                      "created_at": stamp(time.time()), "in_reply_to_id": parent or None,
                      "content": "<p>" + text.replace("\n\n", "</p><p>") + "</p>",
                      "replies_count": 1, "reblogs_count": 2, "favourites_count": 3}  # fmt: skip
            self.posts.append({**status, "body": call.body, "key": key})
            if key:
                self.keys[key] = status
        return 200, status, {}

    def status(self, call: Call, number: str) -> Answer:
        found = next((post for post in self.posts if post["id"] == number), None)
        if found is None:
            return 404, {"error": "Record not found"}, {}
        return self._token_ok(call) or (200, found, {})

    def statuses(self, call: Call, account: str) -> Answer:
        """Newest first, `limit` (20 by default) older than `max_id`."""
        replies = call.q("exclude_replies") != "true"
        older = int(call.q("max_id") or 10**30)
        found = [post for post in sorted(self.posts, key=lambda post: -int(post["id"]))
                 if (replies or not post.get("in_reply_to_id"))
                 and int(post["id"]) < older]  # fmt: skip
        return self._token_ok(call) or (200, found[: int(call.q("limit") or 20)], {})


# --- Dev.to -----------------------------------------------------------------------------------


@dataclass
class DevtoStandIn(StandIn):
    """Dev.to's articles API. `key_prefix`: "" accepts DEVTO_KEY alone; otherwise any key
    starting with it, each key a user of its own whose list holds its own articles only (the
    scheduler bench's hundreds of accounts, bench/platform.py)."""

    key_prefix: str = ""
    # Article id -> the key that made it (an article a test puts in `posts` is DEVTO_KEY's).
    owners: dict[int, str] = field(default_factory=dict)

    routes = (
        ("GET", r"/api/users/me", "me"),
        ("POST", r"/api/articles", "create_article"),
        ("GET", r"/api/articles/me/all", "my_articles"),
    )

    def _key_ok(self, call: Call) -> Answer | None:
        key = call.headers.get("api-key") or ""
        known = key.startswith(self.key_prefix) if self.key_prefix else key == DEVTO_KEY
        if self.expired or not known:
            return 401, {"error": "unauthorized", "status": 401}, {}
        return None

    def me(self, call: Call) -> Answer:
        return self._key_ok(call) or (
            200, {"id": 4242, "username": "ada", "name": "Ada Lovelace",
                  "profile_image": "https://media.dev.to/ada.png"}, {}
        )  # fmt: skip

    def create_article(self, call: Call) -> Answer:
        refused = self._key_ok(call)
        if refused:
            return refused
        article = call.body.get("article") or {}
        if not article.get("title"):
            return 422, {"error": "Title can't be blank", "status": 422}, {}
        if len(article.get("tags") or []) > 4:
            return 422, {"error": "Tag list exceed the maximum of 4 tags", "status": 422}, {}
        canonical = article.get("canonical_url")
        if canonical and any(p["article"].get("canonical_url") == canonical for p in self.posts):
            return 422, {"error": "Canonical url has already been taken", "status": 422}, {}
        number = 1_900_000 + self.next_id()
        created = {"id": number, "title": article["title"],
                   "body_markdown": article.get("body_markdown", ""),
                   "url": f"https://dev.to/ada/post-{number}",
                   "published_at": stamp(time.time()), "page_views_count": 30,
                   "public_reactions_count": 4, "comments_count": 1}  # fmt: skip
        with self.lock:
            self.posts.append({**created, "article": article})
            self.owners[number] = call.headers["api-key"]
        return 201, created, {}

    def my_articles(self, call: Call) -> Answer:
        """The key's articles, newest first, `per_page` (30 by default) a page, pages from 1."""
        per_page, page = int(call.q("per_page") or 30), int(call.q("page") or 1)
        key = call.headers.get("api-key")
        with self.lock:
            mine = [p for p in reversed(self.posts) if self.owners.get(p["id"], DEVTO_KEY) == key]
        articles = mine[(page - 1) * per_page : page * per_page]
        return self._key_ok(call) or (200, articles, {})


# --- A CDN for hosted images ------------------------------------------------------------------

# The smallest valid JPEG: what a user's hosted image looks like to the platforms.
JPEG = bytes.fromhex(
    "ffd8ffe000104a46494600010100000100010000ffdb004300080606070605080707070909080a0c140d0c0b0b"
    "0c1912130f141d1a1f1e1d1a1c1c20242e2720222c231c1c2837292c30313434341f27393d38323c2e333432ff"
    "c0000b080001000101011100ffc4001f0000010501010101010100000000000000000102030405060708090a0b"
    "ffc400b5100002010303020403050504040000017d01020300041105122131410613516107227114328191a108"
    "2342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a53545556"
    "5758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9"
    "aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7"
    "f8f9faffda0008010100003f00fbd3ffd9"
)


@dataclass
class CdnStandIn(StandIn):
    """A file host: a JPEG at any `*.jpg`, and the `files` put here at `/files/{name}`,
    answering byte ranges (206, Content-Range) as CDNs do; `sent` counts the bytes served."""

    files: dict[str, bytes] = field(default_factory=dict)
    ranges: bool = True  # False: the whole file, whatever the Range header asks
    sent: int = 0
    routes = (("GET", r"/(.+\.jpg)", "image"), ("GET", r"/files/(.+)", "file"))

    def image(self, call: Call, name: str) -> Answer:
        return 200, JPEG, {"Content-Type": "image/jpeg"}

    def file(self, call: Call, name: str) -> Answer:
        data = self.files.get(name)
        if data is None:
            return 404, b"Not Found", {"Content-Type": "text/plain"}
        kind = {"mp4": "video/mp4", "mov": "video/quicktime"}.get(name.rsplit(".", 1)[-1], "")
        headers = {"Content-Type": kind or "application/octet-stream", "Accept-Ranges": "bytes"}
        asked = re.fullmatch(r"bytes=(\d+)-(\d*)", call.headers.get("Range", ""))
        if asked is None or not self.ranges:
            answer: Answer = (200, data, headers)
        elif int(asked[1]) >= len(data):
            answer = (416, b"", {"Content-Range": f"bytes */{len(data)}"})
        else:
            first, last = int(asked[1]), min(int(asked[2] or len(data) - 1), len(data) - 1)
            headers["Content-Range"] = f"bytes {first}-{last}/{len(data)}"
            answer = (206, data[first : last + 1], headers)
        with self.lock:
            self.sent += len(answer[1])
        return answer


# --- Serving ----------------------------------------------------------------------------------


def _parse_body(headers: Any, raw: bytes) -> Any:
    kind = headers.get("Content-Type", "")
    if not raw:
        return {}
    if kind.startswith("application/json"):
        return json.loads(raw)
    if kind.startswith("application/x-www-form-urlencoded"):
        return {name: values[0] for name, values in parse_qs(raw.decode()).items()}
    if kind.startswith("multipart/form-data"):
        message = BytesParser(policy=HTTP).parsebytes(
            f"Content-Type: {kind}\r\n\r\n".encode() + raw
        )
        return {
            part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
            for part in message.iter_parts()
        }
    return raw


RECEIVED_PATH = "/_standin/received"


def _received(standin: StandIn) -> bytes:
    """What `standin` received, oldest first, as JSON (a file's bytes as their count): no real
    platform has this page; it is for a person trying the API against the stand-ins."""
    with standin.lock:
        calls = [
            {"at": stamp(call.received_at), "method": call.method, "path": call.path,
             "query": call.query, "body": call.body}
            for call in standin.calls
        ]  # fmt: skip
    return json.dumps(calls, default=lambda raw: f"<{len(raw)} bytes>", indent=1).encode()


def _handler(standin: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body leave in two writes: with Nagle's algorithm on, the body waited for
        # the client's delayed ACK of the headers, adding 40 ms to every kept-alive answer
        # (a real provider's server sets TCP_NODELAY).
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: object) -> None:
            pass

        def _send(self, answer: Answer) -> None:
            status, body, headers = answer
            if standin.log is not None:
                standin.log(
                    f"[{standin.name}] {self.command} {urlparse(self.path).path} -> {status}"
                )
            raw = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            if not isinstance(body, bytes):
                self.send_header("Content-Type", "application/json; charset=utf-8")
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _handle(self) -> None:
            parsed = urlparse(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if (self.command, parsed.path) == ("GET", RECEIVED_PATH):
                self._send((200, _received(standin), {}))
                return
            call = Call(self.command, parsed.path, parse_qs(parsed.query), dict(self.headers),
                        _parse_body(self.headers, raw))  # fmt: skip
            standin.arrived(call)
            try:
                if standin.latency:
                    time.sleep(standin.latency)
                if standin.fail == "timeout":
                    time.sleep(standin.hang)
                self._send(standin.answer(call))
            finally:
                standin.answered()

        do_GET = do_POST = do_PUT = do_DELETE = _handle

    return Handler


class _Server(ThreadingHTTPServer):
    # A real platform's listen backlog, not socketserver's 5: a burst of new connections (many
    # worker processes at once) was refused and reset here, as no platform would.
    request_queue_size = 1024


async def _connection(
    standin: StandIn, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """One kept-alive connection to `standin` on the loop: the same calls recorded and the same
    answers as the threaded server's, read with no more parsing than a call needs."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            arrived = time.time()
            request, *lines = head.decode("latin-1").split("\r\n")
            method, target, _ = request.split(" ", 2)
            headers, lower = {}, {}
            for line in lines:
                if line:
                    name, _, value = line.partition(":")
                    headers[name.strip()] = lower[name.strip().lower()] = value.strip()
            raw = await reader.readexactly(int(lower.get("content-length") or 0))
            path, _, query = target.partition("?")
            if (method, path) == ("GET", RECEIVED_PATH):
                answer: Answer = (200, _received(standin), {})
            else:
                kind = {"Content-Type": lower.get("content-type", "")}
                call = Call(method, path, parse_qs(query), headers,
                            _parse_body(kind, raw), received_at=arrived)  # fmt: skip
                standin.arrived(call)
                try:
                    if standin.latency:
                        await asyncio.sleep(standin.latency)
                    if standin.fail == "timeout":
                        await asyncio.sleep(standin.hang)
                    answer = standin.answer(call)
                finally:
                    standin.answered()
            writer.write(_response(standin, method, path, answer))
            await writer.drain()
            if lower.get("connection", "").lower() == "close":
                return
    except (asyncio.IncompleteReadError, ConnectionError):
        pass  # the client went away
    finally:
        writer.close()


def _response(standin: StandIn, method: str, path: str, answer: Answer) -> bytes:
    status, body, extra = answer
    if standin.log is not None:
        standin.log(f"[{standin.name}] {method} {path} -> {status}")
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {} if isinstance(body, bytes) else {"Content-Type": "application/json; charset=utf-8"}
    headers |= {**extra, "Content-Length": str(len(raw))}
    lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + raw


@contextmanager
def _on_a_loop(standin: StandIn, port: int) -> Iterator[str]:
    """`standin` served by one asyncio loop in a thread of its own (see `listen`)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name=f"standin-{standin.name}", daemon=True)
    thread.start()

    async def started() -> asyncio.Server:
        connected = functools.partial(_connection, standin)
        return await asyncio.start_server(connected, "127.0.0.1", port, backlog=1024)

    async def stopped() -> None:
        server.close()
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.cancel()

    server = asyncio.run_coroutine_threadsafe(started(), loop).result(10)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        asyncio.run_coroutine_threadsafe(stopped(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@contextmanager
def listen(standin: StandIn, port: int = 0, *, loop: bool = False) -> Iterator[str]:
    """`standin` answering at a new address on loopback (`port`, any free one by default), its
    URL: a second one serves a platform's other host (Bluesky's video service beside the PDS),
    each call's `Host` header saying which was asked.

    `loop`: every connection a coroutine of one asyncio loop instead of a thread, `latency`
    waited without holding one: for a load of thousands of calls (the scheduler bench's burst,
    bench/platform.py), where a thread per connection made the platform's CPU a large part of
    what the bench measured (docs/performance.md). The routes run on the loop, so they must
    not block (none does: a stand-in's waiting is its `latency` and `hang`, which the loop
    waits without blocking)."""
    if loop:
        with _on_a_loop(standin, port) as url:
            yield url
        return
    server = _Server(("127.0.0.1", port), _handler(standin))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serve(standin: StandIn, port: int = 0, *, loop: bool = False) -> Iterator[StandIn]:
    with listen(standin, port, loop=loop) as url:
        standin.url = url
        yield standin


@dataclass
class Providers:
    linkedin: LinkedInStandIn
    meta: MetaStandIn
    bluesky: BlueskyStandIn
    mastodon: MastodonStandIn
    devto: DevtoStandIn
    cdn: CdnStandIn
    threads: "ThreadsStandIn"
    x: "XStandIn"
    youtube: "YouTubeStandIn"
    tiktok: "TikTokStandIn"
    pinterest: "PinterestStandIn"
    telegram: "TelegramStandIn"
    discord: "DiscordStandIn"
    google_business: "GoogleBusinessStandIn"
    slack: "SlackStandIn"
    reddit: "RedditStandIn"

    def image(self, name: str = "launch.jpg") -> str:
        return f"{self.cdn.url}/{name}"

    def settings(self) -> dict[str, Any]:
        """The settings that point the adapters at these stand-ins."""
        from tests.social.discord_standin import DISCORD_CLIENT
        from tests.social.pinterest_standin import PINTEREST_APP
        from tests.social.reddit_standin import REDDIT_AGENT, REDDIT_CLIENT
        from tests.social.slack_standin import SLACK_CLIENT
        from tests.social.threads_standin import THREADS_APP, THREADS_VERSION
        from tests.social.tiktok_standin import TIKTOK_CLIENT
        from tests.social.x_standin import X_CLIENT
        from tests.social.youtube_standin import GOOGLE_CLIENT

        return {
            "LINKEDIN_CLIENT_ID": LINKEDIN_CLIENT[0],
            "LINKEDIN_CLIENT_SECRET": LINKEDIN_CLIENT[1],
            "LINKEDIN_AUTH_URL": f"{self.linkedin.url}/oauth/v2",
            "LINKEDIN_API_URL": self.linkedin.url,
            "LINKEDIN_API_VERSION": LINKEDIN_VERSION,
            "FACEBOOK_APP_ID": FACEBOOK_APP[0],
            "FACEBOOK_APP_SECRET": FACEBOOK_APP[1],
            "FACEBOOK_DIALOG_URL": self.meta.url,
            "FACEBOOK_GRAPH_URL": self.meta.url,
            "FACEBOOK_GRAPH_VERSION": GRAPH_VERSION,
            "BLUESKY_SERVICE_URL": self.bluesky.url,
            "BLUESKY_VIDEO_SERVICE_URL": self.bluesky.url,
            "DEVTO_API_URL": f"{self.devto.url}/api",
            "THREADS_APP_ID": THREADS_APP[0],
            "THREADS_APP_SECRET": THREADS_APP[1],
            "THREADS_AUTH_URL": self.threads.url,
            "THREADS_GRAPH_URL": self.threads.url,
            "THREADS_GRAPH_VERSION": THREADS_VERSION,
            "X_CLIENT_ID": X_CLIENT[0],
            "X_CLIENT_SECRET": X_CLIENT[1],
            "X_AUTH_URL": self.x.url,
            "X_API_URL": self.x.url,
            "GOOGLE_CLIENT_ID": GOOGLE_CLIENT[0],
            "GOOGLE_CLIENT_SECRET": GOOGLE_CLIENT[1],
            "GOOGLE_AUTH_URL": f"{self.youtube.url}/o/oauth2/v2/auth",
            "GOOGLE_TOKEN_URL": f"{self.youtube.url}/token",
            "YOUTUBE_API_URL": self.youtube.url,
            "TIKTOK_CLIENT_KEY": TIKTOK_CLIENT[0],
            "TIKTOK_CLIENT_SECRET": TIKTOK_CLIENT[1],
            "TIKTOK_AUTH_URL": f"{self.tiktok.url}/v2/auth/authorize/",
            "TIKTOK_API_URL": self.tiktok.url,
            "PINTEREST_CLIENT_ID": PINTEREST_APP[0],
            "PINTEREST_CLIENT_SECRET": PINTEREST_APP[1],
            "PINTEREST_AUTH_URL": f"{self.pinterest.url}/oauth/",
            "PINTEREST_API_URL": self.pinterest.url,
            "TELEGRAM_API_URL": self.telegram.url,
            "DISCORD_CLIENT_ID": DISCORD_CLIENT[0],
            "DISCORD_CLIENT_SECRET": DISCORD_CLIENT[1],
            "DISCORD_AUTH_URL": f"{self.discord.url}/oauth2/authorize",
            "DISCORD_API_URL": f"{self.discord.url}/api",
            # Its tokens are Google's, from the token endpoint above (YouTube's stand-in).
            "GOOGLE_BUSINESS_ACCOUNTS_URL": self.google_business.url,
            "GOOGLE_BUSINESS_INFO_URL": self.google_business.url,
            "GOOGLE_BUSINESS_API_URL": self.google_business.url,
            "SLACK_CLIENT_ID": SLACK_CLIENT[0],
            "SLACK_CLIENT_SECRET": SLACK_CLIENT[1],
            "SLACK_AUTH_URL": f"{self.slack.url}/oauth/v2/authorize",
            "SLACK_API_URL": f"{self.slack.url}/api",
            "REDDIT_CLIENT_ID": REDDIT_CLIENT[0],
            "REDDIT_CLIENT_SECRET": REDDIT_CLIENT[1],
            "REDDIT_AUTH_URL": f"{self.reddit.url}/api/v1",
            "REDDIT_API_URL": self.reddit.url,
            "REDDIT_USER_AGENT": REDDIT_AGENT,
            "SOCIAL_HTTP_TIMEOUT_SECONDS": 2.0,
        }

    def by_provider(self, provider: str) -> StandIn:
        shared = {"facebook": self.meta, "instagram": self.meta, "linkedin_page": self.linkedin}
        return shared.get(provider) or getattr(self, provider)


SANDBOX_VIDEO_OFFSET = 6  # scripts/sandbox.py: Bluesky's video service, after the CDN


@contextmanager
def provider_standins(base_port: int = 0) -> Iterator[Providers]:
    """The six stand-ins, each on a free port, or from `base_port` on, one after another in the
    order of `Providers`' fields (the sandbox's fixed addresses)."""
    from tests.social.discord_standin import DiscordStandIn
    from tests.social.google_business_standin import GoogleBusinessStandIn
    from tests.social.pinterest_standin import PinterestStandIn
    from tests.social.reddit_standin import RedditStandIn
    from tests.social.slack_standin import SlackStandIn
    from tests.social.telegram_standin import TelegramStandIn
    from tests.social.threads_standin import ThreadsStandIn
    from tests.social.tiktok_standin import TikTokStandIn
    from tests.social.x_standin import XStandIn
    from tests.social.youtube_standin import YouTubeStandIn

    with ExitStack() as stack:
        started: dict[str, Any] = {}
        kinds: dict[str, Callable[[], StandIn]] = {
            "linkedin": LinkedInStandIn,
            "meta": MetaStandIn,
            "bluesky": BlueskyStandIn,
            "mastodon": MastodonStandIn,
            "devto": DevtoStandIn,
            "cdn": CdnStandIn,
            "threads": ThreadsStandIn,
            "x": XStandIn,
            "youtube": YouTubeStandIn,
            "tiktok": TikTokStandIn,
            "pinterest": PinterestStandIn,
            "telegram": TelegramStandIn,
            "discord": DiscordStandIn,
            "google_business": GoogleBusinessStandIn,
            "slack": SlackStandIn,
            "reddit": RedditStandIn,
        }
        for offset, (name, kind) in enumerate(kinds.items()):
            # The sandbox serves Bluesky's video service on the port after the CDN's.
            offset += offset >= SANDBOX_VIDEO_OFFSET
            started[name] = stack.enter_context(serve(kind(), base_port and base_port + offset))
            started[name].name = name
        # One Google app: YouTube's stand-in serves Google's OAuth for Business Profile's too.
        started["youtube"].apis.append(started["google_business"])
        yield Providers(**started)


def __getattr__(name: str) -> Any:
    """The stand-ins kept in modules of their own: each imports the base above, so it is
    imported when first asked for (`standins.ThreadsStandIn`)."""
    if name == "ThreadsStandIn":
        from tests.social.threads_standin import ThreadsStandIn

        return ThreadsStandIn
    if name == "YouTubeStandIn":
        from tests.social.youtube_standin import YouTubeStandIn

        return YouTubeStandIn
    if name == "TikTokStandIn":
        from tests.social.tiktok_standin import TikTokStandIn

        return TikTokStandIn
    if name == "PinterestStandIn":
        from tests.social.pinterest_standin import PinterestStandIn

        return PinterestStandIn
    if name == "DiscordStandIn":
        from tests.social.discord_standin import DiscordStandIn

        return DiscordStandIn
    if name == "GoogleBusinessStandIn":
        from tests.social.google_business_standin import GoogleBusinessStandIn

        return GoogleBusinessStandIn
    if name == "TelegramStandIn":
        from tests.social.telegram_standin import TelegramStandIn

        return TelegramStandIn
    if name == "SlackStandIn":
        from tests.social.slack_standin import SlackStandIn

        return SlackStandIn
    if name == "RedditStandIn":
        from tests.social.reddit_standin import RedditStandIn

        return RedditStandIn
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
